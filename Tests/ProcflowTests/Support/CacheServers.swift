import Foundation
import Testing

@testable import Procflow

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A real nginx serving Bazel's HTTP cache protocol on a loopback port, as Bazel's documentation
/// configures it (`dav_methods PUT; create_full_put_path on;`), its files in a directory of its
/// own. `.ci/run` installs nginx and sets `PROCFLOW_REQUIRE_NGINX=1`, so that CI fails where
/// the tests would skip.
final class NginxCache {
    /// The nginx binary, if installed.
    static let binary: String? = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether the tests that need nginx run: it is installed, or CI requires it (and then
    /// they fail without it).
    static let runs =
        binary != nil || ProcessInfo.processInfo.environment["PROCFLOW_REQUIRE_NGINX"] == "1"

    let directory: URL
    /// Where what the cache holds is kept.
    let root: URL
    let port: Int
    private let process = Process()

    /// Starts nginx; returns once it answers.
    init() throws {
        guard let binary = Self.binary else {
            throw TestFailure("nginx is not installed (apt-get install nginx-light)")
        }
        directory = try temporaryDirectory()
        root = directory.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        port = try freePort()
        let path = directory.path
        let config = """
            \(geteuid() == 0 ? "user root;" : "")
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log;
            daemon off;
            events { worker_connections 256; }
            http {
              access_log \(path)/access.log;
              client_body_temp_path \(path)/body;
              proxy_temp_path \(path)/proxy;
              fastcgi_temp_path \(path)/fastcgi;
              uwsgi_temp_path \(path)/uwsgi;
              scgi_temp_path \(path)/scgi;
              client_max_body_size 0;
              server {
                listen 127.0.0.1:\(port);
                root \(root.path);
                dav_methods PUT DELETE;
                create_full_put_path on;
              }
            }
            """
        try Data(config.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", "\(path)/nginx.conf", "-p", path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard eventually(timeout: 30, { canConnect(to: self.port) }) else {
            stop()
            throw TestFailure("nginx did not start on port \(port)")
        }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// The files the cache holds, by their path below the root (`ac/…`, `cas/…`).
    var stored: [String] {
        let names = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
        return (names ?? []).filter { !$0.hasSuffix("ac") && !$0.hasSuffix("cas") }.sorted()
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Tests/ProcflowTests/Fixtures/remote/fault_server.py in a mode, answering `record` for every
/// record asked for.
final class FaultyCache {
    let port: Int
    let directory: URL
    private let process = Process()

    init(mode: String, record: String = "{}", contents: [String: [UInt8]] = [:]) throws {
        directory = try temporaryDirectory()
        let recordFile = directory.appendingPathComponent("record.json")
        try Data(record.utf8).write(to: recordFile)
        let cas = directory.appendingPathComponent("cas")
        try FileManager.default.createDirectory(at: cas, withIntermediateDirectories: true)
        for (name, bytes) in contents {
            try Data(bytes).write(to: cas.appendingPathComponent(name))
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", fixtures.appendingPathComponent("remote/fault_server.py").path, mode,
            recordFile.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        guard
            let port = Int(
                String(decoding: line, as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines))
        else { throw TestFailure("the fault server did not start") }
        self.port = port
    }

    var url: String { "http://127.0.0.1:\(port)" }

    deinit {
        // SIGKILL: the test process may ignore SIGTERM (signal tests run in it), and a child
        // inherits what its parent ignores.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A failure of a test's set-up, with its reason.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A TCP port on the loopback interface that nothing listens on now.
func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw TestFailure("no socket") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    guard bound else { throw TestFailure("cannot bind a port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts connections on the loopback `port`.
func canConnect(to port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
