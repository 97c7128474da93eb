/// A loaded workflow as bytes and back, for its plan file (``WorkflowPlan``): every field of
/// the workflow model, in a fixed order, with ``BinaryWriter``'s integers and texts.
///
/// A field added to the model must be added here, in both directions: the round-trip test
/// (`WorkflowPlanTests`) compares every stored field of every workflow it loads, by
/// reflection, and fails for one left out.
final class WorkflowEncoder {
    // Unchecked: an encoder is used by one thread, and its methods never overlap their
    // accesses; the checks were a tenth of the work.
    @exclusivity(unchecked) private(set) var writer: BinaryWriter
    /// The tokens of the pointer written last.
    @exclusivity(unchecked) private var previousPointer: [String] = []

    /// An encoder appending to `writer`.
    init(_ writer: BinaryWriter = BinaryWriter()) {
        self.writer = writer
    }

    /// What it wrote, handed over without a copy: the encoder is done.
    func finished() -> [UInt8] {
        var done = BinaryWriter()
        swap(&done, &writer)
        return done.finished()
    }

    /// Appends every field of `workflow` but its source map, which the plan keeps apart.
    func workflow(_ workflow: Workflow) {
        text(workflow.path)
        text(workflow.name)
        optional(workflow.description, text)
        pairs(workflow.variables)
        pairs(workflow.environment)
        pairs(workflow.dotenv)
        pairs(workflow.dotenvFiles.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        array(workflow.secrets.sorted(), text)
        pairs(workflow.includedValues)
        optional(workflow.maxConcurrency, int)
        array(workflow.cacheKey, keyPart)
        optional(workflow.executor, text)
        steps(workflow.steps)
        array(workflow.stepsLeftOut.sorted(), text)
    }

    private func steps(_ steps: [Step]) {
        array(steps, step)
    }

    private func step(_ step: Step) {
        text(step.id)
        optional(step.description, text)
        kind(step.kind)
        array(step.dependsOn, reference)
        optional(step.input, wire)
        optional(step.when, condition)
        array(step.mutex, text)
        optional(step.retry, retry)
        optional(step.timeout, double)
        writer.write(step.continueOnError)
        writer.write(step.always)
        optional(step.forEach, forEach)
        optional(step.image, text)
        caching(step.caching)
        placement(step.placement)
        pointer(step.pointer)
        int(step.offset)
    }

    private func kind(_ kind: Step.Kind) {
        switch kind {
        case .shell(let shell):
            tag(0)
            switch shell.command {
            case .script(let script):
                tag(0)
                text(script)
            case .argv(let words):
                tag(1)
                array(words, text)
            }
            switch shell.interpreter {
            case .sh: tag(0)
            case .bash: tag(1)
            case .python3: tag(2)
            case .command(let prefix):
                tag(3)
                array(prefix, text)
            }
            optional(shell.cwd, text)
            pairs(shell.environment)
            array(shell.inputs) { input in
                self.text(input.name)
                self.wire(input.wire)
            }
            format(shell.output)
            optional(shell.service) { service in
                switch service.ready {
                case .started: self.tag(0)
                case .port(let port):
                    self.tag(1)
                    self.int(port)
                case .http(let url):
                    self.tag(2)
                    self.text(url)
                case .log(let pattern):
                    self.tag(3)
                    self.text(pattern)
                case .command(let script):
                    self.tag(4)
                    self.text(script)
                }
                self.double(service.timeout)
            }
            writer.write(shell.jobserver)
        case .http(let http):
            tag(1)
            text(http.method)
            text(http.url)
            pairs(http.headers)
            optional(http.body, value)
            array(http.expect, int)
            format(http.output)
        case .file(let operation):
            tag(2)
            file(operation)
        case .group(let group):
            tag(3)
            steps(group.steps)
            optional(group.inputTo, reference)
            optional(group.outputFrom, reference)
            optional(group.maxConcurrency, int)
            optional(group.includedFrom, text)
        case .branch(let branch):
            tag(4)
            wire(branch.on)
            array(branch.cases) { branchCase in
                self.value(branchCase.equals)
                self.steps(branchCase.steps)
            }
            steps(branch.otherwise)
        }
    }

    private func file(_ operation: FileOperation) {
        switch operation {
        case .read(let path, let format):
            tag(0)
            text(path)
            self.format(format)
        case .write(let path, let content):
            tag(1)
            text(path)
            optional(content, text)
        case .copy(let source, let destination):
            tag(2)
            text(source)
            text(destination)
        case .render(let template, let path):
            tag(3)
            switch template {
            case .file(let name):
                tag(0)
                text(name)
            case .text(let body):
                tag(1)
                text(body)
            }
            optional(path, text)
        case .select(let pointer):
            tag(4)
            self.pointer(pointer)
        case .replace(let find, let replacement):
            tag(5)
            text(find)
            text(replacement)
        case .concat(let paths, let path):
            tag(6)
            array(paths, text)
            optional(path, text)
        }
    }

    private func condition(_ condition: StepCondition) {
        switch condition {
        case .environment(let name, let equals):
            tag(0)
            text(name)
            optional(equals, text)
        case .exists(let path):
            tag(1)
            text(path)
        case .command(let script):
            tag(2)
            text(script)
        case .output(let wire, let equals):
            tag(3)
            self.wire(wire)
            value(equals)
        case .not(let inner):
            tag(4)
            self.condition(inner)
        case .all(let conditions):
            tag(5)
            array(conditions, self.condition)
        case .any(let conditions):
            tag(6)
            array(conditions, self.condition)
        }
    }

    private func retry(_ retry: Retry) {
        int(retry.attempts)
        text(retry.backoff.rawValue)
        double(retry.delay)
        optional(retry.maxDelay, double)
        double(retry.jitter)
    }

    private func forEach(_ forEach: ForEach) {
        switch forEach.items {
        case .values(let values):
            tag(0)
            array(values, value)
        case .matrix(let axes):
            tag(1)
            array(axes) { axis in
                self.text(axis.name)
                self.array(axis.values, value)
            }
        case .wire(let wire):
            tag(2)
            self.wire(wire)
        }
        text(forEach.variable)
        optional(forEach.name, text)
        optional(forEach.only.map { $0.sorted() }) { only in self.array(only, int) }
        pointer(forEach.pointer)
        int(forEach.offset)
    }

    private func caching(_ caching: Caching) {
        array(caching.sources, pattern)
        array(caching.generates, pattern)
        array(Array(caching.generatesOffsets), int)
        optional(caching.depfile, text)
        optional(caching.cache) { cache in self.writer.write(cache) }
        array(caching.keyParts, keyPart)
    }

    private func placement(_ placement: Placement) {
        // Most steps place nothing.
        let placesNothing = placement == Placement()
        writer.write(placesNothing)
        if placesNothing { return }
        optional(placement.executor, text)
        optional(placement.resources.cpus, int)
        optional(placement.resources.memory, int)
        optional(placement.resources.time, double)
        optional(placement.resources.gpus, int)
        optional(placement.slurm.partition, text)
        optional(placement.slurm.account, text)
        optional(placement.slurm.qos, text)
        optional(placement.slurm.extraArgs) { words in self.array(words, text) }
        optional(placement.slurm.pendingTimeout, double)
    }

    private func keyPart(_ part: CacheKeyPart) {
        switch part {
        case .text(let value):
            tag(0)
            text(value)
        case .command(let command):
            tag(1)
            text(command)
        case .file(let path):
            tag(2)
            text(path)
        }
    }

    /// A pattern without wildcards by its text alone; another by its text, parsed again.
    private func pattern(_ pattern: GlobPattern) {
        writer.write(pattern.components.isEmpty)
        text(pattern.text)
    }

    private func reference(_ reference: Reference) {
        text(reference.id)
        pointer(reference.pointer)
        int(reference.offset)
    }

    private func wire(_ wire: Wire) {
        reference(wire.from)
        optional(wire.select, pointer)
        pointer(wire.pointer)
        int(wire.offset)
    }

    /// A pointer, as how many of its first tokens the pointer written before has too, and
    /// the tokens that follow: a step's pointers share their beginnings, which the reader
    /// then shares too.
    private func pointer(_ pointer: JSONPointer) {
        let tokens = pointer.tokens
        var shared = 0
        while shared < min(tokens.count, previousPointer.count),
            tokens[shared] == previousPointer[shared]
        {
            shared += 1
        }
        writer.write(UInt32(shared))
        writer.write(UInt32(tokens.count - shared))
        for token in tokens[shared...] { text(token) }
        previousPointer = tokens
    }

    private func value(_ value: JSONValue) {
        switch value {
        case .null: tag(0)
        case .bool(let flag):
            tag(1)
            writer.write(flag)
        case .number(let number):
            tag(2)
            double(number)
        case .string(let string):
            tag(3)
            text(string)
        case .array(let items):
            tag(4)
            array(items, self.value)
        case .object(let members):
            tag(5)
            array(members.sorted { $0.key < $1.key }) { member in
                self.text(member.key)
                self.value(member.value)
            }
        }
    }

    private func format(_ format: OutputFormat) {
        text(format.rawValue)
    }

    // MARK: - Shapes

    private func tag(_ tag: UInt8) {
        writer.write(UInt32(tag))
    }

    private func text(_ text: String) {
        writer.write(text)
    }

    private func int(_ value: Int) {
        writer.write(Int64(value))
    }

    private func double(_ value: Double) {
        writer.write(value.bitPattern)
    }

    private func pairs(_ pairs: [(name: String, value: String)]) {
        array(pairs) { pair in
            self.text(pair.name)
            self.text(pair.value)
        }
    }

    private func optional<T>(_ value: T?, _ write: (T) -> Void) {
        writer.write(value != nil)
        if let value { write(value) }
    }

    private func array<T>(_ values: [T], _ write: (T) -> Void) {
        writer.write(UInt32(values.count))
        for value in values { write(value) }
    }

}

/// Reads what a ``WorkflowEncoder`` wrote. Damage (a count past the end, an unknown tag, a
/// pattern that does not parse) throws ``BinaryReader/Truncated``, as a short file does.
final class WorkflowDecoding {
    typealias Damaged = BinaryReader.Truncated

