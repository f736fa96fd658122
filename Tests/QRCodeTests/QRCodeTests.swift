import Foundation
import QRCode
import Testing

/// libqrencode's codes, proved by a real decoder: `zbarimg` (Debian's zbar-tools) reads each
/// back from the image the code makes.
@Suite struct QRCodeTests {
    /// What `zbarimg` reads in `code`, drawn as a PBM image.
    static func decoded(_ code: QRCode) throws -> String {
        let file = NSTemporaryDirectory() + "qr-\(UUID().uuidString).pbm"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(code.pbm()).write(to: URL(fileURLWithPath: file))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        process.arguments = ["--quiet", "--raw", "-Sbinary", file]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "zbarimg found no code")
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    @Test(arguments: [
        "http://192.168.1.20:8080/?kiosk#token=bdt_Zm9vYmFyYmF6cXV4cXV1eGZvb2JhcmJhenF1eHF1dXg",
        "https://stage.example/?kiosk&marks=on#token=bdt_" + String(repeating: "x", count: 43),
        "a", "Grüße, 舞台 🎛",
    ])
    func aCodeDecodesToItsText(_ text: String) throws {
        let code = try QRCode(text: text)
        #expect(code.size >= 21 && (code.size - 17) % 4 == 0, "a QR size: 17 + 4 × version")
        #expect(code.modules.count == code.size * code.size)
        #expect(try Self.decoded(code) == text)
    }

    @Test func theSVGDrawsEveryDarkModuleOnce() throws {
        let code = try QRCode(text: "http://127.0.0.1:8080/?kiosk#token=bdt_abc")
        let svg = code.svg()
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(code.size + 8) \(code.size + 8)\""))
        // Each run is "h<n>": the runs' lengths add up to the dark modules.
        var dark = 0
        for part in svg.split(separator: "h").dropFirst() {
            let digits = part.prefix { $0.isNumber }
            if let n = Int(digits) { dark += n }
        }
        #expect(dark == code.modules.filter { $0 }.count)
    }

    @Test func emptyAndTooLongTextsAreRefused() {
        #expect(throws: QRCode.Failure.empty) { try QRCode(text: "") }
        #expect(throws: QRCode.Failure.tooLong) { try QRCode(text: String(repeating: "z", count: 4000)) }
    }
}
