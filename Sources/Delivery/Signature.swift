import COpenSSL
import FoundationEssentials
import Platform
import Dispatch
import ThreadSupport

/// Standard Webhooks signing: `v1,` + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")),
/// computed with OpenSSL's libcrypto. Secrets are `whsec_` + base64 of 32 random bytes.
public enum Signature {
    public static func sign(key: [UInt8], id: String, timestamp: Int64, body: [UInt8]) -> String {
        sign(key: HMACKey(key), id: id, timestamp: timestamp, body: body)
    }

    /// The same with a key made ready once (a handler's, for all its deliveries).
    public static func sign(key: HMACKey, id: String, timestamp: Int64, body: [UInt8]) -> String {
        "v1," + Data(key.mac(Array("\(id).\(timestamp).".utf8), body)).base64EncodedString()
    }

    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                _ = HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count, &digest, &length)
            }
        }
        return Array(digest[0..<Int(length)])
    }

    public static func sha256(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        message.withUnsafeBytes { m in
            _ = SHA256(m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count, &digest)
        }
        return digest
    }

    /// `count` bytes from OpenSSL's CSPRNG.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&bytes, Int32(count)) == 1, "OpenSSL's random generator failed")
        return bytes
    }

    /// A new secret from OpenSSL's CSPRNG.
    public static func newSecret() -> String {
        "whsec_" + Data(randomBytes(32)).base64EncodedString()
    }

    /// The key bytes of a `whsec_` secret; nil if it is not one.
    public static func key(fromSecret secret: String) -> [UInt8]? {
        guard secret.hasPrefix("whsec_"), let data = Data(base64Encoded: String(secret.dropFirst(6))) else { return nil }
        return [UInt8](data)
    }
}

/// An HMAC-SHA256 key made ready once. OpenSSL's one-shot `HMAC()` looks the algorithm up and
/// builds a context on every call (2.3 µs on the bench host); a context made for the key is
/// started again with the same key instead (0.6 µs), under a lock of its own.
public final class HMACKey: @unchecked Sendable {  // `context` is only used with `lock` held
    private let key: [UInt8]
    private let lock = Locked(())
    /// Nil if OpenSSL would not make one (an empty key): each MAC is then one-shot.
    private let context: OpaquePointer?

    public init(_ key: [UInt8]) {
        self.key = key
        context = key.isEmpty ? nil : Self.context(key: key)
    }

    deinit { EVP_MAC_CTX_free(context) }

    private static func context(key: [UInt8]) -> OpaquePointer? {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { return nil }
        defer { EVP_MAC_free(mac) }
        guard let context = EVP_MAC_CTX_new(mac) else { return nil }
        let ready = "SHA256".withCString { digest in
            "digest".withCString { name in
                var parameters = [
                    OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return key.withUnsafeBufferPointer { EVP_MAC_init(context, $0.baseAddress, $0.count, &parameters) == 1 }
            }
        }
        guard ready else {
            EVP_MAC_CTX_free(context)
            return nil
        }
        return context
    }

    /// HMAC-SHA256 of `parts` one after the other.
    public func mac(_ parts: [UInt8]...) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        let done = context.map { context in
            lock.withLock { _ -> Bool in
                // No key: the one given at init again.
                guard EVP_MAC_init(context, nil, 0, nil) == 1 else { return false }
                for part in parts {
                    guard part.withUnsafeBufferPointer({ EVP_MAC_update(context, $0.baseAddress, $0.count) }) == 1 else { return false }
                }
                var length = 0
                return EVP_MAC_final(context, &digest, &length, digest.count) == 1 && length == 32
            }
        } ?? false
        return done ? digest : Signature.hmacSHA256(key: key, message: parts.flatMap { $0 })
    }
}
