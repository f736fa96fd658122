/// The versioned schema: migration N brings `PRAGMA user_version` from N-1 to N.
///
/// Migrations are append-only; a shipped one is never edited, only followed by another.
enum Schema {
    static let migrations: [String] = [
        // 1: every table of the first release.
        """
        CREATE TABLE buttons (
            id TEXT PRIMARY KEY NOT NULL,
            position INTEGER NOT NULL,
            config TEXT NOT NULL,
            face INTEGER NOT NULL DEFAULT 0,
            clock INTEGER,
            held INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE sheets (
            id TEXT PRIMARY KEY NOT NULL,
            position INTEGER NOT NULL,
            config TEXT NOT NULL
        );
        CREATE TABLE handlers (
            id TEXT PRIMARY KEY NOT NULL,
            owner TEXT NOT NULL,
            position INTEGER NOT NULL,
            config TEXT NOT NULL,
            secret TEXT,
            enabled INTEGER NOT NULL DEFAULT 1
        );
        CREATE INDEX handlers_owner ON handlers (owner, position);
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            type TEXT NOT NULL,
            button TEXT,
            sheet TEXT,
            t INTEGER NOT NULL,
            json BLOB NOT NULL
        );
        CREATE INDEX events_button ON events (button, seq) WHERE button IS NOT NULL;
        CREATE INDEX events_sheet ON events (sheet, seq) WHERE sheet IS NOT NULL;
        CREATE TABLE outbox (
            id TEXT PRIMARY KEY NOT NULL,
            handler TEXT NOT NULL,
            event_seq INTEGER NOT NULL,
            body BLOB NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
        CREATE INDEX outbox_handler ON outbox (handler, event_seq);
        CREATE TABLE attempts (
            delivery TEXT NOT NULL,
            number INTEGER NOT NULL,
            started_at INTEGER NOT NULL,
            duration_ms INTEGER NOT NULL,
            outcome TEXT NOT NULL,
            status_code INTEGER,
            exit_code INTEGER,
            output TEXT NOT NULL,
            PRIMARY KEY (delivery, number)
        ) WITHOUT ROWID;
        -- Small facts that must outlive the rows they describe, e.g. the highest trimmed seq.
        CREATE TABLE meta (
            key TEXT PRIMARY KEY NOT NULL,
            value INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // 2: each handler's next pending delivery without scanning the whole outbox.
        """
        CREATE INDEX outbox_pending_head ON outbox (handler, event_seq) WHERE status = 'pending';
        """,
        // 3: the taps of an unfinished tap series, so a restart can still end it with its n-tap.
        """
        ALTER TABLE buttons ADD COLUMN taps INTEGER NOT NULL DEFAULT 0;
        """,
        // 4: no per-button index on events. Keeping it cost every commit a scattered index
        // page per button pressed (a quarter of the input path's time); a filtered read
        // walks the log in seq order instead, bounded by the retention.
        """
        DROP INDEX events_button;
        """,
        // 5: live button state in a small table of its own. Every commit updates the state of
        // the buttons it touched; in `buttons` each update rewrote the row with its config,
        // and the pages of every button's config went to the log again and again.
        """
        CREATE TABLE button_states (
            id TEXT PRIMARY KEY NOT NULL,
            face INTEGER NOT NULL DEFAULT 0,
            clock INTEGER,
            held INTEGER NOT NULL DEFAULT 0,
            taps INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        INSERT INTO button_states (id, face, clock, held, taps) SELECT id, face, clock, held, taps FROM buttons;
        """,
    ]

    /// The schema version this build writes.
    static var currentVersion: Int { migrations.count }

    /// Brings the database up to `currentVersion`, one transaction per migration.
    static func migrate(_ connection: Connection) throws(StoreError) {
        for (index, sql) in migrations.enumerated() {
            try connection.transaction { () throws(StoreError) in
                // Read inside the write lock: another process may have migrated meanwhile.
                let version = try userVersion(connection)
                guard version <= currentVersion else {
                    throw StoreError(
                        "\(connection.path) has schema version \(version), newer than this buttond knows "
                            + "(\(currentVersion)); upgrade buttond or use another data directory")
                }
                guard version == index else { return }
                try connection.execute(sql, doing: "migrating the schema to version \(index + 1)")
                try connection.execute("PRAGMA user_version = \(index + 1)", doing: "recording the schema version")
            }
        }
    }

    static func userVersion(_ connection: Connection) throws(StoreError) -> Int {
        Int(try connection.statement("PRAGMA user_version").scalar() ?? 0)
    }
}