    // Unchecked: see ``WorkflowEncoder/writer``.
    @exclusivity(unchecked) var reader: BinaryReader
    /// The pointer read last, and each of its beginnings: `previousPointer[i]` is its first
    /// `i + 1` tokens, its last ones inline while they fit (``JSONPointer/appending(_:)``), as
    /// the loader makes them: a token read allocates one link of a chain at most.
    @exclusivity(unchecked) private var previousPointer: [JSONPointer] = []
    /// How deep the steps, conditions and JSON values being read nest: no workflow nests
    /// deeper than its JSON does, so a plan that does is damaged (and must not exhaust the
    /// stack).
    @exclusivity(unchecked) private var nesting = 0

    init(_ reader: BinaryReader) {
        self.reader = reader
    }

    /// The workflow the encoder's `workflow(_:)` wrote, without its source map.
    func workflow() throws(Damaged) -> Workflow {
        let path = try text()
        let name = try text()
        let description = try optional(text)
        let variables = try pairs()
        let environment = try pairs()
        var workflow = Workflow(
            path: path, name: name, description: description, variables: variables,
            environment: environment, steps: [])
        workflow.dotenv = try pairs()
        workflow.dotenvFiles = Dictionary(try pairs(), uniquingKeysWith: { _, last in last })
        workflow.secrets = Set(try array(text))
        workflow.includedValues = try pairs()
        workflow.maxConcurrency = try optional(int)
        workflow.cacheKey = try array(keyPart)
        workflow.executor = try optional(text)
        workflow.steps = try steps()
        workflow.stepsLeftOut = Set(try array(text))
        return workflow
    }

