import COSC
import Platform

/// OSC packets to messages and back, by liblo (`lo_message_deserialise`,
/// `lo_message_serialise`). Bundles are unpacked here (their framing is a size before each
/// element); what liblo refuses, or a bundle that does not add up, is `nil`: never a crash.
public enum OSCCodec {
    /// Bundles nested deeper than this are refused.
    static let maxDepth = 8

    /// The messages of one packet (a message, or a bundle of them, in order); nil if malformed.
    public static func decode(_ bytes: [UInt8]) -> [OSCMessage]? {
        var messages: [OSCMessage] = []
        let ok = bytes.withUnsafeBufferPointer { decode($0, depth: 0, into: &messages) }
        return ok ? messages : nil
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, depth: Int, into messages: inout [OSCMessage]) -> Bool {
        let bundle: [UInt8] = Array("#bundle\0".utf8)
        guard bytes.count >= 4, bytes.count % 4 == 0 else { return false }
        if bytes.count >= 16, bytes.starts(with: bundle) {
            guard depth < maxDepth else { return false }
            var offset = 16  // "#bundle\0" and the time tag
            while offset < bytes.count {
                guard offset + 4 <= bytes.count else { return false }
                let size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                offset += 4
                guard size > 0, size <= bytes.count - offset else { return false }
                let element = UnsafeBufferPointer(rebasing: bytes[offset..<(offset + size)])
                guard decode(element, depth: depth + 1, into: &messages) else { return false }
                offset += size
            }
            return true
        }
        guard let message = message(bytes) else { return false }
        messages.append(message)
        return true
    }

    /// One message through liblo. The address is the first OSC string (liblo checked it).
    private static func message(_ bytes: UnsafeBufferPointer<UInt8>) -> OSCMessage? {
        guard let base = bytes.baseAddress, bytes.first == UInt8(ascii: "/") else { return nil }
        var result: Int32 = 0
        guard let lo = lo_message_deserialise(UnsafeMutableRawPointer(mutating: base), bytes.count, &result), result == 0 else {
            return nil
        }
        defer { lo_message_free(lo) }
        guard let end = bytes.firstIndex(of: 0) else { return nil }
        let address = String(decoding: bytes[..<end], as: UTF8.self)
        let count = Int(lo_message_get_argc(lo))
        guard count > 0 else { return OSCMessage(address) }
        guard let types = lo_message_get_types(lo), let argv = lo_message_get_argv(lo) else { return nil }
        var arguments: [OSCArgument] = []
        arguments.reserveCapacity(count)
        for index in 0..<count {
            let tag = UInt8(bitPattern: types[index])
            switch tag {
            case UInt8(ascii: "T"): arguments.append(.bool(true))
            case UInt8(ascii: "F"): arguments.append(.bool(false))
            case UInt8(ascii: "N"): arguments.append(.null)
            default:
                guard let arg = argv[index] else { return nil }  // types without data may have none
                arguments.append(argument(tag: tag, arg))
            }
        }
        return OSCMessage(address, arguments)
    }

    /// One argument, read at its own size: liblo allocates each argument only as large as its
    /// type (4 bytes for `i` and `f`), so reading the `lo_arg` union whole (`arg.pointee.i`
    /// loads all of it) read past the end; the fuzzer found it.
    private static func argument(tag: UInt8, _ arg: UnsafeMutablePointer<lo_arg>) -> OSCArgument {
        let raw = UnsafeRawPointer(arg)
        return switch tag {
        case UInt8(ascii: "i"): .int32(raw.loadUnaligned(as: Int32.self))
        case UInt8(ascii: "h"): .int64(raw.loadUnaligned(as: Int64.self))
        case UInt8(ascii: "f"): .float(raw.loadUnaligned(as: Float.self))
        case UInt8(ascii: "d"): .double(raw.loadUnaligned(as: Double.self))
        case UInt8(ascii: "s"), UInt8(ascii: "S"): .string(String(cString: raw.assumingMemoryBound(to: CChar.self)))
        default: .unsupported(Character(Unicode.Scalar(tag)))
        }
    }

    /// A liblo message holding `message`'s arguments (unsupported ones are left out); the
    /// caller frees it with `lo_message_free`.
    static func loMessage(_ message: OSCMessage) -> lo_message? {
        guard let lo = lo_message_new() else { return nil }
        for argument in message.arguments {
            switch argument {
            case .int32(let v): _ = lo_message_add_int32(lo, v)
            case .int64(let v): _ = lo_message_add_int64(lo, v)
            case .float(let v): _ = lo_message_add_float(lo, v)
            case .double(let v): _ = lo_message_add_double(lo, v)
            case .string(let v): _ = lo_message_add_string(lo, v)
            case .bool(let v): _ = v ? lo_message_add_true(lo) : lo_message_add_false(lo)
            case .null: _ = lo_message_add_nil(lo)
            case .unsupported: continue
            }
        }
        return lo
    }

    /// The packet of one message.
    public static func encode(_ message: OSCMessage) -> [UInt8] {
        guard let lo = loMessage(message) else { return [] }
        defer { lo_message_free(lo) }
        var size = 0
        guard let data = lo_message_serialise(lo, message.address, nil, &size) else { return [] }
        defer { free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }
}
