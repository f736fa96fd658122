import ButtonEngine
import ButtonStore
import Buttons
import Foundation
import JSON

/// A registry on a store in a fresh temporary directory, with the buttons and sheets given
/// as the API's JSON; closed and removed by `close`.
final class RegistryFixture {
    let directory = NSTemporaryDirectory() + "bridges-tests-\(UUID().uuidString)"
    let store: ButtonStore
    let registry: Registry

    init(buttons: [String] = [], sheets: [String] = []) throws {
        store = try ButtonStore(directory: directory, clock: .system)
        registry = Registry(store: store, maxButtons: 100)
        for json in buttons { _ = try registry.createButton(try ButtonDefinition.create(from: parse(json), icons: [])) }
        for json in sheets { _ = try registry.createSheet(try SheetDefinition.create(from: parse(json))) }
    }

    func close() {
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

func parse(_ json: String) throws -> JSONValue { try JSONParser.parse(Array(json.utf8)) }

/// A command as text, so tests compare what the sequencer would be handed.
func describe(_ command: Command) -> String {
    func input(_ i: Input) -> String {
        var text = i.kind.rawValue
        if let t = i.t { text += " t=\(t)" }
        if let inside = i.inside { text += " inside=\(inside)" }
        if let pointer = i.pointer { text += " pointer=\(pointer)" }
        return text
    }
    switch command {
    case .input(let button, let i): return "input \(button) \(input(i))"
    case .press(let button, let down, let holdMs): return "press \(button) \(input(down)) hold=\(holdMs)"
    case .batch(let items): return "batch " + items.map { "\($0.button) \(input($0.input))" }.joined(separator: ", ")
    case .face(let button, let face): return "face \(button) \(face)"
    case .reset(let button): return "reset \(button)"
    case .disable(let button): return "disable \(button)"
    case .sheet(let id, let action, let t):
        let verb: String
        switch action {
        case .open: verb = "open"
        case .cancel: verb = "cancel"
        case .choose(let option): verb = "choose " + String(decoding: JSONWriter.encode(option), as: UTF8.self)
        }
        return "sheet \(id) \(verb)" + (t.map { " t=\($0)" } ?? "")
    }
}
