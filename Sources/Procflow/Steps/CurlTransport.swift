import CProcflow
import Foundation
import ProcedureKit

/// HTTP through libcurl, which procflow loads with `dlopen` when the first request is sent.
///
/// Nothing links libcurl: building needs no libcurl headers, a copied binary needs nothing
/// next to it, and commands that send no request (`validate`, `graph`, runs without HTTP
/// steps) never load libcurl and the ~35 libraries it depends on, which would more than double
/// procflow's start-up. Each request runs on a thread of its own, in libcurl's multi
/// interface, so that a cancellation ends it at once.
public final class CurlTransport: HTTPTransport {
    /// The transport HTTP steps use.
    public static let shared = CurlTransport()

    /// The library names tried in order: the usual SONAME, Debian's GnuTLS build, and the
    /// unversioned name a development package installs.
    static let libraryNames = ["libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"]

    /// libcurl's functions, resolved once: a table the C side never frees or changes.
    struct Library: @unchecked Sendable {
        // @unchecked Sendable: the table is immutable once procflow_curl_open returns it.
        let functions: OpaquePointer
    }

    private let names: [String]
    private let library = Locked<Result<Library, StepError>?>(nil)

    /// A transport that loads the first of `names` that `dlopen` finds.
    init(libraryNames names: [String] = CurlTransport.libraryNames) {
        self.names = names
    }

    /// Sends `request` on a thread of its own; the returned closure cancels it.
    public func send(
        _ request: HTTPRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, StepError>) -> Void
    ) -> @Sendable () -> Void {
        let transfer: CurlTransfer
        switch loadedLibrary() {
        case .failure(let error):
            completion(.failure(error))
            return {}
        case .success(let library):
            guard let created = CurlTransfer(library: library) else {
                completion(.failure(StepError(.httpTransport, "libcurl could not start a request")))
                return {}
            }
            transfer = created
        }
        Thread { completion(transfer.perform(request)) }.start()
        return { transfer.cancel() }
    }

    /// A transfer of its own for a client that sends many requests one after another on one
    /// thread (its connections are kept and reused); a failure if libcurl cannot be loaded.
    func makeTransfer() -> Result<CurlTransfer, StepError> {
        loadedLibrary().flatMap { library in
            CurlTransfer(library: library).map(Result.success)
                ?? .failure(StepError(.httpTransport, "libcurl could not start a request"))
        }
    }

    /// The library, loaded by the first call; a failure is kept, so that every HTTP step says
    /// the same thing.
    private func loadedLibrary() -> Result<Library, StepError> {
        library.withLock { loaded in
            if let loaded { return loaded }
            let result = Self.open(names)
            loaded = result
            return result
        }
    }

    private static func open(_ names: [String]) -> Result<Library, StepError> {
        let copies = names.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let capacity = 512
        var error = [CChar](repeating: 0, count: capacity)
        let functions = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { names in
            procflow_curl_open(names.baseAddress, names.count, &error, capacity)
        }
        if let functions { return .success(Library(functions: functions)) }
        let reason = String(
            decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .failure(
            StepError(
                .httpTransport,
                "HTTP steps need libcurl, which could not be loaded (\(reason)): install it "
                    + "(apt-get install libcurl4, dnf install libcurl, apk add libcurl)"))
    }
}
