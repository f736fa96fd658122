import COpenSSL
import FoundationEssentials
import Platform

/// `--tls-self-signed`: a certificate made on first start (OpenSSL libcrypto, P-256) for this
/// machine's names and the addresses it listens on, kept in the data directory and used again
/// on later starts (a phone that trusted it keeps trusting it), made anew only when it is
/// missing or within 30 days of its end.
package enum SelfSignedCertificate {
    package struct Files {
        package var certificate: String
        package var key: String
        package var fingerprint: String
        package var made: Bool
    }

    package static let validDays = 825

    package static func ensure(dataDir: String, host: String) throws(TLSFiles.Failure) -> Files {
        let dir = dataDir + "/tls"
        let certificate = dir + "/self-signed-cert.pem"
        let key = dir + "/self-signed-key.pem"
        if let fingerprint = usable(certificate), access(key, R_OK) == 0 {
            return Files(certificate: certificate, key: key, fingerprint: fingerprint, made: false)
        }
        guard mkdir(dir, 0o700) == 0 || errno == EEXIST else {
            throw TLSFiles.Failure(description: "cannot create \(dir): \(String(cString: strerror(errno)))")
        }
        let names = subjectAltNames(host: host)
        var error = [CChar](repeating: 0, count: 256)
        guard bd_make_self_signed("buttond", names, Int32(validDays), certificate, key, &error, error.count) == 0 else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw TLSFiles.Failure(description: "cannot make a self-signed certificate in \(dir): \(reason)")
        }
        guard let fingerprint = usable(certificate) else {
            throw TLSFiles.Failure(description: "the self-signed certificate made in \(dir) cannot be read back")
        }
        return Files(certificate: certificate, key: key, fingerprint: fingerprint, made: true)
    }

    /// The certificate's SHA-256 fingerprint if the file holds one good for 30 more days.
    private static func usable(_ path: String) -> String? {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        var out = [CChar](repeating: 0, count: 128)
        var secondsLeft = 0
        guard bd_certificate_facts(pem, &out, out.count, &secondsLeft) == 0, secondsLeft > 30 * 86_400 else { return nil }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `DNS:localhost,DNS:<host name>,IP:127.0.0.1,IP:::1,…` and the listening address (every
    /// interface's for a wildcard bind), so a phone on the LAN can reach it by address too.
    package static func subjectAltNames(host: String) -> String {
        var dns = ["localhost"]
        var name = [CChar](repeating: 0, count: 256)
        if gethostname(&name, name.count) == 0 {
            let hostName = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !hostName.isEmpty && !dns.contains(hostName) { dns.append(hostName) }
            if let short = hostName.split(separator: ".").first.map(String.init), !dns.contains(short) { dns.append(short) }
        }
        var addresses: [[UInt8]] = [[127, 0, 0, 1], Array(repeating: 0, count: 15) + [1]]
        if let listener = host.lowercased() == "localhost" ? IPAddress(bytes: [127, 0, 0, 1]) : IPAddress(host) {
            let wildcard = (listener.v4 ?? listener.bytes).allSatisfy { $0 == 0 }
            let listening = wildcard ? Array(IPAddress.interfaceAddresses()) : [listener]
            for address in listening.map({ $0.v4 ?? $0.bytes }) where !addresses.contains(address) {
                addresses.append(address)
            }
        } else if !host.isEmpty && !dns.contains(host) {
            dns.append(host)
        }
        let ips = addresses.compactMap { bytes -> String? in
            var text = [CChar](repeating: 0, count: 64)
            let family = bytes.count == 4 ? AF_INET : AF_INET6
            guard bytes.withUnsafeBytes({ inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }) != nil else { return nil }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return (dns.map { "DNS:" + $0 } + ips.map { "IP:" + $0 }).joined(separator: ",")
    }
}
