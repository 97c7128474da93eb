import Foundation

/// Sends HTTP requests for ``HTTPProcedure``.
public protocol HTTPTransport: Sendable {
    /// Sends `request`; calls `completion` once, on any thread, with the response or a
    /// one-line reason it could not be had. The returned closure cancels the request.
    func send(
        _ request: HTTPRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, StepError>) -> Void
    ) -> @Sendable () -> Void
}
