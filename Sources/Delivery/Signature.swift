import COpenSSL
import FoundationEssentials
import Platform
import Dispatch

/// Standard Webhooks signing: `v1,` + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")),
/// computed with OpenSSL's libcrypto. Secrets are `whsec_` + base64 of 32 random bytes.
public enum Signature {
    public static func sign(key: [UInt8], id: String, timestamp: Int64, body: [UInt8]) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message.append(contentsOf: body)
        return "v1," + Data(hmacSHA256(key: key, message: message)).base64EncodedString()
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
