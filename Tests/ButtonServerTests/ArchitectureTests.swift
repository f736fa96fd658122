import Foundation
import Testing
import TestSupport

/// docs/ARCHITECTURE.md's targets table, held to Package.swift: every target has its row, and
/// each row's imports column is that target's dependencies (less `Platform`), so a dependency
/// added or dropped in one place and not the other fails here, naming the target.
@Suite struct ArchitectureTests {
    struct PackageTarget {
        var kind: String
        var name: String
        var dependencies: [String]
        var path: String?
    }

    struct Row {
        var name: String
        /// Targets the row names as imports, and whether it says "all of the above".
        var imports: [String]
        var allAbove: Bool
        /// Targets named after "not".
        var forbidden: [String]
    }

    static func read(_ relative: String) throws -> String {
        try String(contentsOfFile: ServerProcess.repositoryRoot + "/" + relative, encoding: .utf8)
    }

    /// Each `.target(…)`, `.testTarget(…)`, `.executableTarget(…)`, `.systemLibrary(…)` and
    /// `.plugin(…)` of the manifest: its name, dependencies (the string ones) and path.
    static func packageTargets(_ manifest: String) -> [PackageTarget] {
        var targets: [PackageTarget] = []
        for match in manifest.matches(of: #/\.(target|testTarget|executableTarget|systemLibrary|plugin)\(/#) {
            // The call's text: up to its closing parenthesis.
            var depth = 1
            var end = match.range.upperBound
            while end < manifest.endIndex && depth > 0 {
                if manifest[end] == "(" { depth += 1 } else if manifest[end] == ")" { depth -= 1 }
                end = manifest.index(after: end)
            }
            let call = manifest[match.range.upperBound..<end]
            guard let name = call.firstMatch(of: #/name:\s*"([^"]+)"/#)?.1 else { continue }
            let list = call.firstMatch(of: #/dependencies:\s*\[([^\]]*)\]/#)?.1 ?? ""
            let dependencies = list.matches(of: #/"([^"]+)"/#).map { String($0.1) }
            let path = call.firstMatch(of: #/path:\s*"([^"]+)"/#).map { String($0.1) }
            targets.append(PackageTarget(kind: String(match.1), name: String(name), dependencies: dependencies, path: path))
        }
        return targets
    }

    /// The rows of the table under "## Targets and what each may import".
    static func rows(_ document: String) -> [Row] {
        guard let start = document.range(of: "## Targets and what each may import") else { return [] }
        var rows: [Row] = []
        for line in document[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, let name = cells[1].firstMatch(of: #/`([^`]+)`/#)?.1 else { continue }
            // Parentheses are remarks (`check` opens the store): no import is named in them.
            let column = cells[cells.count - 2].replacing(#/\([^)]*\)/#, with: "")
            let parts = column.split(separator: "; not ", maxSplits: 1)
            let names = { (text: Substring?) in (text ?? "").matches(of: #/`([A-Za-z][A-Za-z0-9-]*)`/#).map { String($0.1) } }
            rows.append(Row(
                name: String(name), imports: names(parts.first), allAbove: column.contains("all of the above"),
                forbidden: names(parts.count > 1 ? parts[1] : nil)))
        }
        return rows
    }

    @Test func theTargetsTableIsPackageSwiftsTargets() throws {
        let targets = Self.packageTargets(try Self.read("Package.swift"))
        let rows = Self.rows(try Self.read("docs/ARCHITECTURE.md"))
        try #require(targets.count > 10, "Package.swift read as \(targets.count) targets")
        try #require(rows.count > 10, "docs/ARCHITECTURE.md's table read as \(rows.count) rows")
        let byName = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
        let documented = Set(rows.map(\.name))
        // Every target has a row, but the C modules, the plugin and the tools the text names.
        for target in targets where target.kind != "systemLibrary" && target.kind != "plugin" {
            let isC = target.name.first == "C" && target.name.dropFirst().first?.isUppercase == true
            let isTool = target.path.map { $0.hasPrefix("Tools/") || $0.hasPrefix("bench/") } ?? false
            if isC || isTool { continue }
            #expect(documented.contains(target.name), "target \(target.name) has no row in docs/ARCHITECTURE.md's targets table")
        }
        var above: Set<String> = []
        for row in rows {
            guard let target = byName[row.name] else {
                Issue.record("docs/ARCHITECTURE.md has a row for \(row.name), which Package.swift does not have")
                continue
            }
            let dependencies = Set(target.dependencies).subtracting(["Platform"])
            for dependency in dependencies.sorted() where !row.imports.contains(dependency) && !(row.allAbove && above.contains(dependency)) {
                Issue.record("\(row.name) depends on \(dependency) in Package.swift; docs/ARCHITECTURE.md's imports column does not name it")
            }
            for named in row.imports where !dependencies.contains(named) {
                Issue.record("docs/ARCHITECTURE.md says \(row.name) imports \(named); Package.swift does not give it that dependency")
            }
            for refused in row.forbidden where dependencies.contains(refused) {
                Issue.record("\(row.name) depends on \(refused) in Package.swift; docs/ARCHITECTURE.md says it must not")
            }
            above.insert(row.name)
        }
    }

    /// The parsers themselves, on text whose answer is known: a check that reads nothing
    /// would pass whatever the files say.
    @Test func theParsersReadWhatTheyAreGiven() {
        let manifest = """
            .target(name: "A", dependencies: ["Platform", "B"], swiftSettings: strict),
            .testTarget(
                name: "ATests", dependencies: ["A", "CZ"], cSettings: [.define("X")]),
            .executableTarget(name: "tool", dependencies: ["A"], path: "Tools/tool"),
            """
        let targets = Self.packageTargets(manifest)
        #expect(targets.map(\.name) == ["A", "ATests", "tool"])
        #expect(targets.map(\.dependencies) == [["Platform", "B"], ["A", "CZ"], ["A"]])
        #expect(targets.map(\.path) == [nil, nil, "Tools/tool"])
        let document = """
            ## Targets and what each may import

            | target | job | imports |
            |---|---|---|
            | `A` | a job with `code` in it | `B` (it calls `x`), `C`; not `D`, `E` |
            | `F` (tests only) | another | all of the above |
            | `G` | none | — |

            ## Next
            | `H` | not read | `I` |
            """
        let rows = Self.rows(document)
        #expect(rows.map(\.name) == ["A", "F", "G"])
        #expect(rows.map(\.imports) == [["B", "C"], [], []])
        #expect(rows.map(\.forbidden) == [["D", "E"], [], []])
        #expect(rows.map(\.allAbove) == [false, true, false])
    }

    /// What makes a static mutable state that every server in the process would share: a
    /// stored `static var`, a `static let shared`, a `nonisolated(unsafe)` static, and a lock box
    /// held by a type (`static let x = Locked(…)`). A computed `static var x: T { … }` is fine.
    static let mutableStatic = [
        #"\bstatic\s+var\s+\w+\s*(:[^={]*)?(=|$)"#, #"\bstatic\s+let\s+shared\b"#,
        #"nonisolated\(unsafe\).*\bstatic\b"#, #"\bstatic\b.*nonisolated\(unsafe\)"#,
        #"\bstatic\s+let\s+\w+\s*(:[^=]*)?=\s*Locked\s*[<(]"#,
    ]

    /// Nothing process-wide (issue 42): what a server needs is made by the composition root
    /// and passed down, so two servers in one process share nothing (`TwoServersTests`).
    @Test func noMutableStatics() throws {
        let found = try Self.sources().flatMap { file in
            Self.mutableStatic.flatMap { pattern in Self.codeLines(file.text, matching: pattern).map { "\(file.path): \($0)" } }
        }
        #expect(found.isEmpty, "mutable statics in the sources: \(found)")
        // The patterns catch each kind, and pass what is not state.
        for caught in [
            "static var count = 0", "    private static var cache: [String: Int] = [:]", "public static let shared = Pool()",
            "nonisolated(unsafe) static let buffer = malloc(8)", "package static let names = Locked<Set<String>>([])",
            "static var pending: [Int]",
        ] {
            #expect(Self.mutableStatic.contains { !Self.codeLines(caught, matching: $0).isEmpty }, "not caught: \(caught)")
        }
        for passed in [
            "static var help: String {", "@inlinable package static var width: Int { 24 }", "static let maxBatch = 1000",
            "static var kind: String { get }", "// static var count = 0",
        ] {
            #expect(!Self.mutableStatic.contains { !Self.codeLines(passed, matching: $0).isEmpty }, "caught: \(passed)")
        }
    }

    /// `Sources/ButtonServer/` (the HTTP API and the wiring) stays under 2 000 lines: a job that
    /// grows there belongs in a target of its own (issue 42).
    @Test func buttonServerStaysUnder2000Lines() throws {
        let files = try Self.sources().filter { $0.path.hasPrefix("Sources/ButtonServer/") }
        let lines = files.reduce(0) { $0 + $1.text.utf8.filter { $0 == UInt8(ascii: "\n") }.count }
        try #require(files.count > 5, "Sources/ButtonServer read as \(files.count) files")
        #expect(lines < 2000, "Sources/ButtonServer/ has \(lines) lines")
    }

    /// Every Swift file under Sources/, with its path from the repository root.
    static func sources() throws -> [(path: String, text: String)] {
        let root = ServerProcess.repositoryRoot
        let paths = FileManager.default.enumerator(atPath: root + "/Sources")?.compactMap { $0 as? String } ?? []
        return try paths.filter { $0.hasSuffix(".swift") }.sorted().map { ("Sources/" + $0, try read("Sources/" + $0)) }
    }

    /// The lines of `text` outside comments that match `pattern`.
    static func codeLines(_ text: String, matching pattern: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return code.range(of: pattern, options: .regularExpression) != nil
        }
    }

    /// One lock type (ThreadSupport's `Locked`, see its doc comment for why): no
    /// Synchronization `Mutex` in the sources.
    @Test func oneLockType() throws {
        let found = try Self.sources().flatMap { file in
            Self.codeLines(file.text, matching: #"\bMutex\s*[<(]"#).map { "\(file.path): \($0)" }
        }
        #expect(found.isEmpty, "Mutex in the sources: \(found)")
        #expect(!Self.codeLines("let a = Mutex<Int>(0)", matching: #"\bMutex\s*[<(]"#).isEmpty)
    }

    /// Time comes from Platform (the OS clocks) and what is handed down from it: no
    /// Foundation `Date()` read anywhere in the sources.
    @Test func noDateReadsInTheSources() throws {
        let found = try Self.sources().flatMap { file in
            Self.codeLines(file.text, matching: #"\bDate\(\)"#).map { "\(file.path): \($0)" }
        }
        #expect(found.isEmpty, "Date() in the sources: \(found)")
    }

    /// One clock, handed down: Platform's `Clock` reads the OS (`Clock.system`), and only the
    /// composition roots name it (`main.swift`, which gives it to the server and the CLI's
    /// commands; `ButtonServerApp` and its parts, the CLI's entry point); every other part
    /// reads the time from the clock it was given, so a test can hand it one it moves. The
    /// OS clocks' old names (`SystemClock`) are gone.
    @Test func theOSClockIsNamedOnlyByTheCompositionRoots() throws {
        let roots: Set<String> = [
            "Sources/buttond/main.swift", "Sources/ButtonServer/ButtonServerApp.swift",
            "Sources/ButtonServer/ButtonServerApp+Parts.swift", "Sources/ButtondCLI/ClientCommand.swift",
        ]
        let pattern = #"\bSystemClock\b|\bClock\s*\.\s*system\b|(^|[^\w.)\]?!])\.system\b"#
        let found = try Self.sources().filter { !$0.path.hasPrefix("Sources/Platform/") && !roots.contains($0.path) }.flatMap { file in
            Self.codeLines(file.text, matching: pattern).map { "\(file.path): \($0)" }
        }
        #expect(found.isEmpty, "the OS clock named outside Platform and the composition roots: \(found)")
        for line in ["let now = SystemClock.wallMilliseconds()", "Dispatcher(store: s, clock: .system)", "let c = Clock.system"] {
            #expect(!Self.codeLines(line, matching: pattern).isEmpty, "\(line)")
        }
        for line in ["let c = clock.now()", "let k = options.system", "// Clock.system in a comment"] {
            #expect(Self.codeLines(line, matching: pattern).isEmpty, "\(line)")
        }
        // Nor is the OS read past it: only Platform reads the clocks, and ThreadSupport's
        // condition variable its own (the deadline `pthread_cond_timedwait` takes).
        let reads = #"\bclock_gettime\b|\bgettimeofday\b|\bDispatchTime\s*\.\s*now\b|\b(Continuous|Suspending)Clock\b"#
        let read = try Self.sources().filter { !$0.path.hasPrefix("Sources/Platform/") && $0.path != "Sources/ThreadSupport/Condition.swift" }
            .flatMap { file in Self.codeLines(file.text, matching: reads).map { "\(file.path): \($0)" } }
        #expect(read.isEmpty, "an OS clock read outside Platform: \(read)")
        #expect(!Self.codeLines("let start = DispatchTime.now().uptimeNanoseconds", matching: reads).isEmpty)
    }
}

extension ArchitectureTests {
    /// ARCHITECTURE.md: `HandlerSenders` and the `Handlers` target are the only places that tell
    /// a handler's kinds apart; everything else asks the handler (`isSigned`, `kind`).
    @Test func onlyHandlersAndTheSendersTellTheKindsApart() throws {
        let pattern = #"case\s+\.(webhook|script|osc)\b"#
        let allowed = ["Sources/Handlers/", "Sources/Delivery/Actions.swift", "Sources/Delivery/HandlerSenders.swift"]
        let found = try Self.sources().filter { file in !allowed.contains { file.path.hasPrefix($0) } }.flatMap { file in
            Self.codeLines(file.text, matching: pattern).map { "\(file.path): \($0)" }
        }
        #expect(found.isEmpty, "switches on a handler's kind outside Handlers and HandlerSenders: \(found)")
        #expect(!Self.codeLines("            if secret == nil, case .webhook = handler.action {", matching: pattern).isEmpty)
        #expect(Self.codeLines("            if secret == nil, handler.action.isSigned {", matching: pattern).isEmpty)
    }

    /// ARCHITECTURE.md: the sequencer's decisions are a value, performed by one thread under
    /// one lock: `SequencerState` and `Inbox` hold no lock and start no thread.
    @Test func theSequencersDecisionsAreAValue() throws {
        let files = try Self.sources().filter { ["Sources/Buttons/SequencerState.swift", "Sources/Buttons/SequencerState+Commands.swift", "Sources/Buttons/Inbox.swift"].contains($0.path) }
        #expect(files.count == 3)
        for file in files {
            for pattern in [#"\b(Condition|Locked|startThread|pthread_)\b"#, #"\bclass\s"#, #"\bclock\."#] {
                #expect(Self.codeLines(file.text, matching: pattern).isEmpty, "\(file.path) matches \(pattern)")
            }
        }
        let sequencer = try #require(try Self.sources().first { $0.path == "Sources/Buttons/Sequencer.swift" })
        // One stored lock (an `exclusive` call waits on a condition of its own).
        #expect(Self.codeLines(sequencer.text, matching: #"^    (private )?let \w+ = (Condition|Locked)\b"#).count == 1, "the sequencer has one lock")
    }
}
