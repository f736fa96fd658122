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
        // 6: the delivery log, bounded and indexed. An integer, time-ordered key (the outbox's
        // text key was a fourth b-tree per delivery); the event's facts in typed columns; a
        // typed status, with `in_flight` kept in memory only; attempts keyed by that integer.
        // Old rows keep their order under new ids.
        """
        CREATE TABLE deliveries (
            id INTEGER PRIMARY KEY,
            handler TEXT NOT NULL,
            status INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            event_seq INTEGER NOT NULL,
            event_id TEXT NOT NULL,
            event_type TEXT NOT NULL,
            button TEXT,
            sheet TEXT,
            t INTEGER NOT NULL,
            face INTEGER,
            option TEXT,
            label TEXT,
            event BLOB NOT NULL,
            body BLOB
        );
        CREATE INDEX deliveries_handler ON deliveries (handler, id);
        CREATE INDEX deliveries_status ON deliveries (status, id);
        CREATE TABLE delivery_attempts (
            delivery INTEGER NOT NULL,
            number INTEGER NOT NULL,
            started_at INTEGER NOT NULL,
            duration_ms INTEGER NOT NULL,
            outcome TEXT NOT NULL,
            status_code INTEGER,
            exit_code INTEGER,
            output TEXT NOT NULL,
            PRIMARY KEY (delivery, number)
        ) WITHOUT ROWID;
        CREATE TEMP TABLE renumbered AS
            SELECT id AS old, (SELECT COALESCE(MIN(created_at), 0) FROM outbox) * 1000
                + ROW_NUMBER() OVER (ORDER BY created_at, id) AS new FROM outbox;
        INSERT INTO deliveries (id, handler, status, attempts, next_attempt_at, created_at, event_seq, event_id,
            event_type, button, sheet, t, face, option, event)
        SELECT r.new, o.handler,
            CASE o.status WHEN 'ok' THEN 1 WHEN 'failed' THEN 2 WHEN 'expired' THEN 3 ELSE 0 END,
            o.attempts, o.next_attempt_at, o.created_at, o.event_seq,
            COALESCE(json_extract(CAST(o.body AS TEXT), '$.id'), ''), COALESCE(json_extract(CAST(o.body AS TEXT), '$.type'), ''),
            json_extract(CAST(o.body AS TEXT), '$.button'), json_extract(CAST(o.body AS TEXT), '$.sheet'),
            COALESCE(json_extract(CAST(o.body AS TEXT), '$.t'), o.created_at), json_extract(CAST(o.body AS TEXT), '$.data.face'),
            json_extract(CAST(o.body AS TEXT), '$.data.option'), o.body
        FROM outbox o JOIN renumbered r ON r.old = o.id;
        INSERT INTO delivery_attempts SELECT r.new, a.number, a.started_at, a.duration_ms, a.outcome, a.status_code,
            a.exit_code, a.output FROM attempts a JOIN renumbered r ON r.old = a.delivery;
        DROP TABLE renumbered;
        DROP TABLE outbox;
        DROP TABLE attempts;
        """,
        // 7: handlers in typed columns instead of the API's JSON (read once, not validated
        // again on every start). Headers, a body template and script arguments stay JSON.
        """
        CREATE TABLE handlers_typed (
            id TEXT PRIMARY KEY NOT NULL,
            owner TEXT NOT NULL,
            position INTEGER NOT NULL,
            on_events TEXT NOT NULL,
            option TEXT,
            enabled INTEGER NOT NULL DEFAULT 1,
            ordered INTEGER NOT NULL DEFAULT 1,
            kind TEXT NOT NULL,
            url TEXT,
            method TEXT,
            headers TEXT,
            body TEXT,
            name TEXT,
            args TEXT,
            timeout_ms INTEGER NOT NULL,
            max_attempts INTEGER NOT NULL,
            expire_after_ms INTEGER,
            secret TEXT
        );
        INSERT INTO handlers_typed
        SELECT id, owner, position,
            COALESCE((SELECT group_concat(value, ' ') FROM json_each(config, '$.on')), ''),
            json_extract(config, '$.option'), enabled, COALESCE(json_extract(config, '$.ordered'), 1),
            CASE WHEN json_type(config, '$.webhook') = 'object' THEN 'webhook' ELSE 'script' END,
            json_extract(config, '$.webhook.url'), COALESCE(json_extract(config, '$.webhook.method'), 'POST'),
            config -> '$.webhook.headers', config -> '$.webhook.body',
            json_extract(config, '$.script.name'), config -> '$.script.args',
            COALESCE(json_extract(config, '$.webhook.timeoutMs'), json_extract(config, '$.script.timeoutMs'), 10000),
            COALESCE(json_extract(config, '$.webhook.maxAttempts'), json_extract(config, '$.script.maxAttempts'),
                CASE WHEN json_type(config, '$.webhook') = 'object' THEN 7 ELSE 1 END),
            COALESCE(json_extract(config, '$.webhook.expireAfterMs'), json_extract(config, '$.script.expireAfterMs')),
            secret
        FROM handlers;
        DROP TABLE handlers;
        ALTER TABLE handlers_typed RENAME TO handlers;
        CREATE INDEX handlers_owner ON handlers (owner, position);
        """,
        // 8: the position of a new button or sheet (MAX(position)) without reading them all:
        // creates and PATCHes slowed down as the registry grew.
        """
        CREATE INDEX buttons_position ON buttons (position);
        CREATE INDEX sheets_position ON sheets (position);
        """,
        // 9: a delivery as the log shows it, with how its last attempt ended: one join on the
        // attempts' key (the row's `attempts` is its last attempt's number), written once.
        """
        CREATE VIEW delivery_rows AS
        SELECT d.id, d.handler, d.status, d.attempts, d.next_attempt_at, d.created_at, d.event_seq, d.event_id,
            d.event_type, d.button, d.sheet, d.t, d.face, d.option, d.label, d.event, d.body,
            a.outcome, a.status_code, a.exit_code
        FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery = d.id AND a.number = d.attempts;
        """,
        // 10: a filtered history read (`?button=` or `?sheet=`, and the stream's replay) seeks
        // one index instead of walking the whole log: eight clients reading a quiet button's
        // page over 95 k events held every core and raised press p99 to hundreds of ms
        // (version 4 dropped the button index to save commits that cost). One index on the
        // event's source serves buttons and sheets (an event has one or the other), so the
        // sheets' index goes; within one source it is in seq order, so a page is a range.
        """
        DROP INDEX events_sheet;
        CREATE INDEX events_source ON events (COALESCE(button, sheet));
        """,
        // 11: the chosen option's and the new face's labels, for `{option_label}` and
        // `{face_label}` in a webhook's URL and headers (filled in at each attempt).
        """
        ALTER TABLE deliveries ADD COLUMN option_label TEXT;
        ALTER TABLE deliveries ADD COLUMN face_label TEXT;
        DROP VIEW delivery_rows;
        CREATE VIEW delivery_rows AS
        SELECT d.id, d.handler, d.status, d.attempts, d.next_attempt_at, d.created_at, d.event_seq, d.event_id,
            d.event_type, d.button, d.sheet, d.t, d.face, d.option, d.label, d.event, d.body,
            a.outcome, a.status_code, a.exit_code, d.option_label, d.face_label
        FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery = d.id AND a.number = d.attempts;
        """,
        // 12: named, scoped tokens (SPEC §6): the SHA-256 of each, never the token itself.
        """
        CREATE TABLE tokens (
            name TEXT PRIMARY KEY NOT NULL,
            role TEXT NOT NULL,
            groups TEXT,
            hash BLOB NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            last_used_at INTEGER,
            expires_at INTEGER
        );
        """,
        // 13: what Home Assistant was told of each deleted button and sheet (its discovery
        // configs), kept 30 days: replayed then cleared when Home Assistant comes back, so a
        // device deleted while it was away does not stay as an orphan (SPEC §9).
        """
        CREATE TABLE ha_tombstones (
            owner TEXT PRIMARY KEY NOT NULL,
            configs BLOB NOT NULL,
            deleted_at INTEGER NOT NULL
        );
        """,
        // 14: the per-source index leaves the hot commit. Kept on `events` (version 10), every
        // commit dirtied one of its leaf pages per source it touched: a third of press
        // throughput. `event_sources` holds (source, seq) for every event up to
        // `meta.sources_through`, written in bulk every `retention / 10` (at most 1000) events,
        // so a leaf page is dirtied once per bulk write; a read seeks it up to that seq and walks
        // only the log's tail after it (fewer than 1000 events).
        """
        CREATE TABLE event_sources (
            source TEXT NOT NULL,
            seq INTEGER NOT NULL,
            PRIMARY KEY (source, seq)
        ) WITHOUT ROWID;
        INSERT INTO event_sources (source, seq)
            SELECT COALESCE(button, sheet), seq FROM events WHERE COALESCE(button, sheet) IS NOT NULL;
        INSERT INTO meta (key, value) VALUES ('sources_through', (SELECT COALESCE(MAX(seq), 0) FROM events))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value;
        DROP INDEX events_source;
        """,
        // 15: compact event rows. A row kept its event's JSON (~200 bytes) with its id, type and
        // t repeated in columns; now it keeps what the event is, once: type, source, t, the data
        // object's JSON (NULL when empty), the sender; no id where the sequencer's run prefix
        // (`event_runs`) and the seq give it, no `at` (rendered from t). `EventJSON` renders the
        // JSON on read. Old rows are copied with their JSON, then `compactEvents` drops the JSON
        // of every one that `EventJSON` renders byte for byte from its parts.
        """
        CREATE TABLE event_runs (
            first_seq INTEGER PRIMARY KEY,
            prefix TEXT NOT NULL
        );
        CREATE TABLE events_compact (
            seq INTEGER PRIMARY KEY,
            type TEXT NOT NULL,
            button TEXT,
            sheet TEXT,
            t INTEGER NOT NULL,
            data BLOB,
            by TEXT,
            id TEXT,
            json BLOB
        );
        INSERT INTO events_compact (seq, type, button, sheet, t, id, json)
            SELECT seq, type, button, sheet, t, id, json FROM events;
        DROP TABLE events;
        ALTER TABLE events_compact RENAME TO events;
        """,
        // 16: an entry of the source index is a run of one source's consecutive events: `seq`
        // its last, `first` its first (NULL: the run is the one event `seq`). A press's events
        // are consecutive, so a bulk write inserts (and retention deletes) a row a press, not a
        // row an event: the index was a third of the commit path's SQLite work. Old entries are
        // runs of one event.
        """
        ALTER TABLE event_sources ADD COLUMN first INTEGER;
        """,
        // 17: the end of a confirm button's armed window (SPEC §4 "Guards"), so a restart
        // keeps the window and closes it on time.
        """
        ALTER TABLE button_states ADD COLUMN armed_until INTEGER;
        """,
        // 18: the per-handler index of the delivery log leaves the hot commit, as the source
        // index did (version 14). `deliveries_handler` took a delivery's entry at its handler's
        // place, so a commit dirtied one index page per handler it delivered to: a third of
        // press + webhook throughput with a handler a button. `delivery_handlers` holds
        // (handler, id) of every delivery through `meta.handlers_through`, written in bulk with
        // the source index; a read seeks it up to that id and walks the log's tail after it.
        """
        CREATE TABLE delivery_handlers (
            handler TEXT NOT NULL,
            id INTEGER NOT NULL,
            PRIMARY KEY (handler, id)
        ) WITHOUT ROWID;
        INSERT INTO delivery_handlers (handler, id) SELECT handler, id FROM deliveries;
        INSERT INTO meta (key, value) VALUES ('handlers_through', (SELECT COALESCE(MAX(id), 0) FROM deliveries))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value;
        DROP INDEX deliveries_handler;
        """,
        // 19: an entry of the handler index is a run of one handler's deliveries, as the source
        // index's are (version 16): `id` its last, `first` its first (NULL: the run is the one
        // delivery `id`), with fewer than `IndexRuns.maxGap` deliveries to others between two
        // of its own. A bulk write of a thousand deliveries to 64 handlers inserted a thousand
        // entries, one at each handler's place, and retention deleted as many: now about one a
        // handler. Old entries are runs of one delivery; those after the extent (a handler
        // test's delivery indexed itself there) go, since the next bulk write makes the runs
        // that span them and a run must not meet another of its handler.
        """
        ALTER TABLE delivery_handlers ADD COLUMN first INTEGER;
        DELETE FROM delivery_handlers WHERE id > COALESCE((SELECT value FROM meta WHERE key = 'handlers_through'), 0);
        """,
        // 20: only pending deliveries and those that ended badly are indexed by status.
        // `deliveries_status` (status, id) moved every delivery's entry when it finished, from
        // the pending rows' end to the finished rows' end: two index pages in every commit of
        // attempts, a fifth of the pages press + webhook wrote. A delivery that went well
        // drops its entry and takes none; rows `ok` (most of the log) are read by walking the
        // log by id, as retention always did.
        """
        DROP INDEX deliveries_status;
        CREATE INDEX deliveries_pending ON deliveries (id) WHERE status = 0;
        CREATE INDEX deliveries_unsent ON deliveries (id) WHERE status > 1;
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
                try afterSQL(index + 1, connection)
                try connection.execute("PRAGMA user_version = \(index + 1)", doing: "recording the schema version")
            }
        }
    }

    static func userVersion(_ connection: Connection) throws(StoreError) -> Int {
        Int(try connection.statement("PRAGMA user_version").scalar() ?? 0)
    }
}
