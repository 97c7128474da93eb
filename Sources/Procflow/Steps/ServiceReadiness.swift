import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Waits for a service to become ready, and says so once: ready, or not ready in time.
///
/// A `log` readiness looks at the lines the service writes (``observe(_:)``); the others are
/// probes tried one after another, 10 ms apart at first, then 20, 40, up to 100 ms: a TCP
/// connection to 127.0.0.1, a GET, or a command. ``stop()`` (the service exited, or its step
/// was cancelled) ends the wait without a word.
final class ServiceReadiness: Sendable {
    /// What the wait came to.
    enum Event: Sendable {
        case ready
        case timedOut
    }

    /// What a probe needs to run a command.
    struct CommandSettings: Sendable {
        var environment: [String: String]
        var directory: String?
        var gracePeriod: TimeInterval
        var groups: ProcessGroups
    }

    private struct State {
        var over = false
        /// The `command` probe running now, to end when the wait is over.
        var probe: ProcessRun?
    }

    private let readiness: Service.Readiness
    private let timeout: TimeInterval
    private let pattern: NSRegularExpression?
    private let command: CommandSettings
    private let onEvent: @Sendable (Event) -> Void
    private let state = Locked(State())

    /// The longest wait between two probes.
    static let longestInterval: TimeInterval = 0.1

    /// A wait for `readiness`, at most `timeout` seconds once started; `onEvent` is called once,
    /// on any thread, unless the wait is stopped first.
    init(
        _ readiness: Service.Readiness, timeout: TimeInterval, command: CommandSettings,
        onEvent: @escaping @Sendable (Event) -> Void
    ) {
        self.readiness = readiness
        self.timeout = timeout
        self.command = command
        self.onEvent = onEvent
        if case .log(let pattern) = readiness {
            // The loader checked that it compiles.
            self.pattern = try? NSRegularExpression(pattern: pattern)
        } else {
            pattern = nil
        }
    }

    /// Starts waiting: the service has just been started.
    func start() {
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
            conclude(.timedOut)
        }
        switch readiness {
        case .started: conclude(.ready)
        case .log: break
        case .port, .http, .command: probe(after: 0.01)
        }
    }

    /// Looks for the `log` pattern in lines the service wrote.
    func observe(_ lines: [Substring]) {
        guard let pattern, !state.withLock({ $0.over }) else { return }
        for line in lines {
            let text = String(line)
            let range = NSRange(text.startIndex..., in: text)
            if pattern.firstMatch(in: text, range: range) != nil { return conclude(.ready) }
        }
    }

    /// Ends the wait without an event.
    func stop() {
        let probe = state.withLock { state -> ProcessRun? in
            state.over = true
            return state.probe
        }
        probe?.terminate(signal: SIGKILL, gracePeriod: 0)
    }

    private func conclude(_ event: Event) {
        let first = state.withLock { state -> Bool in
            defer { state.over = true }
            return !state.over
        }
        guard first else { return }
        stop()
        onEvent(event)
    }

    /// Tries the probe after `delay`, and again, backing off, until it succeeds or the wait
    /// is over.
    private func probe(after delay: TimeInterval) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            guard !state.withLock({ $0.over }) else { return }
            tryProbe { ready in
                if ready {
                    self.conclude(.ready)
                } else {
                    self.probe(after: min(delay * 2, Self.longestInterval))
                }
            }
        }
    }

    private func tryProbe(_ completion: @escaping @Sendable (Bool) -> Void) {
        switch readiness {
        case .port(let port): completion(Self.accepts(port: port))
        case .http(let url): Self.answers(url, completion)
        case .command(let script): runCommand(script, completion)
        case .started, .log: completion(false)
        }
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }

    /// Whether a GET of `url` answers 2xx or 3xx (redirects are not followed).
    private static func answers(_ url: String, _ completion: @escaping @Sendable (Bool) -> Void) {
        var request = HTTPRequest(url: url, timeout: 2)
        request.followsRedirects = false
        _ = CurlTransport.shared.send(request) { result in
            if case .success(let response) = result {
                completion((200..<400).contains(response.status))
            } else {
                completion(false)
            }
        }
    }

    /// Whether `script` exits 0; it is ended when the wait is over.
    private func runCommand(_ script: String, _ completion: @escaping @Sendable (Bool) -> Void) {
        let launch = CommandLaunch.quietScript(
            script, environment: command.environment, directory: command.directory,
            gracePeriod: command.gracePeriod, groups: command.groups)
        do {
            let run = try ProcessRun.start(launch) { [state] outcome in
                state.withLock { $0.probe = nil }
                completion(outcome.termination == .exited(0))
            }
            let over = state.withLock { state -> Bool in
                if !state.over { state.probe = run }
                return state.over
            }
            if over { run.terminate(signal: SIGKILL, gracePeriod: 0) }
        } catch {
            completion(false)
        }
    }
}
