import Foundation

/// A remote cache as the command line and the environment name it: a server that speaks
/// Bazel's HTTP cache protocol (`GET`/`PUT`/`HEAD` of `/ac/KEY` and `/cas/DIGEST`).
public struct RemoteCacheSettings: Sendable, Equatable {
    /// Whether this machine may publish what it builds.
    public enum Mode: String, Sendable, CaseIterable {
        /// Take what others built; never upload (developers' machines).
        case read
        /// Take what others built, and upload what this machine builds (CI).
        case readwrite
    }

    /// The base URL, without a trailing slash; may hold `user:password@`.
    public let url: String
    /// Whether this machine publishes.
    public let mode: Mode
    /// Header lines sent with every request, as given (`Authorization: Bearer …`).
    public let headers: [String]
    /// Seconds the server may take to accept a connection, and may stay (nearly) silent in
    /// a transfer, before it is taken for down.
    public let timeout: TimeInterval

    /// Settings for the server at `url`, in `mode`, sending `headers`.
    ///
    /// - Throws: a one-line message when the URL is not http or https, or a header is not
    ///   `NAME: VALUE` (the value is never quoted back: it may be a secret).
    public init(url: String, mode: Mode, headers: [String], timeout: TimeInterval = 30)
        throws(RemoteCacheSettingsError)
    {
        self.timeout = timeout
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", parsed.host?.isEmpty == false
        else {
            throw RemoteCacheSettingsError(
                message: "the remote cache URL must be an http:// or https:// URL with a host")
        }
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        self.url = base
        self.mode = mode
        for (index, header) in headers.enumerated() {
            let name = header.prefix { $0 != ":" }
            guard header.contains(":"), !name.isEmpty,
                name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            else {
                throw RemoteCacheSettingsError(
                    message:
                        "remote cache header \(index + 1) is not 'NAME: VALUE' (its value is not shown)"
                )
            }
        }
        self.headers = headers
    }

    /// The URL as procflow prints it: without credentials.
    public var shownURL: String {
        guard var components = URLComponents(string: url),
            components.user != nil || components.password != nil
        else { return url }
        components.user = nil
        components.password = nil
        return components.string ?? url
    }

    /// What the platform is called in keys: results built on one do not stand on another.
    static let platform: String = {
        var names = utsname()
        uname(&names)
        func text(_ field: Any) -> String {
            withUnsafeBytes(of: field) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return "\(text(names.sysname).lowercased())-\(text(names.machine))"
    }()
}

/// Why remote cache settings are not usable, in one line.
public struct RemoteCacheSettingsError: Error, Sendable {
    /// The sentence.
    public let message: String
}
