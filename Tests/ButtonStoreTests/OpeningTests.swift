import ButtonStore
import Foundation
import TestSupport
import Testing

/// Opening a data directory: permissions, migrations, reopening, and the failures that must not crash.
@Suite struct OpeningTests {
    @Test func createsTheDirectory0700AndTheDatabase0600() throws {
        try withTemporaryDirectory { base in
            let directory = base + "/nested/data"
            let store = try ButtonStore(directory: directory, clock: .system)
            defer { store.close() }
            let files = FileManager.default
            let dirMode = try #require(files.attributesOfItem(atPath: directory)[.posixPermissions] as? Int)
            #expect(dirMode == 0o700)
            let fileMode = try #require(
                files.attributesOfItem(atPath: directory + "/" + ButtonStore.fileName)[.posixPermissions] as? Int)
            #expect(fileMode == 0o600)
            #expect(store.path == directory + "/buttond.sqlite3")
            // The WAL file inherits the database's mode.
            try store.upsertButton(id: "door", config: "{}")
            if let walMode = try? files.attributesOfItem(atPath: store.path + "-wal")[.posixPermissions] as? Int {
                #expect(walMode == 0o600)
            }
        }
    }

    @Test func tightensAnExistingDatabaseFileTo0600() throws {
        try withTemporaryDirectory { base in
            let path = base + "/" + ButtonStore.fileName
            #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
            let store = try ButtonStore(directory: base, clock: .system)
            store.close()
            let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
        }
    }

    @Test func setsTheSchemaVersion() throws {
        try withStore { store, _ throws in
            #expect(ButtonStore.schemaVersion == 20)
            #expect(try store.userVersion() == ButtonStore.schemaVersion)
        }
    }

    @Test func reopeningKeepsEverythingAndSeqContinues() throws {
        try withTemporaryDirectory { base in
            let first = try ButtonStore(directory: base, clock: .system)
            try first.upsertButton(id: "door", config: #"{"label":"Door"}"#)
            try first.upsertSheet(id: "s1", config: #"{"title":"T"}"#)
            try first.upsertHandler(storedHandler("h1", owner: "button:door", secret: "whsec_x"))
            try first.commit(
                events: [event(1), event(2)], states: [ButtonStateChange(id: "door", face: 1, clock: 77, held: true)],
                deliveries: [deliveryRow(1, eventSeq: 2)])
            first.close()

            let second = try ButtonStore(directory: base, clock: .system)
            defer { second.close() }
            #expect(
                try second.loadButtons() == [
                    StoredButton(id: "door", config: #"{"label":"Door"}"#, face: 1, clock: 77, held: true, position: 0)
                ])
            #expect(try second.loadSheets() == [StoredSheet(id: "s1", config: #"{"title":"T"}"#, position: 0)])
            #expect(try second.loadHandlers().map(\.secret) == ["whsec_x"])
            #expect(try second.lastSeq() == 2)
            #expect(try second.delivery(id: 1) == deliveryRow(1, eventSeq: 2))
            try second.commit(events: [event(3)], states: [], deliveries: [])
            #expect(try second.events(after: 0, limit: 10, button: nil).map(\.seq) == [1, 2, 3])
            #expect(try second.userVersion() == ButtonStore.schemaVersion)
        }
    }

    @Test func aCorruptDatabaseFileThrowsNamingThePath() throws {
        try withTemporaryDirectory { base in
            let path = base + "/" + ButtonStore.fileName
            let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            try garbage.write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: StoreError.self) { try ButtonStore(directory: base, clock: .system) }
            #expect(error?.description.contains(path) == true)
            #expect(error?.description.contains("not a usable SQLite database") == true)
        }
    }

    /// Damaged pages in the middle of a real database (not only a garbage header) refuse the
    /// open, pointing to `buttond check`, instead of starting and failing later on a read.
    @Test func damagedPagesRefuseTheOpenNamingButtondCheck() throws {
        try withTemporaryDirectory { base in
            let store = try ButtonStore(directory: base, clock: .system)
            for batch in 0..<20 {
                let events = (1...1000).map { event(Int64(batch * 1000 + $0), button: "b\($0 % 50)") }
                try store.commit(events: events, states: [], deliveries: [])
            }
            store.close()
            let path = base + "/" + ButtonStore.fileName
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the close copied the log into the file")
            #expect(overwriteMiddlePage(of: path) > 100)
            let error = #expect(throws: StoreError.self) { try ButtonStore(directory: base, clock: .system) }
            #expect(error?.description.contains("\(path) is damaged") == true, "\(error?.description ?? "")")
            #expect(error?.description.contains("`buttond check --data-dir \(base)`") == true)
            #expect((try? ButtonStore.check(directory: base)) != ["ok"])
        }
    }

    @Test func aShortGarbageFileThrowsToo() throws {
        try withTemporaryDirectory { base in
            let path = base + "/" + ButtonStore.fileName
            try Data("this is not sqlite".utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: StoreError.self) { try ButtonStore(directory: base, clock: .system) }
            #expect(error?.description.contains(path) == true)
        }
    }

    @Test func aDirectoryUnderARegularFileThrows() throws {
        try withTemporaryDirectory { base in
            let file = base + "/plain"
            #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
            let error = #expect(throws: StoreError.self) { try ButtonStore(directory: file + "/data", clock: .system) }
            #expect(error?.description.contains(file + "/data") == true)
            #expect(error?.description.contains("not a directory") == true)
        }
    }

    @Test func aRegularFileAsTheDirectoryThrows() throws {
        try withTemporaryDirectory { base in
            let file = base + "/plain"
            #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
            #expect(throws: StoreError.self) { try ButtonStore(directory: file, clock: .system) }
        }
    }

    @Test(.enabled(if: getuid() != 0, "root may write anywhere"))
    func aReadOnlyDirectoryThrows() throws {
        try withTemporaryDirectory { base in
            let directory = base + "/ro"
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o500])
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory) }
            let error = #expect(throws: StoreError.self) { try ButtonStore(directory: directory, clock: .system) }
            #expect(error?.description.contains(directory) == true)
        }
    }

    @Test func callsAfterCloseThrow() throws {
        try withStore { store, _ throws in
            store.close()
            store.close()
            #expect(throws: StoreError.self) { try store.loadButtons() }
        }
    }
}
