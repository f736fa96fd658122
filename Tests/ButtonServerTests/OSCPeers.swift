import Foundation
import TestSupport
import OSC
import Platform

// Real OSC peers for the live tests: liblo-tools' oscdump and oscsend, a SLIP receiver in
// the style of ETC Eos's TCP port 3037, and a UDP socket that listens for replies.

/// A port free for UDP and TCP right now, below the kernel's ephemeral range (32768–60999 on
/// Linux), so no client connection of another test can take it between here and the bind (a
/// port from `bind(0)` could be, and was, in a full parallel run).
func freeOSCPort() -> Int {
    func bindable(_ port: Int, _ type: Int32) -> Bool {
        let fd = socket(AF_INET, type, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, 16) } } == 0
    }
    while true {
        let port = Int.random(in: 20_000..<32_000)
        if bindable(port, Int32(SOCK_DGRAM.rawValue)) && bindable(port, Int32(SOCK_STREAM.rawValue)) { return port }
    }
}

/// `oscdump -L URL`: what it printed, one line per message without its time tag
/// (`/cue/a/start isf 0 "show" 1.500000`).
final class OSCDump: @unchecked Sendable {  // `process` and `path` are set once
    let process = Process()
    let path = NSTemporaryDirectory() + "oscdump-\(UUID().uuidString)"

    init(_ url: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/oscdump")
        process.arguments = ["-L", url]
        process.standardOutput = FileHandle(forWritingAtPath: path)
        try process.run()
        Thread.sleep(forTimeInterval: 0.3)  // it binds before it prints anything
    }

    var lines: [String] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { line in String(line.split(separator: " ", maxSplits: 1).last ?? "") }
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)  // oscdump waits out SIGTERM
        process.waitUntilExit()
    }
}

/// `oscsend 127.0.0.1 PORT ADDRESS TYPES VALUES…`.
func oscsend(_ port: Int, _ arguments: String...) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/oscsend")
    process.arguments = ["127.0.0.1", String(port)] + arguments
    try process.run()
    process.waitUntilExit()
}

/// A TCP receiver that reads SLIP-framed OSC (OSC 1.1), as Eos does on port 3037.
final class SLIPReceiver: @unchecked Sendable {  // `messages` only under `lock`
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var received: [OSCMessage] = []

    init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, 16) } }
        listen(fd, 8)
        var length = socklen_t(16)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var messages: [OSCMessage] { lock.withLock { received } }

    private func acceptLoop() {
        while true {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            Thread.detachNewThread { [self] in
                var decoder = SLIP.Decoder()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(connection, &buffer, buffer.count, 0)
                    guard count > 0 else { break }
                    for packet in decoder.feed(buffer[0..<count]) {
                        let decoded = OSCCodec.decode(packet) ?? [OSCMessage("/undecodable")]
                        lock.withLock { received += decoded }
                    }
                }
                close(connection)
            }
        }
    }

    func stop() { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
}

/// A UDP socket that sends packets and reads what comes back to it.
struct OSCReplySocket {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)

    init(timeout: Int = 2) {
        var value = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ packet: [UInt8], to port: Int) {
        var to = sockaddr_in()
        to.sin_family = sa_family_t(AF_INET)
        to.sin_port = UInt16(port).bigEndian
        to.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &to) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, packet, packet.count, 0, $0, 16) } }
    }

    func receive() -> [OSCMessage]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? OSCCodec.decode(Array(buffer[0..<count])) : nil
    }

    func close() { _ = Platform.close(fd) }
}
