import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A small HTTP/1.1 server on the loopback interface, for workflows and tests that need a
/// server and must not depend on one being installed (`procflow serve`).
///
/// Routes: `GET`/`HEAD` of a file under the root; `/echo` by any other method (`POST`, `PUT`,
/// `PATCH`, `DELETE`…) answers `{"method", "path", "headers", "body"}` as JSON;
/// `GET /status/CODE` answers CODE; `GET /delay/SECONDS` answers after that many seconds
/// (fractions too, at most 60), for timeouts; `POST /shutdown` answers, then stops the server.
/// Every connection is closed after one exchange.
public final class LoopbackServer: @unchecked Sendable {
    // @unchecked Sendable: `socket` and `beforeAccept` are set once in init; the rest of the
    // mutable state is guarded by `state`.

    /// Why the server could not start listening.
    public struct StartError: Error, CustomStringConvertible {
        /// The reason, in a sentence.
        public let description: String
    }

    /// Where the listening socket is in its life. Only the accept loop closes a socket it
    /// serves: `stop()` shuts it down, which wakes a blocked `accept` and makes later ones fail
    /// at once, so the loop never passes `accept` a descriptor number that was closed and
    /// reused by another open.
    private enum Phase {
        case listening
        case serving
        case stopping
        case closed
    }

    /// The port the server listens on (the one chosen by the system when 0 was asked for).
    public let port: UInt16
    private let root: String?
    private let socket: Int32
    private let beforeAccept: (@Sendable () -> Void)?
    private let state = Locked((phase: Phase.listening, requests: 0))
    private let finished = DispatchSemaphore(value: 0)

    /// Listens on 127.0.0.1:`port` (0 picks a free port).
    public convenience init(port: UInt16, root: String? = nil) throws(StartError) {
        try self.init(port: port, root: root, beforeAccept: nil)
    }

