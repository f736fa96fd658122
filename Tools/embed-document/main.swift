import Platform

// embed-document INPUT OUTPUT NAME: writes a Swift file declaring `enum NAME` whose
// `static let json: String` is INPUT's text, as a raw string literal. Run by the
// EmbedDocument build plugin.

func fail(_ message: String) -> Never {
    let line = Array("embed-document: \(message)\n".utf8)
    _ = write(2, line, line.count)
    exit(1)
}

func read(_ path: String) -> String {
    guard let file = fopen(path, "rb") else { fail("cannot read \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n == 0 { break }
        bytes += chunk[..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("usage: embed-document INPUT OUTPUT NAME") }
var text = read(arguments[1])
if text.hasSuffix("\n") { text.removeLast() }
// Enough #s that nothing in the text ends the literal or interpolates.
var hashes = "#"
while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
let source = """
    // Generated at build time from \(arguments[1].split(separator: "/").suffix(2).joined(separator: "/")) by the EmbedDocument plugin: edit that file.

    enum \(arguments[3]) {
        static let json: String = \(hashes)\"\"\"
    \(text)
    \"\"\"\(hashes)
    }

    """
guard let out = fopen(arguments[2], "wb") else { fail("cannot write \(arguments[2])") }
let bytes = Array(source.utf8)
guard fwrite(bytes, 1, bytes.count, out) == bytes.count, fclose(out) == 0 else { fail("cannot write \(arguments[2])") }
