import ThreadSupport
import ButtonStore
import Buttons
import Delivery
import Dispatch
import FoundationEssentials
import MicroHTTP

/// Named, scoped tokens (SPEC §6): made by the admin, shown once, kept as SHA-256 hashes,
/// revoked at once (the next request with one is 401 and its open streams end).
final class NamedTokens: Sendable {
    static let prefix = "bdt_"
    /// How often a token's `lastUsedAt` is written back (it is kept exactly in memory).
    static let touchIntervalMs: Int64 = 60_000

    enum Verdict {
        case valid(Grant)
        case expired
        case unknown
    }

    private struct Entry {
        var stored: StoredToken
        var writtenUseAt: Int64?
        /// Streams opened with it, ended when it is revoked.
        var streams: [EventStream] = []
    }

    private let store: ButtonStore
    private let entries: Locked<[String: Entry]>

    init(store: ButtonStore) throws(StoreError) {
        self.store = store
        let loaded = try store.loadTokens()
        entries = Locked(Dictionary(uniqueKeysWithValues: loaded.map { ($0.name, Entry(stored: $0, writtenUseAt: $0.lastUsedAt)) }))
    }

    var isEmpty: Bool { entries.withLock { $0.isEmpty } }

    /// Every token, oldest first, as `GET /api/v1/tokens` lists them.
    var list: [StoredToken] {
        entries.withLock { $0.values.map(\.stored) }.sorted { ($0.createdAt, $0.name) < ($1.createdAt, $1.name) }
    }

    /// Makes a token from `POST /api/v1/tokens`; returns it with the token, shown this once.
    func create(from json: JSONValue, now: Int64) throws(ButtonsError) -> (StoredToken, String) {
        var fields = try Fields(json)
        guard let name = try fields.name("name") else { throw ButtonsError.invalid("name", "name is required") }
        guard let roleName = try fields.string("role", maxLength: 16) else {
            throw ButtonsError.invalid("role", "role is required: read, press or admin")
        }
        guard Grant.Role(name: roleName) != nil else { throw ButtonsError.invalid("role", "role must be read, press or admin") }
        let groups = try Self.groups(&fields)
        let expiresAt = try fields.int("expiresAt", in: 0...Int64.max)
        try fields.finish()
        if let expiresAt, expiresAt <= now { throw ButtonsError.invalid("expiresAt", "expiresAt must be in the future") }
        let token = Self.prefix + Data(Signature.randomBytes(32)).base64EncodedString()
            .replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
        let stored = StoredToken(
            name: name, role: roleName, groups: groups, hash: Signature.sha256(Array(token.utf8)), createdAt: now,
            expiresAt: expiresAt)
        let inserted: Bool
        do { inserted = try store.insertToken(stored) } catch { throw Registry.storageError(error) }
        guard inserted else { throw ButtonsError.conflict("already_exists", "a token named '\(name)' exists: revoke it first") }
        entries.withLock { $0[name] = Entry(stored: stored) }
        return (stored, token)
    }

    private static func groups(_ fields: inout Fields) throws(ButtonsError) -> [String]? {
        guard let list = try fields.array("groups") else { return nil }
        guard !list.isEmpty else { throw ButtonsError.invalid("groups", "groups must name at least one group (leave it out for all)") }
        var groups: [String] = []
        for (index, value) in list.enumerated() {
            guard case .string(let group) = value, (1...64).contains(group.count), !group.contains("\n") else {
                throw ButtonsError.invalid("groups[\(index)]", "groups[\(index)] must be a group's name (1-64 characters)")
            }
            if !groups.contains(group) { groups.append(group) }
        }
        return groups
    }

    /// Revokes a token at once: the next request with it is 401, its open streams end.
    func revoke(_ name: String) throws(ButtonsError) {
        let deleted: Bool
        do { deleted = try store.deleteToken(name: name) } catch { throw Registry.storageError(error) }
        let streams = entries.withLock { $0.removeValue(forKey: name)?.streams ?? [] }
        guard deleted || !streams.isEmpty else { throw ButtonsError.notFound("no token named '\(name)'") }
        for stream in streams { stream.finish() }
    }

    /// The grant of a presented `bdt_` token. Each hash is compared in constant time.
    func verify(_ token: String, now: Int64) -> Verdict {
        let hash = Signature.sha256(Array(token.utf8))
        let (found, touch) = entries.withLock { entries -> (StoredToken?, Bool) in
            var match: String?
            for (name, entry) in entries where Auth.same(entry.stored.hash, hash) { match = name }
            guard let match, var entry = entries[match] else { return (nil, false) }
            if let expiresAt = entry.stored.expiresAt, now >= expiresAt { return (entry.stored, false) }
            entry.stored.lastUsedAt = now
            let touch = now - (entry.writtenUseAt ?? 0) >= Self.touchIntervalMs
            if touch { entry.writtenUseAt = now }
            entries[match] = entry
            return (entry.stored, touch)
        }
        guard let found else { return .unknown }
        if let expiresAt = found.expiresAt, now >= expiresAt { return .expired }
        if touch { try? store.touchToken(name: found.name, at: now) }
        return .valid(
            Grant(
                role: Grant.Role(name: found.role) ?? .read, name: found.name, groups: found.groups.map { Set($0) },
                expiresAt: found.expiresAt))
    }

    /// Remembers a stream opened with `name`, to end it when the token is revoked or, at that
    /// moment, when it expires (a token that ends ends everything it opened).
    func track(_ stream: EventStream, of name: String, now: Int64) {
        let (revoked, expiresAt) = entries.withLock { entries -> (Bool, Int64?) in
            guard entries[name] != nil else { return (true, nil) }
            entries[name]!.streams.removeAll { !$0.isOpen }
            entries[name]!.streams.append(stream)
            return (false, entries[name]!.stored.expiresAt)
        }
        if revoked { return stream.finish() }
        guard let expiresAt else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(max(0, expiresAt - now)))) { [weak stream] in
            stream?.finish()
        }
    }

    static func json(_ token: StoredToken) -> JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(token.name), "role": .string(token.role), "createdAt": .int(token.createdAt),
            "lastUsedAt": token.lastUsedAt.map { .int($0) } ?? .null, "expiresAt": token.expiresAt.map { .int($0) } ?? .null,
        ]
        if let groups = token.groups { object["groups"] = .array(groups.map { .string($0) }) }
        return .object(object)
    }
}