    private func steps() throws(Damaged) -> [Step] {
        try nested { () throws(Damaged) in try array(step) }
    }

    private func nested<T>(_ read: () throws(Damaged) -> T) throws(Damaged) -> T {
        guard nesting < 2 * JSONParser.maximumDepth else { throw Damaged() }
        nesting += 1
        defer { nesting -= 1 }
        return try read()
    }

    private func step() throws(Damaged) -> Step {
        let id = try text()
        let description = try optional(text)
        let kind = try kind()
        let dependsOn = try array(reference)
        let input = try optional(wire)
        let when = try optional(condition)
        let mutex = try array(text)
        let retry = try optional(retry)
        let timeout = try optional(double)
        let continueOnError = try reader.bool()
        let always = try reader.bool()
        let forEach = try optional(forEach)
        let image = try optional(text)
        let caching = try caching()
        let placement = try placement()
        let pointer = try pointer()
        let offset = try int()
        return Step(
            id: id, description: description, kind: kind, dependsOn: dependsOn, input: input,
            when: when, mutex: mutex, retry: retry, timeout: timeout,
            continueOnError: continueOnError, always: always, forEach: forEach, image: image,
            caching: caching, placement: placement, pointer: pointer, offset: offset)
    }

    private func kind() throws(Damaged) -> Step.Kind {
        switch try tag() {
        case 0:
            let command: Shell.Command
            switch try tag() {
            case 0: command = .script(try text())
            case 1: command = .argv(try array(text))
            default: throw Damaged()
            }
            var shell = Shell(command: command, environment: [], inputs: [], output: .none)
            switch try tag() {
            case 0: shell.interpreter = .sh
            case 1: shell.interpreter = .bash
            case 2: shell.interpreter = .python3
            case 3: shell.interpreter = .command(try array(text))
            default: throw Damaged()
            }
            shell.cwd = try optional(text)
            shell.environment = try pairs()
            shell.inputs = try array { () throws(Damaged) in
                (name: try self.text(), wire: try self.wire())
            }
            shell.output = try format()
            shell.service = try optional { () throws(Damaged) in
                var service = Service()
                switch try self.tag() {
                case 0: service.ready = .started
                case 1: service.ready = .port(try self.int())
                case 2: service.ready = .http(try self.text())
                case 3: service.ready = .log(try self.text())
                case 4: service.ready = .command(try self.text())
                default: throw Damaged()
                }
                service.timeout = try self.double()
                return service
            }
            shell.jobserver = try reader.bool()
            return .shell(shell)
        case 1:
            let method = try text()
            let url = try text()
            let headers = try pairs()
            let body = try optional(value)
            let expect = try array(int)
            return .http(
                HTTP(
                    method: method, url: url, headers: headers, body: body, expect: expect,
                    output: try format()))
        case 2:
            return .file(try file())
        case 3:
            var group = Group(
                steps: try steps(), inputTo: try optional(reference),
                outputFrom: try optional(reference), maxConcurrency: try optional(int))
            group.includedFrom = try optional(text)
            return .group(group)
        case 4:
            let on = try wire()
            let cases = try array { () throws(Damaged) in
                Branch.Case(equals: try self.value(), steps: try self.steps())
            }
            return .branch(Branch(on: on, cases: cases, otherwise: try steps()))
        default:
            throw Damaged()
        }
    }

