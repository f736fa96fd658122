import CQREncode
import Platform

/// A QR code made by libqrencode (Debian's `libqrencode`, not a hand-written encoder): its
/// modules, and the SVG the panel draws (a kiosk link a tablet's camera can read). Knows
/// nothing of buttons.
public struct QRCode: Sendable, Equatable {
    /// Modules per side (21 for version 1, 4 more per version).
    public let size: Int
    /// Row by row, `true` for a dark module.
    public let modules: [Bool]

    /// Why a text has no QR code.
    public enum Failure: Error, Equatable {
        case empty
        /// Longer than the largest QR code holds at the chosen level.
        case tooLong
        case encoder(Int32)
    }

    /// The smallest code of error-correction level M that holds `text` (UTF-8, as 8-bit data).
    public init(text: String) throws(Failure) {
        guard !text.isEmpty else { throw .empty }
        errno = 0
        let made = text.withCString { QRcode_encodeString($0, 0, QR_ECLEVEL_M, QR_MODE_8, 1) }
        guard let made else { throw errno == ERANGE ? .tooLong : .encoder(errno) }
        defer { QRcode_free(made) }
        let width = Int(made.pointee.width)
        size = width
        modules = (0..<width * width).map { made.pointee.data[$0] & 1 == 1 }
    }

    /// Whether the module at column `x`, row `y` is dark.
    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// The code as SVG: black modules on white with a quiet zone of `border` modules, one
    /// path of a run per row, crisp edges at any size.
    public func svg(border: Int = 4) -> String {
        let side = size + 2 * border
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < size, isDark(x: x, y: y) { x += 1 }
                path += "M\(start + border) \(y + border)h\(x - start)v1h-\(x - start)z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }

    /// The code as a binary PBM (P4) image, `scale` pixels a module, with the quiet zone: what
    /// a decoder that reads images (`zbarimg`) is given in the tests.
    public func pbm(scale: Int = 4, border: Int = 4) -> [UInt8] {
        let side = (size + 2 * border) * scale
        var bytes = Array("P4\n\(side) \(side)\n".utf8)
        let rowBytes = (side + 7) / 8
        for py in 0..<side {
            var row = [UInt8](repeating: 0, count: rowBytes)
            let y = py / scale - border
            for px in 0..<side {
                let x = px / scale - border
                if x >= 0, y >= 0, x < size, y < size, isDark(x: x, y: y) { row[px / 8] |= 0x80 >> UInt8(px % 8) }
            }
            bytes += row
        }
        return bytes
    }
}
