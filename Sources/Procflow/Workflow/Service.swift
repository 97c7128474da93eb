/// What makes a shell step a service: a long-running process (a database, a server a test
/// needs) that is started, waited for until it is ready, kept running while the steps that
/// depend on it run, and stopped once they are all done or the run ends.
public struct Service: Sendable {
    /// How procflow knows the service is ready.
    public enum Readiness: Sendable, Equatable {
        /// As soon as it has started.
        case started
        /// A TCP connection to 127.0.0.1 on this port succeeds.
        case port(Int)
        /// A GET of this URL answers 2xx or 3xx.
        case http(String)
        /// A line of its stdout or stderr matches this regular expression.
        case log(String)
        /// This `/bin/sh -e -c` script exits 0.
        case command(String)

        /// How a plan says it: `port 5432`, `log "ready"`, `start`.
        public var summary: String {
            switch self {
            case .started: "start"
            case .port(let port): "port \(port)"
            case .http(let url): "http \(url)"
            case .log(let pattern): "log \"\(pattern)\""
            case .command(let script): "command \"\(script)\""
            }
        }
    }

    /// How procflow knows it is ready.
    public var ready: Readiness = .started
    /// Seconds it may take to become ready.
    public var timeout: Double = Service.defaultTimeout

    /// The readiness timeout when the file gives none.
    public static let defaultTimeout: Double = 30
}
