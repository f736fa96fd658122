import Delivery
import Dispatch
import TestSupport
import ThreadSupport
import Testing

/// Standard Webhooks signatures, made with a key prepared once per handler: the same bytes as
/// OpenSSL's one-shot HMAC and as the specification's own example, for any key, from any thread.
@Suite struct SignatureTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func theStandardWebhooksExampleSignsAsTheSpecificationSays() throws {
        let key = try #require(Signature.key(fromSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        #expect(Signature.sign(key: HMACKey(key), id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body) == expected)
        #expect(Signature.sign(key: key, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body) == expected)
    }

    @Test func aPreparedKeyGivesTheOneShotMACForEveryKeyAndSplit() {
        // RFC 4231, test case 2.
        #expect(
            Self.hex(HMACKey(Array("Jefe".utf8)).mac(Array("what do ya want ".utf8), Array("for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // An empty key (a secret of no bytes) is not one OpenSSL prepares: it is signed one-shot.
        #expect(Self.hex(HMACKey([]).mac(Array("abc".utf8))) == "fd7adb152c05ef80dccf50a1fa4c05d5a3ec6da95575fc312ae7c5d091836351")
        var random = SplitMix64(seed: 43)
        for length in [1, 31, 32, 64, 65, 200] {
            let key = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let prepared = HMACKey(key)
            for size in [0, 1, 63, 64, 300, 5000] {
                let message = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
                let cut = size / 3
                let expected = Signature.hmacSHA256(key: key, message: message)
                // Used again and again: each MAC starts over from the key.
                #expect(prepared.mac(message) == expected, "key \(length), message \(size)")
                #expect(prepared.mac(Array(message[..<cut]), Array(message[cut...])) == expected, "key \(length), split \(size)")
            }
        }
    }

    @Test func oneKeyServesManyThreadsAtOnce() {
        let key = HMACKey(Array(repeating: 7, count: 32))
        let messages = (0..<8).map { Array("message \($0)".utf8) }
        let expected = messages.map { Signature.hmacSHA256(key: Array(repeating: 7, count: 32), message: $0) }
        let wrong = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for _ in 0..<2000 where key.mac(messages[thread]) != expected[thread] {
                wrong.withLock { $0 += 1 }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
    }
}
