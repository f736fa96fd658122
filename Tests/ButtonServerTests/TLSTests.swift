import Foundation
import TestSupport
import MicroHTTP
import Testing
import CurlHTTP

@testable import ButtonServer

/// HTTPS without a proxy (SPEC §6): libmicrohttpd's own TLS, TLS 1.2 and later, and a clear
/// refusal to start for a wrong, missing, mismatched or locked key.
@Suite("HTTPS")
struct TLSTests {
    /// A fresh directory with a self-signed certificate for 127.0.0.1 (`cert.pem`, `key.pem`),
    /// one for another name (`other-cert.pem`, `other-key.pem`) and `key.pem` encrypted with
    /// "s3cret" (`locked-key.pem`), all made with the openssl command.
    static func certificates() throws -> String {
        let dir = NSTemporaryDirectory() + "buttond-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func openssl(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: dir)
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw HTTPClient.Failure(description: "openssl \(arguments) failed") }
        }
        try openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        try openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-key.pem", "-out", "other-cert.pem", "-days", "2",
            "-subj", "/CN=other",
        ])
        try openssl(["pkey", "-in", "key.pem", "-aes256", "-passout", "pass:s3cret", "-out", "locked-key.pem"])
        return dir
    }

    /// `curl ARGS`: exit code and output.
    static func curl(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-m", "10"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func servesHTTPSOnlyWithTLS12AndLater() throws {
        let dir = try Self.certificates()
        let server = try TestServer {
            $0.tlsCert = dir + "/cert.pem"
            $0.tlsKey = dir + "/key.pem"
        }
        let base = "https://127.0.0.1:\(server.app.port)"
        #expect(try Self.curl(["--cacert", dir + "/cert.pem", base + "/healthz"]) == (0, "ok"))
        let (created, body) = try Self.curl([
            "--cacert", dir + "/cert.pem", "-XPOST", base + "/api/v1/buttons", "-d", #"{"id": "door"}"#,
        ])
        #expect(created == 0 && body.contains(#""id":"door""#))
        // An old protocol, a client that does not trust the certificate, plain HTTP: refused.
        #expect(try Self.curl(["--cacert", dir + "/cert.pem", "--tlsv1.1", "--tls-max", "1.1", base + "/healthz"]).0 != 0)
        #expect(try Self.curl([base + "/healthz"]).0 != 0)
        #expect(try Self.curl(["http://127.0.0.1:\(server.app.port)/healthz"]).1 != "ok")
    }

    @Test func anEncryptedKeyWithItsPassword() throws {
        let dir = try Self.certificates()
        let server = try TestServer {
            $0.tlsCert = dir + "/cert.pem"
            $0.tlsKey = dir + "/locked-key.pem"
            $0.tlsKeyPassword = "s3cret"
        }
        #expect(try Self.curl(["--cacert", dir + "/cert.pem", "https://127.0.0.1:\(server.app.port)/healthz"]) == (0, "ok"))
    }

    @Test(arguments: [
        ("/cert.pem", "/other-key.pem", nil, "is not the key of the certificate"),
        ("/missing.pem", "/key.pem", nil, "cannot read --tls-cert"),
        ("/key.pem", "/key.pem", nil, "holds no PEM certificate"),
        ("/cert.pem", "/locked-key.pem", nil, "BUTTOND_TLS_KEY_PASSWORD"),
        ("/cert.pem", "/locked-key.pem", "wrong", "password is wrong"),
        ("/cert.pem", nil, nil, "go together"),
    ] as [(String, String?, String?, String)])
    func aBadCertificateOrKeyIsAClearStartError(cert: String, key: String?, password: String?, message: String) throws {
        let dir = try Self.certificates()
        var options = ServeOptions()
        options.port = 0
        options.http.port = 0
        options.dataDir = dir + "/data"
        options.tlsCert = dir + cert
        options.tlsKey = key.map { dir + $0 }
        options.tlsKeyPassword = password
        do {
            _ = try ButtonServerApp(options: options, clock: .system)
            Issue.record("started with \(cert) and \(key ?? "no key")")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
            if !message.contains("together") { #expect(error.description.contains(dir)) }  // names the file
        }
    }

    /// An encrypted key without its password, started from a terminal: OpenSSL's default was
    /// to ask for the pass phrase on the terminal, so the server hung at start (and a SIGHUP
    /// reload hung for good). Now it is the same clear exit 1, and nothing is asked.
    @Test func anEncryptedKeyWithoutItsPasswordIsNeverAskedForOnATerminal() throws {
        let dir = try Self.certificates()
        let command = [
            "timeout", "-s", "KILL", "10", ServerProcess.binary, "serve", "--port", "0", "--data-dir", dir + "/tty-data",
            "--tls-cert", dir + "/cert.pem", "--tls-key", dir + "/locked-key.pem",
        ].joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]  // a pseudo-terminal, as a shell has
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "\(text)")  // 137 would be timeout killing it: it waited
        #expect(!text.lowercased().contains("pass phrase"), "\(text)")
        #expect(text.contains("BUTTOND_TLS_KEY_PASSWORD"), "\(text)")
    }

    @Test func plainHTTPOffLoopbackSaysTokensTravelInClear() throws {
        let dir = NSTemporaryDirectory() + "buttond-clear-\(UUID().uuidString)"
        let server = try ServerProcess(dataDir: dir, arguments: ["--host", "0.0.0.0", "--admin-token", "t0ken-0123456789"])
        defer { server.stop() }
        #expect(server.log.contains("travel in clear"))
        let local = try ServerProcess(dataDir: dir + "-local")
        defer { local.stop() }
        #expect(!local.log.contains("travel in clear"))
    }

    @Test func aSelfSignedCertificateIsMadeOnceAndKept() throws {
        let dir = NSTemporaryDirectory() + "buttond-self-\(UUID().uuidString)"
        var first: String
        do {
            let server = try TestServer(dataDir: dir) { $0.tlsSelfSigned = true }
            defer { server.stop() }
            let cert = dir + "/tls/self-signed-cert.pem"
            for host in ["127.0.0.1", "localhost"] {
                #expect(try Self.curl(["--cacert", cert, "https://\(host):\(server.app.port)/healthz"]) == (0, "ok"))
            }
            let key = try FileManager.default.attributesOfItem(atPath: dir + "/tls/self-signed-key.pem")
            #expect(key[.posixPermissions] as? Int == 0o600)
            first = try String(contentsOfFile: cert, encoding: .utf8)
        }
        // A later start uses the same certificate: a phone that trusted it keeps trusting it.
        let again = try TestServer(dataDir: dir) { $0.tlsSelfSigned = true }
        defer { again.stop() }
        #expect(try String(contentsOfFile: dir + "/tls/self-signed-cert.pem", encoding: .utf8) == first)
        #expect(try Self.curl(["--cacert", dir + "/tls/self-signed-cert.pem", "https://127.0.0.1:\(again.app.port)/healthz"]) == (0, "ok"))
    }

    @Test func theClientCommandsSpeakHTTPS() throws {
        let dir = try Self.certificates()
        let server = try TestServer {
            $0.tlsCert = dir + "/cert.pem"
            $0.tlsKey = dir + "/key.pem"
        }
        try #require(try Self.curl(["--cacert", dir + "/cert.pem", "-XPOST", "https://127.0.0.1:\(server.app.port)/api/v1/buttons",
            "-d", #"{"id": "door", "maxTaps": 1}"#]).0 == 0)
        let url = "https://127.0.0.1:\(server.app.port)"
        let (ok, out, err) = try runButtond(["press", "door", "--server", url, "--cacert", dir + "/cert.pem"])
        #expect(ok == 0, "\(err)")
        #expect(out.contains("single-tap"))
        // Without the CA the certificate is not trusted: a clear failure, exit 1.
        let (refused, _, why) = try runButtond(["press", "door", "--server", url])
        #expect(refused == 1)
        #expect(why.contains("cannot reach") && why.lowercased().contains("certificate"), "\(why)")
        let (viaEnv, _, _) = try runButtond(["up", "door", "--server", url], environment: ["BUTTOND_CACERT": dir + "/cert.pem"])
        #expect(viaEnv == 1)  // reached it: the server said not_down
    }

    @Test func aReloadTakesTheNewCertificateAndKeepsOpenConnections() throws {
        let dir = try Self.certificates()
        let cert = dir + "/live-cert.pem"
        let key = dir + "/live-key.pem"
        try FileManager.default.copyItem(atPath: dir + "/cert.pem", toPath: cert)
        try FileManager.default.copyItem(atPath: dir + "/key.pem", toPath: key)
        let server = try TestServer {
            $0.tlsCert = cert
            $0.tlsKey = key
        }
        // A client with a connection open across the reload (Python's ssl: one socket, two requests).
        let script = """
            import socket, ssl, sys
            ctx = ssl.create_default_context(cafile=sys.argv[1])
            s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[2]))), server_hostname="127.0.0.1")
            def req():
                s.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n")
                data = b""
                while not data.endswith(b"ok"):
                    chunk = s.recv(4096)
                    if not chunk: return "closed"
                    data += chunk
                return data.split(b"\\r\\n")[0].decode()
            print(req(), flush=True)
            sys.stdin.readline()
            print(req(), flush=True)
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, dir + "/cert.pem", String(server.app.port)]
        let input = Pipe()
        let output = Pipe()
        python.standardInput = input
        python.standardOutput = output
        try python.run()
        let reader = output.fileHandleForReading
        func line() -> String {
            var bytes: [UInt8] = []
            while let byte = try? reader.read(upToCount: 1), let b = byte.first, b != 0x0A { bytes.append(b) }
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(line() == "HTTP/1.1 200 OK")
        // The certificate is renewed (another one, for the same address) and reloaded.
        try FileManager.default.removeItem(atPath: cert)
        try FileManager.default.removeItem(atPath: key)
        try FileManager.default.copyItem(atPath: dir + "/other-cert.pem", toPath: cert)
        try FileManager.default.copyItem(atPath: dir + "/other-key.pem", toPath: key)
        #expect(server.app.reloadTLS() == nil)
        // New connections get the new certificate; the open one goes on.
        #expect(try Self.curl(["-k", "https://127.0.0.1:\(server.app.port)/healthz"]) == (0, "ok"))
        #expect(try Self.curl(["--cacert", dir + "/cert.pem", "https://127.0.0.1:\(server.app.port)/healthz"]).0 != 0)
        input.fileHandleForWriting.write(Data("go\n".utf8))
        #expect(line() == "HTTP/1.1 200 OK")
        python.waitUntilExit()
        // A broken file is refused, and the certificate in use stays.
        try "not a certificate".write(toFile: cert, atomically: true, encoding: .utf8)
        #expect(server.app.reloadTLS() != nil)
        #expect(try Self.curl(["-k", "https://127.0.0.1:\(server.app.port)/healthz"]) == (0, "ok"))
    }

    @Test func theClientReachesAnIPv6Literal() throws {
        let server = try TestServer {
            $0.host = "::1"
            $0.http.host = "::1"
        }
        let base = "http://[::1]:\(server.app.port)"
        #expect(try Self.curl(["-g", "-XPOST", base + "/api/v1/buttons", "-d", #"{"id": "door", "maxTaps": 1}"#]).0 == 0)
        let (status, out, err) = try runButtond(["press", "door", "--server", base])
        #expect(status == 0, "\(err)")
        #expect(out.contains("single-tap"))
    }
}
