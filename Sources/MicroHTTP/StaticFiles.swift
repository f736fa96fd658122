import FoundationEssentials
import Platform
import Dispatch

/// Serves files from one directory: content types, ETag / 304, `index.html` for directories,
/// no directory listings, and no path (`..`, symlinks, NUL) that resolves outside the root.
public struct StaticFiles: Sendable {
    public let root: String

    public init(root: String) {
        self.root = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
    }

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8", "json": "application/json",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
        "gif": "image/gif", "ico": "image/x-icon", "webp": "image/webp", "txt": "text/plain; charset=utf-8",
        "woff2": "font/woff2", "woff": "font/woff", "webmanifest": "application/manifest+json",
        "map": "application/json", "wasm": "application/wasm",
    ]

    private static let notFound = HTTPError.notFound("no such file")

    /// The handler: use it as the router's fallback.
    public func serve(_ request: Request) throws -> Response {
        guard request.method == "GET" || request.method == "HEAD" else {
            throw HTTPError(
                405, code: "method_not_allowed", message: "\(request.method) is not allowed on static files",
                headers: [("Allow", "GET, HEAD")])
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
        for part in parts where part == ".." || part == "." || part.contains("\0") || part.contains("\\") {
            throw HTTPError(400, code: "bad_path", message: "path segments '.' and '..' are not allowed")
        }
        var path = root + "/" + parts.joined(separator: "/")
        var info = stat()
        guard stat(path, &info) == 0 else { throw Self.notFound }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            path += path.hasSuffix("/") ? "index.html" : "/index.html"
            guard stat(path, &info) == 0 else { throw Self.notFound }
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw Self.notFound }
        // A symlink inside public/ must not lead outside it.
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard resolved == root || resolved.hasPrefix(root + "/") else { throw Self.notFound }

        let etag = "\"\(info.st_size)-\(info.st_mtim.tv_sec)-\(info.st_mtim.tv_nsec)\""
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        var headers: [(String, String)] = [
            ("ETag", etag), ("Cache-Control", "no-cache"),
            ("Content-Type", Self.contentTypes[ext] ?? "application/octet-stream"),
        ]
        if let match = request.header("if-none-match"),
            match.split(separator: ",").contains(where: { candidate in
                // If-None-Match compares weakly: W/"x" matches "x".
                var tag = candidate.trimmingSpaces()
                if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
                return tag == etag || tag == "*"
            })
        {
            headers.removeLast()
            return Response(status: 304, headers: headers)
        }
        guard let data = FileManager.default.contents(atPath: resolved) else { throw Self.notFound }
        return Response(status: 200, headers: headers, body: .bytes([UInt8](data)))
    }
}
