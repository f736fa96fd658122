@testable import ButtonStore

/// Makes, in `base`, the database an older buttond left: the first `version` migrations, then
/// `filling` (which sets `user_version` itself if the test wants it read back), closed so
/// that opening a `ButtonStore` on `base` upgrades it.
func makeOldDatabase(in base: String, version: Int, filling sql: String) throws {
    let old = try Connection(path: base + "/" + ButtonStore.fileName)
    defer { old.close() }
    for migration in Schema.migrations.prefix(version) { try old.execute(migration, doing: "an old schema") }
    try old.execute("PRAGMA user_version = \(version);\n" + sql, doing: "filling it")
}
