import Foundation

/// Decoding a service: `"service": true`, and how it tells it is `ready`.
extension WorkflowDecoder {
    /// The fields a service cannot have, each with why.
    static let serviceConflicts: [(field: String, reason: String)] = [
        ("forEach", "a service runs once"),
        ("retry", "a service is not retried; \"ready\": {\"timeout\": …} bounds its start"),
        (
            "timeout",
            "a service runs until its dependents are done; \"ready\": {\"timeout\": …} bounds its start"
        ),
        ("output", "a service's stdout never ends, so it gives no output (its lines are printed)"),
        ("sources", "a service runs every time: it cannot be incremental"),
        ("generates", "a service runs every time: it cannot be incremental"),
        ("depfile", "a service runs every time: it cannot be incremental"),
        ("cache", "a service runs every time: it cannot be incremental"),
        ("cacheKey", "a service runs every time: it cannot be incremental"),
    ]

    /// Reports the fields of a shell procedure that says `"service": true` that a service
    /// cannot have, and an `executor` other than `"local"`; leaves them to be read as usual.
    func refuseServiceConflicts(_ object: ObjectReader) {
        guard case .bool(true)? = object.peek("service")?.node.value else { return }
        for (field, reason) in Self.serviceConflicts {
            guard let (node, pointer) = object.peek(field) else { continue }
            report.error("a service cannot have \"\(field)\": \(reason)", at: node.offset, pointer)
        }
        if let (node, pointer) = object.peek("executor"), node.plain != .string("local") {
            report.error(
                "a service runs on this machine: its \"executor\" can only be \"local\"",
                at: node.offset, pointer)
        }
    }

    /// `service` and `ready`: what makes a shell step a service, or `nil` if it is not one.
    func decodeService(_ object: inout ObjectReader) -> Service? {
        let isService = object.bool("service") ?? false
        guard let (node, pointer) = object.node("ready") else {
            return isService ? Service() : nil
        }
        guard isService else {
            report.error(
                "\"ready\" applies to a service: add \"service\": true", at: node.offset, pointer)
            return nil
        }
        guard
            var ready = ObjectReader(
                node, at: pointer, report: report,
                expected: "an object such as {\"port\": 5432} or {\"log\": \"ready\"}")
        else { return nil }
        var service = Service()
        service.timeout =
            ready.number("timeout", in: 0.001...Double.greatestFiniteMagnitude)
            ?? Service.defaultTimeout
        let kinds = WorkflowFields.readinessKinds.filter { ready.has($0) }
        if kinds.count > 1 {
            report.error(
                "give one of \(WorkflowFields.list(kinds.map { "\"\($0)\"" })), not \(kinds.count)",
                at: node.offset, pointer)
        }
        switch kinds.first {
        case "port": service.ready = decodePort(&ready).map(Service.Readiness.port) ?? .started
        case "http":
            service.ready =
                ready.string("http", nonEmpty: true, substitute: true).map(Service.Readiness.http)
                ?? .started
        case "log": service.ready = decodeLogPattern(&ready).map(Service.Readiness.log) ?? .started
        case "command":
            service.ready =
                ready.string("command", nonEmpty: true, substitute: true)
                .map(Service.Readiness.command) ?? .started
        default:
            ready.missing(
                "port",
                " (or \"http\", \"log\", \"command\"): how procflow knows the service is ready")
        }
        for kind in kinds.dropFirst() { _ = ready.node(kind) }
        ready.reportUnread(
            in: "\"ready\"", allowed: WorkflowFields.readinessKinds + ["timeout"])
        return service
    }

    /// `port`: a number, or a string such as `"${port}"` that becomes one, from 1 to 65535.
    private func decodePort(_ object: inout ObjectReader) -> Int? {
        guard case .string = object.peek("port")?.node.value else {
            return object.integer("port", in: 1...65535)
        }
        let (node, pointer) = object.peek("port")!
        guard let text = object.string("port", substitute: true) else { return nil }
        guard let port = Int(text), (1...65535).contains(port) else {
            report.error(
                "\"\(text)\" is not a port: expected a whole number from 1 to 65535",
                at: node.offset, pointer)
            return nil
        }
        return port
    }

    /// `log`: a regular expression that must compile.
    private func decodeLogPattern(_ object: inout ObjectReader) -> String? {
        guard let (node, pointer) = object.peek("log"),
            let pattern = object.string("log", nonEmpty: true)
        else { return nil }
        do {
            _ = try NSRegularExpression(pattern: pattern)
        } catch {
            report.error(
                "\"\(pattern)\" is not a valid regular expression", at: node.offset, pointer)
            return nil
        }
        return pattern
    }
}