    /// Listens on 127.0.0.1:`port`; the accept loop calls `beforeAccept` just before each
    /// `accept`, which lets tests stop the server at that moment.
    init(port: UInt16, root: String?, beforeAccept: (@Sendable () -> Void)?) throws(StartError) {
        self.beforeAccept = beforeAccept
        self.root = root.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        let descriptor = Glibc.socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw StartError(
                description: "cannot open a socket: \(String(cString: strerror(errno)))")
        }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw StartError(description: "cannot listen on 127.0.0.1:\(port): \(reason)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(descriptor, $0, &length)
            }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        self.socket = descriptor
    }

    /// Serves in the background until ``stop()`` or a `POST /shutdown`.
    public func start() {
        let serve = state.withLock { state -> Bool in
            guard state.phase == .listening else { return false }
            state.phase = .serving
            return true
        }
        if serve { Thread { [self] in acceptLoop() }.start() }
    }

    /// Blocks until the server has stopped and its listening socket is closed.
    public func wait() {
        finished.wait()
        finished.signal()
    }

    /// Stops accepting connections; exchanges under way finish.
    public func stop() {
        let closeNow = state.withLock { state -> Bool in
            switch state.phase {
            case .listening:
                state.phase = .closed
                return true
            case .serving:
                // Under the lock, so that the accept loop cannot have closed the socket yet.
                state.phase = .stopping
                shutdown(socket, Int32(SHUT_RDWR))
                return false
            case .stopping, .closed:
                return false
            }
        }
        if closeNow { closeSocket() }
    }

    /// How many requests have been answered.
    public var requestCount: Int {
        state.withLock { $0.requests }
    }

    private func acceptLoop() {
        while true {
            beforeAccept?()
            let connection = accept(socket, nil, nil)
            if connection >= 0 {
                Thread { [self] in handle(connection) }.start()
                continue
            }
            let failure = errno
            if state.withLock({ $0.phase == .stopping }) { break }
            // Out of descriptors or memory: give the system a moment, as servers do.
            if failure != EINTR && failure != ECONNABORTED { usleep(10_000) }
        }
        state.withLock { $0.phase = .closed }
        closeSocket()
    }

    private func closeSocket() {
        close(socket)
        finished.signal()
    }

    private func handle(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(
            connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let request = Request.read(from: connection) else { return }
        let (status, contentType, body, stopAfter) = answer(request)
        var head = "HTTP/1.1 \(status) \(HTTPStatus.reasons[status] ?? "Status")\r\n"
        head +=
            "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var bytes = Array(head.utf8)
        if request.method != "HEAD" { bytes += body }
        _ = bytes.withUnsafeBytes {
            send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        }
        state.withLock { $0.requests += 1 }
        if stopAfter { stop() }
    }

    private func answer(_ request: Request) -> (Int, String, [UInt8], Bool) {
        let path = request.path.split(separator: "?").first.map(String.init) ?? request.path
        switch (request.method, path) {
        case ("POST", "/shutdown"):
            return (200, "application/json", Array(#"{"stopping":true}"#.utf8), true)
        case (let method, "/echo") where method != "GET" && method != "HEAD":
            let echo: JSONWriter.Object = [
                ("method", .string(request.method)), ("path", .string(request.path)),
                ("headers", .object(request.headers.mapValues(JSONValue.string))),
                ("body", .string(String(decoding: request.body, as: UTF8.self))),
            ]
            return (200, "application/json", Array(JSONWriter.string(echo).utf8), false)
        case (_, let path) where path.hasPrefix("/status/"):
            let code = Int(path.dropFirst("/status/".count)) ?? 500
            return (code, "text/plain", Array("status \(code)\n".utf8), false)
        case (_, let path) where path.hasPrefix("/delay/"):
            let seconds = Double(path.dropFirst("/delay/".count)) ?? 1
            Thread.sleep(forTimeInterval: min(seconds, 60))
            return (200, "text/plain", Array("waited \(seconds) s\n".utf8), false)
        case ("GET", _), ("HEAD", _):
            guard let root else {
                return (404, "text/plain", Array("no root directory\n".utf8), false)
            }
            let file = URL(fileURLWithPath: root + path).standardizedFileURL.path
            guard file.hasPrefix(root + "/"), let data = FileManager.default.contents(atPath: file)
            else {
                return (404, "text/plain", Array("not found: \(path)\n".utf8), false)
            }
            let type = file.hasSuffix(".json") ? "application/json" : "text/plain; charset=utf-8"
            return (200, type, Array(data), false)
        default:
            return (405, "text/plain", Array("method not allowed\n".utf8), false)
        }
    }

    /// One HTTP request, read whole.
    private struct Request {
        var method: String
        var path: String
        var headers: [String: String]
        var body: [UInt8]

        static func read(from connection: Int32) -> Request? {
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            var headerEnd: Int?
            while headerEnd == nil {
                let count = chunk.withUnsafeMutableBytes {
                    recv(connection, $0.baseAddress, $0.count, 0)
                }
                guard count > 0 else { return nil }
                buffer += chunk[0..<count]
                // Not HTTP (a TLS handshake, say): hang up at once.
                guard buffer.first.map({ (65...90).contains($0) }) ?? false else { return nil }
                headerEnd = buffer.firstRange(of: [13, 10, 13, 10])?.upperBound
                if buffer.count > 1 << 20 { return nil }
            }
            let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count >= 2 else { return nil }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[String(line[..<colon])] = line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }
            var body = Array(buffer[headerEnd!...])
            let length =
                headers.first { $0.key.lowercased() == "content-length" }.flatMap { Int($0.value) }
                ?? 0
            while body.count < length {
                let count = chunk.withUnsafeMutableBytes {
                    recv(connection, $0.baseAddress, $0.count, 0)
                }
                guard count > 0 else { break }
                body += chunk[0..<count]
            }
            return Request(
                method: String(requestLine[0]), path: String(requestLine[1]), headers: headers,
                body: body)
        }
    }
}
