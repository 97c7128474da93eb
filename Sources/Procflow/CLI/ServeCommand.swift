import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `procflow serve`: the loopback HTTP server workflows and tests use.
struct ServeCommand: ParsableCommand {
    enum Option: String, CommandOption {
        case port
        case root
        case portFile = "port-file"

        var spec: OptionSpec {
            switch self {
            case .port:
                return .value(
                    "port", "port",
                    help: "The port to listen on; 0 (the default) picks a free one.")
            case .root:
                return .value(
                    "root", "directory",
                    help: "The directory to serve; the current one by default.")
            case .portFile:
                return .value(
                    "port-file", "path", help: "Write the port to this file once listening.")
            }
        }
    }

    static let name = "serve"
    static let abstract = "Serve files over HTTP on 127.0.0.1 until asked to stop."
    static let discussion: String? = """
        GET serves files under the root; POST /echo answers the request as JSON; POST
        /shutdown stops the server, which then exits 0. For workflows that need a server
        without installing one.
        """
    static let arguments: [CommandDescription.Argument] = []

    let port: UInt16
    let root: String?
    let portFile: String?

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        let text = arguments.value(.port) ?? "0"
        guard let port = UInt16(text) else {
            throw .invalidValue(text, for: Option.port.spec, expected: "a port number up to 65535")
        }
        self.port = port
        root = arguments.value(.root)
        portFile = arguments.value(.portFile)
    }

    func run(console: Console) -> Int32 {
        let root = root ?? FileManager.default.currentDirectoryPath
        let server: LoopbackServer
        do {
            server = try LoopbackServer(port: port, root: root)
        } catch {
            console.writeError("error: \(error.description)\n")
            return CommandLineTool.ExitStatus.failure
        }
        if let path = portFile {
            do {
                try POSIXIO.writeAtomically(Array("\(server.port)\n".utf8), to: path)
            } catch {
                console.writeError("error: \(error.message)\n")
                return CommandLineTool.ExitStatus.failure
            }
        }
        console.write("serving \(root) on http://127.0.0.1:\(server.port)\n")
        let queue = DispatchQueue(label: "procflow.serve.signals")
        let sources = [SIGINT, SIGTERM].map { (number: Int32) -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { server.stop() }
            source.resume()
            return source
        }
        server.start()
        server.wait()
        for source in sources { source.cancel() }
        console.write("stopped after \(plural(server.requestCount, "request"))\n")
        return CommandLineTool.ExitStatus.success
    }
}
