/// Decoding `when` and `retry`.
extension WorkflowDecoder {
    func decodeCondition(_ node: JSONNode, at pointer: JSONPointer) -> StepCondition? {
        guard
            var object = ObjectReader(
                node, at: pointer, report: report, expected: "a condition object")
        else { return nil }
        let forms = ["env", "exists", "command", "output", "not", "all", "any"].filter(object.has)
        guard forms.count == 1, let form = forms.first else {
            let message =
                forms.isEmpty
                ? "a condition needs one of \"env\", \"exists\", \"command\", \"output\", \"not\", \"all\", \"any\""
                : "a condition has exactly one of \(forms.map { "\"\($0)\"" }.joined(separator: ", ")); combine them with \"all\" or \"any\""
            report.error(message, at: object.offset, pointer)
            if forms.isEmpty {
                object.reportUnread(in: "a condition", allowed: WorkflowFields.conditionFields)
            }
            return nil
        }
        var condition: StepCondition?
        switch form {
        case "env":
            let name = object.string("env", nonEmpty: true)
            let equals = object.string("equals", substitute: true)
            condition = name.map { .environment(name: $0, equals: equals) }
            object.reportUnread(in: "an \"env\" condition", allowed: ["env", "equals"])
        case "exists":
            condition = object.string("exists", nonEmpty: true, substitute: true).map(
                StepCondition.exists)
            object.reportUnread(in: "an \"exists\" condition", allowed: ["exists"])
        case "command":
            condition = object.string("command", nonEmpty: true).map(StepCondition.command)
            object.reportUnread(in: "a \"command\" condition", allowed: ["command"])
        case "output":
            let wire = object.node("output").flatMap { decodeWire($0.node, at: $0.pointer) }
            let equals = object.node("equals")?.node.plain
            if equals == nil { object.missing("equals", ": the value to compare the output with") }
            if let wire, let equals { condition = .output(wire, equals: equals) }
            object.reportUnread(in: "an \"output\" condition", allowed: ["output", "equals"])
        case "not":
            condition = object.node("not").flatMap { decodeCondition($0.node, at: $0.pointer) }.map(
                StepCondition.not)
            object.reportUnread(in: "a \"not\" condition", allowed: ["not"])
        default:  // all, any
            let (listNode, listPointer) = object.node(form)!
            if case .array(let items) = listNode.value, !items.isEmpty {
                let parts = items.enumerated().compactMap {
                    decodeCondition($1, at: listPointer.appending($0))
                }
                if parts.count == items.count {
                    condition = form == "all" ? .all(parts) : .any(parts)
                }
            } else {
                report.error(
                    "expected a non-empty array of conditions", at: listNode.offset, listPointer)
            }
            object.reportUnread(in: "an \"\(form)\" condition", allowed: [form])
        }
        return condition
    }

    func decodeRetry(_ node: JSONNode, at pointer: JSONPointer) -> Retry? {
        guard
            var object = ObjectReader(
                node, at: pointer, report: report,
                expected: "a retry object such as {\"attempts\": 3}")
        else { return nil }
        let attempts = object.integer("attempts", in: 1...1000, required: true)
        let backoff = object.choice("backoff", of: Retry.Backoff.self) ?? .exponential
        let delay = object.number("delay", in: 0...86_400) ?? 1
        let maxDelay = object.number("maxDelay", in: 0...86_400)
        let jitter = object.number("jitter", in: 0...1) ?? 0
        object.reportUnread(
            in: "a retry", allowed: ["attempts", "backoff", "delay", "maxDelay", "jitter"])
        guard let attempts else { return nil }
        return Retry(
            attempts: attempts, backoff: backoff, delay: delay, maxDelay: maxDelay, jitter: jitter)
    }
}
