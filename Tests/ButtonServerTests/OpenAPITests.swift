import Foundation
import MicroHTTP
import Testing

@testable import ButtonServer

/// The OpenAPI document (docs/openapi.json, embedded as `OpenAPIDocument.json`, served at `/api/v1/openapi.json`) against the
/// router: every route is documented, every documented operation is a route, and the served
/// bytes are the document. The hostile-input suite checks the bodies and responses live.
@Suite("OpenAPI document")
struct OpenAPITests {
    static let methods = ["get", "put", "post", "patch", "delete", "head", "options", "trace"]

    static func document() throws -> [String: JSONValue] {
        let parsed = try JSONParser.parse(Array(OpenAPIDocument.json.utf8), maxDepth: 64)
        guard case .object(let root) = parsed else { throw Failure("the document is not a JSON object") }
        return root
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func members(_ value: JSONValue?) -> [String: JSONValue] {
        if case .object(let members)? = value { return members }
        return [:]
    }

    /// "METHOD /pattern" for every documented operation, leaving out paths marked
    /// `x-buttond-fallback` (the static files, which the router serves as its fallback).
    static func documentedOperations(_ root: [String: JSONValue]) -> (routes: Set<String>, fallback: Set<String>) {
        var routes: Set<String> = []
        var fallback: Set<String> = []
        for (path, item) in members(root["paths"]) {
            let item = members(item)
            for method in methods where item[method] != nil {
                let key = "\(method.uppercased()) \(path)"
                if item["x-buttond-fallback"] == .bool(true) { fallback.insert(key) } else { routes.insert(key) }
            }
        }
        return (routes, fallback)
    }

    @Test func documentIsOpenAPI31() throws {
        let root = try Self.document()
        #expect(root["openapi"] == "3.1.0")
        #expect(Self.members(root["info"])["title"] == "buttond")
        #expect(!Self.members(root["paths"]).isEmpty)
        let schemes = Self.members(Self.members(root["components"])["securitySchemes"])
        #expect(Self.members(schemes["bearerAuth"])["scheme"] == "bearer")
    }

    @Test func everyRouteIsDocumentedAndEveryOperationIsARoute() throws {
        let server = try TestServer()
        defer { server.stop() }
        let table = server.app.routeTable
        let routes = Set(table.map { "\($0.method) \($0.pattern)" })
        #expect(routes.count == table.count, "a route is registered twice")
        let (documented, fallback) = Self.documentedOperations(try Self.document())
        let missing = routes.subtracting(documented).sorted()
        let extra = documented.subtracting(routes).sorted()
        #expect(missing.isEmpty, "routes the OpenAPI document lacks: \(missing)")
        #expect(extra.isEmpty, "documented operations with no route: \(extra)")
        #expect(fallback.isDisjoint(with: routes), "a path marked x-buttond-fallback is a route: \(fallback.intersection(routes))")
        #expect(routes.contains("GET /api/v1/openapi.json"))
        #expect(routes.contains("GET /metrics"))
    }

    /// Path templates declare their parameters, and every `$ref` points at something.
    @Test func parametersAndReferencesResolve() throws {
        let root = try Self.document()
        let components = Self.members(root["components"])
        for (path, item) in Self.members(root["paths"]) {
            let item = Self.members(item)
            let names = path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
            var declared: Set<String> = []
            let parameters: [JSONValue]
            if case .array(let list)? = item["parameters"] { parameters = list } else { parameters = [] }
            let shared = Self.members(components["parameters"])
            for parameter in parameters {
                if case .string(let target)? = parameter["$ref"], let name = target.split(separator: "/").last {
                    if case .string(let declaredName)? = Self.members(shared[String(name)])["name"] { declared.insert(declaredName) }
                } else if case .string(let declaredName)? = parameter["name"] {
                    declared.insert(declaredName)
                }
            }
            #expect(Set(names).isSubset(of: declared), "\(path) declares \(declared), needs \(names)")
            for method in Self.methods where item[method] != nil {
                #expect(!Self.members(Self.members(item[method])["responses"]).isEmpty, "\(method) \(path) has no responses")
            }
        }
        var refs: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let members):
                if case .string(let target)? = members["$ref"] { refs.append(target) }
                members.values.forEach(walk)
            case .array(let items): items.forEach(walk)
            default: break
            }
        }
        walk(.object(root))
        #expect(!refs.isEmpty)
        for target in Set(refs) {
            let parts = target.split(separator: "/").map(String.init)
            #expect(parts.count == 4 && parts[0] == "#" && parts[1] == "components", "odd $ref \(target)")
            guard parts.count == 4 else { continue }
            #expect(Self.members(components[parts[2]])[parts[3]] != nil, "unresolved $ref \(target)")
        }
    }

    /// With tokens on, every route that declares a role can answer 401, and those an admin's
    /// token or one of every group needs 403: the document says so exactly where the routes'
    /// declared access does.
    @Test func authResponsesMatchAuth() throws {
        let server = try TestServer()
        defer { server.stop() }
        let paths = Self.members(try Self.document()["paths"])
        for route in server.app.routeTable {
            let responses = Self.members(Self.members(Self.members(paths[route.pattern])[route.method.lowercased()])["responses"])
            let guarded = route.access.role != nil
            #expect((responses["401"] != nil) == guarded, "\(route.method) \(route.pattern): 401 documented \(responses["401"] != nil)")
            let admin = route.access.role == .admin || route.access.object == .deployment
            #expect((responses["403"] != nil) == admin, "\(route.method) \(route.pattern): 403 documented \(responses["403"] != nil)")
        }
    }

    /// The query parameters each operation declares are exactly the ones its route knows (any
    /// other is 400 `unknown_parameter`), so a client made from the document never trips it.
    @Test func queryParametersMatchTheRoutes() throws {
        let root = try Self.document()
        let shared = Self.members(Self.members(root["components"])["parameters"])
        let server = try TestServer()
        defer { server.stop() }
        for route in server.app.routeTable {
            let operation = Self.members(Self.members(Self.members(root["paths"])[route.pattern])[route.method.lowercased()])
            var declared: Set<String> = []
            if case .array(let list)? = operation["parameters"] {
                for parameter in list {
                    var spec = Self.members(parameter)
                    if case .string(let target)? = spec["$ref"], let name = target.split(separator: "/").last {
                        spec = Self.members(shared[String(name)])
                    }
                    if spec["in"] == "query", case .string(let name)? = spec["name"] { declared.insert(name) }
                }
            }
            #expect(declared == Set(route.query), "\(route.method) \(route.pattern): documented \(declared.sorted()), known \(route.query.sorted())")
        }
    }

    @Test func servedDocumentIsTheDocument() throws {
        let server = try TestServer()
        defer { server.stop() }
        let reply = try server.client.get("/api/v1/openapi.json")
        try #require(reply.status == 200, "GET /api/v1/openapi.json answered \(reply.status): \(reply.text.prefix(200))")
        #expect(reply.header("content-type")?.hasPrefix("application/json") == true)
        let identical = reply.body == Array(OpenAPIDocument.json.utf8)
        #expect(identical, "the served document differs from OpenAPIDocument.json (\(reply.body.count) bytes served)")
        let served = try JSONParser.parse(reply.body, maxDepth: 64)
        let same = served == .object(try Self.document())
        #expect(same, "the served document does not parse to OpenAPIDocument.json")
    }
}
