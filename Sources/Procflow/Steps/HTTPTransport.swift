import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An HTTP request as ``HTTPProcedure`` sends it.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// Seconds to wait for an answer.
    public var timeout: TimeInterval

    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil, timeout: TimeInterval = 60
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// What the server answered.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Sends HTTP requests for ``HTTPProcedure``.
public protocol HTTPTransport: Sendable {
    /// Sends `request`; calls `completion` once, on any thread, with the response or a
    /// one-line reason it could not be had. The returned closure cancels the request.
    func send(
        _ request: HTTPRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, StepError>) -> Void
    ) -> @Sendable () -> Void
}

/// URLSession, through the plugin `libProcflowHTTPTransport.so` that `swift build` builds next
/// to `procflow`. It is loaded on first use, so that commands that make no request never load
/// FoundationNetworking.
public final class URLSessionTransport: HTTPTransport {
    public static let shared = URLSessionTransport()

    private typealias Perform =
        @convention(c) (
            UnsafePointer<CChar>, UnsafeMutableRawPointer?,
            @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>) -> Void
        ) -> Int64
    private typealias Cancel = @convention(c) (Int64) -> Void

    /// The plugin's entry points, or why it could not be loaded.
    private struct Plugin: @unchecked Sendable {
        // @unchecked Sendable: C function pointers into a library that stays loaded.
        let perform: Perform
        let cancel: Cancel
    }

    private let plugin: Result<Plugin, StepError> = URLSessionTransport.load()

    private static func load() -> Result<Plugin, StepError> {
        let name = "libProcflowHTTPTransport.so"
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["PROCFLOW_HTTP_TRANSPORT"] {
            candidates.append(path)
        }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent(name).path)
        for path in candidates where FileManager.default.fileExists(atPath: path) {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
                return .failure(
                    StepError(.httpTransport, "cannot load HTTP support from \(path): \(reason)"))
            }
            guard let perform = dlsym(handle, "procflow_http_perform"),
                let cancel = dlsym(handle, "procflow_http_cancel")
            else {
                return .failure(
                    StepError(.httpTransport, "\(path) is not procflow's HTTP support library"))
            }
            return .success(
                Plugin(
                    perform: unsafeBitCast(perform, to: Perform.self),
                    cancel: unsafeBitCast(cancel, to: Cancel.self)))
        }
        return .failure(
            StepError(
                .httpTransport,
                "HTTP support is not installed: \(name) was not found next to procflow (swift build builds it)"
            ))
    }

    /// The completion of one request, passed through the C interface.
    private final class Pending: Sendable {
        let completion: @Sendable (Result<HTTPResponse, StepError>) -> Void

        init(_ completion: @escaping @Sendable (Result<HTTPResponse, StepError>) -> Void) {
            self.completion = completion
        }
    }

    public func send(
        _ request: HTTPRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, StepError>) -> Void
    ) -> @Sendable () -> Void {
        let plugin: Plugin
        switch self.plugin {
        case .failure(let error):
            completion(.failure(error))
            return {}
        case .success(let loaded):
            plugin = loaded
        }
        let object: JSONWriter.Object = [
            ("method", .string(request.method)), ("url", .string(request.url)),
            (
                "headers",
                .array(request.headers.map { .array([.string($0.name), .string($0.value)]) })
            ),
            ("body", request.body.map { .string(Data($0).base64EncodedString()) } ?? .null),
            ("timeout", .number(request.timeout)),
        ]
        let context = Unmanaged.passRetained(Pending(completion)).toOpaque()
        let id = JSONWriter.string(object).withCString { text in
            plugin.perform(text, context) { context, response in
                let pending = Unmanaged<Pending>.fromOpaque(context!).takeRetainedValue()
                pending.completion(URLSessionTransport.decode(String(cString: response)))
            }
        }
        return { plugin.cancel(id) }
    }

    private static func decode(_ text: String) -> Result<HTTPResponse, StepError> {
        guard let root = try? JSONParser.parse(Array(text.utf8)).plain,
            case .object(let object) = root
        else {
            return .failure(
                StepError(.httpTransport, "the HTTP support library gave an unreadable answer"))
        }
        if case .string(let error)? = object["error"] {
            return .failure(StepError(.httpTransport, error))
        }
        guard case .number(let status)? = object["status"] else {
            return .failure(StepError(.httpTransport, "the HTTP support library gave no status"))
        }
        var headers: [String: String] = [:]
        if case .object(let fields)? = object["headers"] {
            for (name, value) in fields {
                if case .string(let text) = value { headers[name] = text }
            }
        }
        var body: [UInt8] = []
        if case .string(let base64)? = object["body"], let data = Data(base64Encoded: base64) {
            body = Array(data)
        }
        return .success(HTTPResponse(status: Int(status), headers: headers, body: body))
    }
}
