// Requests and responses speak JSON: whoever imports MicroHTTP gets the JSON types too.
@_exported import JSON
