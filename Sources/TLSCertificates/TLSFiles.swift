import COpenSSL
import FoundationEssentials
import Platform
import MicroHTTP

/// `--tls-cert` and `--tls-key` read and checked before the server starts, so that a wrong,
/// missing, mismatched or unreadable file is a message naming that file, not a server that
/// refuses every handshake.
package enum TLSFiles {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    package static func load(certificate: String, key: String, password: String?) throws(Failure) -> ServerConfiguration.TLSCredentials {
        let certificatePEM = try read(certificate, what: "--tls-cert")
        let keyPEM = try read(key, what: "--tls-key")
        guard let x509 = parse(certificatePEM, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw Failure(description: "--tls-cert \(certificate) holds no PEM certificate (\(opensslError()))")
        }
        defer { X509_free(x509) }
        let privateKey = password.map { password in
            password.withCString { secret in
                parse(keyPEM) { PEM_read_bio_PrivateKey($0, nil, nil, UnsafeMutableRawPointer(mutating: secret)) }
            }
        } ?? parse(keyPEM) { PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) }  // no password: never ask on a terminal
        guard let privateKey else {
            let hint = password == nil ? " (an encrypted key needs BUTTOND_TLS_KEY_PASSWORD)" : " (or the password is wrong)"
            throw Failure(description: "--tls-key \(key) holds no usable PEM private key\(hint): \(opensslError())")
        }
        defer { EVP_PKEY_free(privateKey) }
        guard X509_check_private_key(x509, privateKey) == 1 else {
            throw Failure(description: "--tls-key \(key) is not the key of the certificate in --tls-cert \(certificate)")
        }
        return ServerConfiguration.TLSCredentials(certificatePEM: certificatePEM, keyPEM: keyPEM, keyPassword: password)
    }

    private static func read(_ path: String, what: String) throws(Failure) -> String {
        guard access(path, R_OK) == 0 else {
            throw Failure(description: "cannot read \(what) \(path): \(String(cString: strerror(errno)))")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Failure(description: "cannot read \(what) \(path): not a text (PEM) file")
        }
        return text
    }

    private static func parse<T>(_ pem: String, _ body: (OpaquePointer?) -> T?) -> T? {
        pem.withCString { text in
            guard let bio = BIO_new_mem_buf(text, Int32(strlen(text))) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    private static func opensslError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no details" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
