import Foundation
import Testing

/// Names that tell the truth: no type is named like a target other than its own (`Handler.OSC`
/// hid the `OSC` module from every file that saw it), and a conformance of one target's type
/// to another's protocol sits in a file named for it (`Type+Protocol.swift`), not in a file
/// about something else.
extension ArchitectureTests {
    /// The types a Swift file declares (nested ones too), outside comments.
    static func declaredTypes(_ text: String) -> [String] {
        // `import struct Platform.Clock` names a type of another module: it declares none.
        codeLines(text, matching: #"\b(struct|class|enum|protocol|actor|typealias)\s+[A-Z]"#).filter { !$0.contains("import ") }.compactMap { line in
            line.firstMatch(of: #/\b(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9]*)/#).map { String($0.1) }
        }
    }

    @Test func noTypeIsNamedLikeAnotherTarget() throws {
        let targets = Set(Self.packageTargets(try Self.read("Package.swift")).map(\.name))
        try #require(targets.contains("OSC") && targets.contains("ButtonStore"))
        var found: [String] = []
        for file in try Self.sources() {
            let own = file.path.split(separator: "/").dropFirst().first.map(String.init) ?? ""
            for name in Self.declaredTypes(file.text) where targets.contains(name) && name != own {
                found.append("\(file.path): \(name)")
            }
        }
        #expect(found.isEmpty, "types named like another target (they hide its module): \(found)")
        // The check reads nested declarations, and only code.
        #expect(Self.declaredTypes("struct Handler {\n    enum OSC {}\n}\n// class JSON\n@_exported import struct Platform.Clock") == ["Handler", "OSC"])
    }

    /// The lines of a file that declare `extension A: P` where the file is neither A's
    /// (`A.swift`, `A+….swift`) nor P's (`…+P.swift`, or the one declaring `protocol P`).
    static func hiddenConformances(path: String, text: String) -> [String] {
        let name = String(path.split(separator: "/").last ?? "").replacingOccurrences(of: ".swift", with: "")
        var found: [String] = []
        for line in codeLines(text, matching: #"^(public |package )?extension [A-Za-z.]+\s*:"#) {
            guard let match = line.firstMatch(of: #/extension ([A-Za-z.]+)\s*:\s*([A-Za-z., &]+)/#) else { continue }
            let type = String(match.1.split(separator: ".").last ?? "")
            let protocols = match.2.split(whereSeparator: { ", &".contains($0) }).map(String.init)
            let home = name == type || name.hasPrefix(type + "+") || protocols.contains { name == $0 || name.hasSuffix("+" + $0) }
            let declaresProtocol = protocols.contains { text.contains("protocol \($0)") }
            if !home && !declaresProtocol { found.append("\(path): \(line.trimmingCharacters(in: .whitespaces))") }
        }
        return found
    }

    @Test func conformancesAreInFilesNamedForThem() throws {
        let found = try Self.sources().flatMap { Self.hiddenConformances(path: $0.path, text: $0.text) }
        #expect(found.isEmpty, "conformances in a file named for something else: \(found)")
        // What ButtonsError+HTTP.swift held, and the homes the check accepts.
        #expect(Self.hiddenConformances(path: "S/B/ButtonsError+HTTP.swift", text: "extension Dispatcher: DeliveryQueue {}").count == 1)
        #expect(Self.hiddenConformances(path: "S/B/Dispatcher+DeliveryQueue.swift", text: "extension Dispatcher: DeliveryQueue {}").isEmpty)
        #expect(Self.hiddenConformances(path: "S/B/Slots.swift", text: "protocol Slot {}\nextension A: Slot {}").isEmpty)
        #expect(Self.hiddenConformances(path: "S/B/JSONValue.swift", text: "extension JSONValue: Equatable {}").isEmpty)
    }
}