    private func file() throws(Damaged) -> FileOperation {
        switch try tag() {
        case 0: return .read(path: try text(), format: try format())
        case 1: return .write(path: try text(), content: try optional(text))
        case 2: return .copy(source: try text(), destination: try text())
        case 3:
            let template: FileOperation.Template
            switch try tag() {
            case 0: template = .file(try text())
            case 1: template = .text(try text())
            default: throw Damaged()
            }
            return .render(template: template, path: try optional(text))
        case 4: return .select(pointer: try pointer())
        case 5: return .replace(find: try text(), replacement: try text())
        case 6: return .concat(paths: try array(text), path: try optional(text))
        default: throw Damaged()
        }
    }

    private func condition() throws(Damaged) -> StepCondition {
        try nested { () throws(Damaged) in try conditionHere() }
    }

    private func conditionHere() throws(Damaged) -> StepCondition {
        switch try tag() {
        case 0: return .environment(name: try text(), equals: try optional(text))
        case 1: return .exists(path: try text())
        case 2: return .command(try text())
        case 3: return .output(try wire(), equals: try value())
        case 4: return .not(try condition())
        case 5: return .all(try array(condition))
        case 6: return .any(try array(condition))
        default: throw Damaged()
        }
    }

    private func retry() throws(Damaged) -> Retry {
        let attempts = try int()
        guard let backoff = Retry.Backoff(rawValue: try text()) else { throw Damaged() }
        return Retry(
            attempts: attempts, backoff: backoff, delay: try double(),
            maxDelay: try optional(double), jitter: try double())
    }

    private func forEach() throws(Damaged) -> ForEach {
        let items: ForEach.Items
        switch try tag() {
        case 0: items = .values(try array(value))
        case 1:
            items = .matrix(
                try array { () throws(Damaged) in
                    (name: try self.text(), values: try self.array(value))
                })
        case 2: items = .wire(try wire())
        default: throw Damaged()
        }
        let variable = try text()
        let name = try optional(text)
        let only = try optional { () throws(Damaged) in Set(try self.array(int)) }
        return ForEach(
            items: items, variable: variable, name: name, only: only, pointer: try pointer(),
            offset: try int())
    }

