/// A URL taken apart by RFC 3986's generic syntax, `scheme://[userinfo@]host[:port][/path][?query][#fragment]`,
/// every part a slice of the text as written. The one URL parser: webhook destinations and
/// their placeholders, the press token's view of a webhook, the MQTT broker's URL and its
/// redaction in what the bridge reports, OSC targets, `--public-url` and `--allow-origin` all
/// read the same parts, so no two of them can disagree about where the host ends or whose
/// password is whose. It only finds the parts (nothing is decoded, nothing refused but a text
/// without `://`): what each caller allows is the caller's to check. The tests hold it to
/// libcurl's `curl_url` on a table of the URLs the callers see.
public struct URLParts: Sendable, Equatable {
    /// The whole text.
    public let text: String
    /// Before the first `://`, as written (compare it lower-cased).
    public let scheme: Substring
    /// Before the authority's last `@` (a password may hold a raw `@`), as written; nil
    /// without an `@`.
    public let userInfo: Substring?
    /// Host and port as written (brackets included), without the user info.
    public let authority: Substring
    /// The host as written; an IPv6 literal without its brackets (`[::1]` is `::1`).
    public let host: Substring
    /// Whether the host was an IP literal in brackets.
    public let isBracketed: Bool
    /// What follows the host in the authority: empty, `:port`, or (after a bracketed literal)
    /// whatever stray text followed its `]`.
    public let afterHost: Substring
    /// Path, query and fragment as written: from the first `/`, `?` or `#` after `://` to the end.
    public let rest: Substring

    /// Nil only when the text has no `://`.
    public init?(_ text: String) {
        // Searched as bytes: every delimiter is ASCII, and a UTF-8 index is a String index.
        let utf8 = text.utf8
        var colon = utf8.firstIndex(of: UInt8(ascii: ":"))
        while let found = colon, !utf8[found...].starts(with: "://".utf8) {
            colon = utf8[utf8.index(after: found)...].firstIndex(of: UInt8(ascii: ":"))
        }
        guard let separator = colon else { return nil }
        self.text = text
        scheme = text[..<separator]
        let hierarchy = text[utf8.index(separator, offsetBy: 3)...]
        let end = hierarchy.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? hierarchy.endIndex
        var authority = hierarchy[..<end]
        rest = hierarchy[end...]
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
            userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
        } else {
            userInfo = nil
        }
        self.authority = authority
        if authority.first == "[", let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            isBracketed = true
            afterHost = authority[authority.index(after: close)...]
        } else if authority.first != "[", let colon = authority.lastIndex(of: ":") {
            // The port follows the last colon: an unbracketed IPv6 address keeps its others.
            host = authority[..<colon]
            isBracketed = false
            afterHost = authority[colon...]
        } else {
            // No port, or a `[` never closed: all of it is the host.
            host = authority
            isBracketed = false
            afterHost = authority[authority.endIndex...]
        }
    }

    /// The port's text, after its colon (possibly empty); nil when the authority has no port.
    public var port: Substring? { afterHost.first == ":" ? afterHost.dropFirst() : nil }

    /// The port as a number 1…65535, written as 1 to 5 ASCII digits; nil for no port or any
    /// other text.
    public var portNumber: Int? {
        guard let port, (1...5).contains(port.utf8.count), port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let number = Int(port), (1...65535).contains(number)
        else { return nil }
        return number
    }

    /// Everything before `rest`: scheme, `://`, user info and authority, as written.
    public var head: Substring { text[..<rest.startIndex] }

    /// Whether nothing at all follows `://`.
    public var isEmptyAfterScheme: Bool { userInfo == nil && authority.isEmpty && rest.isEmpty }

    /// The scheme is `http` or `https`, in any case.
    public var isHTTP: Bool {
        let lower = scheme.lowercased()
        return lower == "http" || lower == "https"
    }

    /// The user info's name: before its first `:` (nil without user info).
    public var user: Substring? { userInfo.map { info in info.firstIndex(of: ":").map { info[..<$0] } ?? info } }

    /// The user info's password: after its first `:` (a password may hold more colons); nil
    /// without one.
    public var password: Substring? {
        guard let userInfo, let colon = userInfo.firstIndex(of: ":") else { return nil }
        return userInfo[userInfo.index(after: colon)...]
    }

    // MARK: - Redaction

    /// The URL with its password written `***` (`mqtt://user:***@host`), for logs and status
    /// reports; unchanged when it has none.
    public var passwordRedacted: String {
        guard let user, password != nil else { return text }
        return "\(scheme)://\(user):***@\(authority)\(rest)"
    }

    /// Where the URL points and nothing it carries: scheme and authority (no user info), then
    /// `/` when nothing or only `/` followed them, else `/***` (a path or query may hold a
    /// token: a Slack path, `/botTOKEN/`).
    public var originRedacted: String {
        "\(scheme)://\(authority)" + (rest.isEmpty || rest == "/" ? "/" : "/***")
    }
}
