/// Home Assistant tombstones: the discovery configs of a deleted button or sheet, by owner
/// (`button:<id>`, `sheet:<id>`), as one JSON document of topics and payloads.
extension ButtonStore {
    public func saveTombstone(owner: String, configs: [UInt8], at time: Int64) throws(StoreError) {
        try withConnection { connection throws(StoreError) in
            let upsert = try connection.statement(
                """
                INSERT INTO ha_tombstones (owner, configs, deleted_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (owner) DO UPDATE SET configs = ?2, deleted_at = ?3
                """)
            upsert.bind(owner, at: 1)
            upsert.bind(configs, at: 2)
            upsert.bind(time, at: 3)
            try upsert.run()
        }
    }

    /// The tombstones newer than `since`; older ones are dropped.
    public func tombstones(since: Int64) throws(StoreError) -> [(owner: String, configs: [UInt8])] {
        try withConnection { connection throws(StoreError) in
            let prune = try connection.statement("DELETE FROM ha_tombstones WHERE deleted_at < ?1")
            prune.bind(since, at: 1)
            try prune.run()
            return try connection.statement("SELECT owner, configs FROM ha_tombstones ORDER BY deleted_at").rows {
                (owner: $0.text(0), configs: $0.blob(1))
            }
        }
    }

    /// A button or sheet of that name exists again: its tombstone must not remove it.
    public func dropTombstone(owner: String) throws(StoreError) {
        try withConnection { connection throws(StoreError) in
            let delete = try connection.statement("DELETE FROM ha_tombstones WHERE owner = ?1")
            delete.bind(owner, at: 1)
            try delete.run()
        }
    }
}