    private func caching() throws(Damaged) -> Caching {
        var caching = Caching()
        caching.sources = try array(pattern)
        caching.generates = try array(pattern)
        caching.generatesOffsets = OneOrMore(try array(int))
        caching.depfile = try optional(text)
        caching.cache = try optional { () throws(Damaged) in try self.reader.bool() }
        caching.keyParts = try array(keyPart)
        return caching
    }

    private func placement() throws(Damaged) -> Placement {
        if try reader.bool() { return Placement() }
        let executor = try optional(text)
        let resources = Resources(
            cpus: try optional(int), memory: try optional(int),
            time: try optional(double), gpus: try optional(int))
        let slurm = SlurmSettings(
            partition: try optional(text), account: try optional(text),
            qos: try optional(text),
            extraArgs: try optional { () throws(Damaged) in try self.array(text) },
            pendingTimeout: try optional(double))
        return Placement(executor: executor, resources: resources, slurm: slurm)
    }

    private func keyPart() throws(Damaged) -> CacheKeyPart {
        switch try tag() {
        case 0: return .text(try text())
        case 1: return .command(try text())
        case 2: return .file(try text())
        default: throw Damaged()
        }
    }

    private func pattern() throws(Damaged) -> GlobPattern {
        let literal = try reader.bool()
        let text = try text()
        do {
            return literal ? try GlobPattern(literal: text) : try GlobPattern(text)
        } catch {
            throw Damaged()
        }
    }

    private func reference() throws(Damaged) -> Reference {
        Reference(id: try text(), pointer: try pointer(), offset: try int())
    }

    private func wire() throws(Damaged) -> Wire {
        Wire(
            from: try reference(), select: try optional(pointer), pointer: try pointer(),
            offset: try int())
    }

    /// See ``WorkflowEncoder``'s `pointer(_:)`.
    private func pointer() throws(Damaged) -> JSONPointer {
        let shared = Int(try reader.uint32())
        guard shared <= previousPointer.count else { throw Damaged() }
        previousPointer.removeSubrange(shared...)
        for _ in 0..<(try reader.count(minimumSize: 4)) {
            let extended = (previousPointer.last ?? .root).appending(try text())
            previousPointer.append(extended)
        }
        return previousPointer.last ?? .root
    }

    private func value() throws(Damaged) -> JSONValue {
        try nested { () throws(Damaged) in try valueHere() }
    }

    private func valueHere() throws(Damaged) -> JSONValue {
        switch try tag() {
        case 0: return .null
        case 1: return .bool(try reader.bool())
        case 2: return .number(try double())
        case 3: return .string(try text())
        case 4: return .array(try array(value))
        case 5:
            var members: [String: JSONValue] = [:]
            let count = try reader.count(minimumSize: 8)
            members.reserveCapacity(count)
            for _ in 0..<count { members[try text()] = try value() }
            return .object(members)
        default: throw Damaged()
        }
    }

    private func format() throws(Damaged) -> OutputFormat {
        guard let format = OutputFormat(rawValue: try text()) else { throw Damaged() }
        return format
    }

    // MARK: - Shapes

    private func tag() throws(Damaged) -> UInt32 {
        try reader.uint32()
    }

    private func text() throws(Damaged) -> String {
        try reader.string()
    }

    private func int() throws(Damaged) -> Int {
        Int(try reader.int64())
    }

    private func double() throws(Damaged) -> Double {
        Double(bitPattern: try reader.uint64())
    }

    private func pairs() throws(Damaged) -> [(name: String, value: String)] {
        try array { () throws(Damaged) in (name: try self.text(), value: try self.text()) }
    }

    private func optional<T>(_ read: () throws(Damaged) -> T)
        throws(Damaged) -> T?
    {
        try reader.bool() ? try read() : nil
    }

    /// An array; every item takes at least 4 bytes (a count, a tag or a text's length).
    private func array<T>(_ read: () throws(Damaged) -> T) throws(Damaged)
        -> [T]
    {
        let count = try reader.count(minimumSize: 1)
        var items: [T] = []
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(try read()) }
        return items
    }

}
