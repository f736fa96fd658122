import CurlHTTP
import Foundation
import MicroHTTP
import Testing

@testable import TLSCertificates

/// `--tls-self-signed` and `--tls-cert`/`--tls-key`: a certificate made here is one
/// libmicrohttpd serves and a client that trusts it accepts, kept across starts; a wrong file
/// is a message naming it.
@Suite struct CertificateTests {
    static func directory() -> String { NSTemporaryDirectory() + "buttond-certificates-\(UUID().uuidString)" }

    @Test func aMadeCertificateIsServedAndTrustedByItsFile() throws {
        let dir = Self.directory()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try SelfSignedCertificate.ensure(dataDir: dir, host: "127.0.0.1")
        #expect(files.made && files.certificate == dir + "/tls/self-signed-cert.pem")
        #expect(files.fingerprint.split(separator: ":").count == 32, "a SHA-256 fingerprint: \(files.fingerprint)")
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.tls = try TLSFiles.load(certificate: files.certificate, key: files.key, password: nil)
        var router = Router()
        router.get("/hello") { _ in .text("hello") }
        let server = HTTPServer(configuration: configuration, clock: .system, router: router)
        try server.start()
        defer { server.stop() }
        for host in ["127.0.0.1", "localhost"] {
            let client = HTTPClient(base: "https://\(host):\(server.port)", caFile: files.certificate)
            #expect(try client.get("/hello").text == "hello", "\(host)")
        }
        // A client without the certificate refuses the handshake.
        #expect(throws: HTTPClient.Failure.self) { try HTTPClient(base: "https://127.0.0.1:\(server.port)").get("/hello") }
    }

    /// A later start uses the same certificate: a phone that trusted it keeps trusting it.
    @Test func aCertificateIsMadeOnceAndKept() throws {
        let dir = Self.directory()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try SelfSignedCertificate.ensure(dataDir: dir, host: "127.0.0.1")
        let again = try SelfSignedCertificate.ensure(dataDir: dir, host: "127.0.0.1")
        #expect(first.made && !again.made && again.fingerprint == first.fingerprint)
        let key = try FileManager.default.attributesOfItem(atPath: first.key)
        #expect(key[.posixPermissions] as? Int == 0o600)
    }

    @Test func theNamesCoverLoopbackAndTheHost() {
        let names = SelfSignedCertificate.subjectAltNames(host: "127.0.0.1")
        #expect(names.hasPrefix("DNS:localhost,"))
        #expect(names.contains("IP:127.0.0.1") && names.contains("IP:::1"))
        let wildcard = SelfSignedCertificate.subjectAltNames(host: "0.0.0.0")
        #expect(wildcard.split(separator: ",").count >= names.split(separator: ",").count)
        #expect(SelfSignedCertificate.subjectAltNames(host: "panel.example").contains("DNS:panel.example"))
    }

    @Test func aMissingOrMismatchedFileIsNamed() throws {
        let dir = Self.directory()
        let other = Self.directory()
        for path in [dir, other] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        defer { for path in [dir, other] { try? FileManager.default.removeItem(atPath: path) } }
        let files = try SelfSignedCertificate.ensure(dataDir: dir, host: "127.0.0.1")
        let otherFiles = try SelfSignedCertificate.ensure(dataDir: other, host: "127.0.0.1")
        #expect(throws: TLSFiles.Failure.self) { try TLSFiles.load(certificate: dir + "/none.pem", key: files.key, password: nil) }
        do {
            _ = try TLSFiles.load(certificate: files.certificate, key: otherFiles.key, password: nil)
            Issue.record("a key of another certificate was taken")
        } catch {
            #expect(error.description == "--tls-key \(otherFiles.key) is not the key of the certificate in --tls-cert \(files.certificate)")
        }
        do {
            _ = try TLSFiles.load(certificate: files.key, key: files.key, password: nil)
            Issue.record("a key was taken as a certificate")
        } catch {
            #expect(error.description.hasPrefix("--tls-cert \(files.key) holds no PEM certificate"))
        }
    }
}
