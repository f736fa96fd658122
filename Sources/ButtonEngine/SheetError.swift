/// Why a sheet refused a choice; the server renders it as a 422.
public enum SheetError: Error, Equatable, Sendable {
    /// The option is neither one of the sheet's ids nor a valid index.
    case unknownOption
}
