/// Decoding where shell steps run: `executor`, `resources` and `slurm`, on the workflow, a
/// group or a shell step.
extension WorkflowDecoder {
    static let resourceFields = ["cpus", "memory", "time", "gpus"]
    static let slurmFields = ["partition", "account", "qos", "extraArgs", "pendingTimeout"]

    /// The fields as this object gives them (nothing inherited).
    func decodePlacement(_ object: inout ObjectReader) -> Placement {
        var placement = Placement()
        if let (node, pointer) = object.node("executor") {
            let names = CommandExecutors.names
            if case .string(let name) = node.value, names.contains(name) {
                placement.executor = name
            } else if case .string(let name) = node.value {
                report.error(
                    "unknown executor \"\(name)\": expected one of \(names.map { "\"\($0)\"" }.joined(separator: ", "))\(Suggestion.hint(for: name, in: names))",
                    at: node.offset, pointer)
            } else {
                report.error(
                    "expected an executor name, found \(node.typeDescription)", at: node.offset,
                    pointer)
            }
        }
        if let (node, pointer) = object.node("resources"),
            var fields = ObjectReader(
                node, at: pointer, report: report,
                expected: "an object such as {\"cpus\": 2, \"memory\": \"4G\", \"time\": \"1h\"}")
        {
            placement.resources = decodeResources(&fields)
            fields.reportUnread(in: "resources", allowed: Self.resourceFields)
        }
        if let (node, pointer) = object.node("slurm"),
            var fields = ObjectReader(
                node, at: pointer, report: report,
                expected: "an object such as {\"partition\": \"batch\", \"account\": \"lab\"}")
        {
            placement.slurm = SlurmSettings(
                partition: fields.string("partition", nonEmpty: true, substitute: true),
                account: fields.string("account", nonEmpty: true, substitute: true),
                qos: fields.string("qos", nonEmpty: true, substitute: true),
                extraArgs: fields.strings("extraArgs", substitute: true),
                pendingTimeout: duration(&fields, "pendingTimeout"))
            fields.reportUnread(in: "slurm", allowed: Self.slurmFields)
        }
        return placement
    }

    private func decodeResources(_ fields: inout ObjectReader) -> Resources {
        var resources = Resources()
        resources.cpus = fields.integer("cpus", in: 1...100_000)
        resources.gpus = fields.integer("gpus", in: 0...10_000)
        resources.time = duration(&fields, "time")
        if let (node, pointer) = fields.node("memory") {
            switch node.value {
            case .number(let number)
            where number >= 1 && number == number.rounded()
                && number < 1e12:
                resources.memory = Int(number)
            case .string(let text):
                if let megabytes = Self.megabytes(in: text) {
                    resources.memory = megabytes
                } else {
                    report.error(
                        "\"\(text)\" is not an amount of memory: write one such as \"512M\", \"4G\" or 4096 (MiB)",
                        at: node.offset, pointer)
                }
            default:
                report.error(
                    "expected an amount of memory such as \"4G\" or a whole number of MiB, found \(node.typeDescription)",
                    at: node.offset, pointer)
            }
        }
        return resources
    }

    /// A duration: seconds as a number, or a text such as "90s", "30m", "1h30m", "2d" or
    /// "01:30:00".
    private func duration(_ fields: inout ObjectReader, _ key: String) -> Double? {
        guard let (node, pointer) = fields.node(key) else { return nil }
        switch node.value {
        case .number(let seconds) where seconds > 0 && seconds < 1e10:
            return seconds
        case .string(let text):
            if let seconds = Self.seconds(in: text), seconds > 0 { return seconds }
            report.error(
                "\"\(text)\" is not a duration: write one such as \"90s\", \"30m\", \"1h30m\", \"2d\", \"01:30:00\" or a number of seconds",
                at: node.offset, pointer)
        default:
            report.error(
                "expected a duration such as \"1h30m\" or a number of seconds above 0, found \(node.typeDescription)",
                at: node.offset, pointer)
        }
        return nil
    }

    /// MiB in "512M", "4G", "4GB", "1.5GiB", "1T", "2048K" or "300" (MiB), rounded up.
    static func megabytes(in text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let amount = Double(digits), amount > 0 else { return nil }
        var unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        for suffix in ["IB", "B"] where unit.count > 1 && unit.hasSuffix(suffix) {
            unit = String(unit.dropLast(suffix.count))
            break
        }
        let scale: Double
        switch unit {
        case "K": scale = 1.0 / 1024
        case "", "M": scale = 1
        case "G": scale = 1024
        case "T": scale = 1024 * 1024
        default: return nil
        }
        let megabytes = (amount * scale).rounded(.up)
        return megabytes < 1e12 ? Int(megabytes) : nil
    }

    /// Seconds in "90s", "30m", "1h30m", "2d12h", "1:30" (minutes:seconds) or "01:30:00".
    static func seconds(in text: String) -> Double? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text.contains(":") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count) else { return nil }
            var total = 0.0
            for part in parts {
                guard !part.isEmpty, part.allSatisfy(\.isNumber), let value = Double(part) else {
                    return nil
                }
                total = total * 60 + value
            }
            return total
        }
        var total = 0.0
        var number = ""
        var sawUnit = false
        for character in text {
            if character.isNumber || character == "." {
                number.append(character)
                continue
            }
            let scale: Double
            switch character {
            case "s": scale = 1
            case "m": scale = 60
            case "h": scale = 3600
            case "d": scale = 86_400
            default: return nil
            }
            guard let value = Double(number) else { return nil }
            total += value * scale
            number = ""
            sawUnit = true
        }
        guard number.isEmpty, sawUnit, total < 1e10 else { return nil }
        return total
    }
}
