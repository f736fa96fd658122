/// A named token as stored: its SHA-256 only, never the token (SPEC §6).
public struct StoredToken: Sendable, Equatable {
    public var name: String
    /// `read`, `press` or `admin`.
    public var role: String
    /// The groups it is limited to; nil for every button and sheet.
    public var groups: [String]?
    public var hash: [UInt8]
    public var createdAt: Int64
    public var lastUsedAt: Int64?
    public var expiresAt: Int64?

    public init(
        name: String, role: String, groups: [String]?, hash: [UInt8], createdAt: Int64, lastUsedAt: Int64? = nil,
        expiresAt: Int64? = nil
    ) {
        self.name = name
        self.role = role
        self.groups = groups
        self.hash = hash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }
}

/// Named tokens: made, listed and revoked by the admin; groups kept as one line each.
extension ButtonStore {
    public func loadTokens() throws(StoreError) -> [StoredToken] {
        try withConnection { connection throws(StoreError) in
            try connection.statement(
                "SELECT name, role, groups, hash, created_at, last_used_at, expires_at FROM tokens ORDER BY created_at, name"
            ).rows { row in
                StoredToken(
                    name: row.text(0), role: row.text(1),
                    groups: row.optionalText(2).map { $0.split(separator: "\n").map(String.init) }, hash: row.blob(3),
                    createdAt: row.int64(4), lastUsedAt: row.optionalInt64(5), expiresAt: row.optionalInt64(6))
            }
        }
    }

    /// Adds a token; false when one of that name exists.
    public func insertToken(_ token: StoredToken) throws(StoreError) -> Bool {
        try withConnection { connection throws(StoreError) in
            let insert = try connection.statement(
                """
                INSERT INTO tokens (name, role, groups, hash, created_at, last_used_at, expires_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (name) DO NOTHING
                """)
            insert.bind(token.name, at: 1)
            insert.bind(token.role, at: 2)
            insert.bind(token.groups?.joined(separator: "\n"), at: 3)
            insert.bind(token.hash, at: 4)
            insert.bind(token.createdAt, at: 5)
            insert.bind(token.lastUsedAt, at: 6)
            insert.bind(token.expiresAt, at: 7)
            try insert.run()
            return connection.changes > 0
        }
    }

    /// Removes a token; whether it existed.
    public func deleteToken(name: String) throws(StoreError) -> Bool {
        try withConnection { connection throws(StoreError) in
            let delete = try connection.statement("DELETE FROM tokens WHERE name = ?1")
            delete.bind(name, at: 1)
            try delete.run()
            return connection.changes > 0
        }
    }

    public func touchToken(name: String, at time: Int64) throws(StoreError) {
        try withConnection { connection throws(StoreError) in
            let update = try connection.statement("UPDATE tokens SET last_used_at = ?2 WHERE name = ?1")
            update.bind(name, at: 1)
            update.bind(time, at: 2)
            try update.run()
        }
    }
}
