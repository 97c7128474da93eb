/// The sources a step's depfile names, as a run records them.
enum DepfileSources {
    /// The files the depfile of `step`, which started at `startedAt` (nanoseconds since 1970),
    /// names besides the sources `declared`, with their digests now; a file that may have
    /// changed while the step ran is recorded as unknown, so that the next run runs the step.
    ///
    /// - Throws: a ``CacheProblem`` when the depfile is missing or not in Makefile syntax.
    static func read(
        of step: IncrementalStep, declared: StepRecord, startedAt: Int64, files: FileDigests
    ) throws(CacheProblem) -> [StepRecord.Source] {
        guard let depfile = step.depfile else { return [] }
        let bytes: [UInt8]
        switch POSIXIO.readFile(depfile) {
        case .success(let contents): bytes = contents
        case .failure(let failure):
            throw CacheProblem(
                message: "cannot read its depfile \(step.display(depfile)): \(failure.message)")
        }
        let names: [String]
        do {
            names = try Depfile.prerequisites(in: bytes)
        } catch {
            throw CacheProblem(
                message:
                    "its depfile \(step.display(depfile)) is not in Makefile syntax: \(error.message)"
            )
        }
        let declaredPaths = Set(declared.sources.map(\.path))
        var discovered: [StepRecord.Source] = []
        for path in Set(names.map { resolve($0, in: step.directory) }).sorted()
        where !declaredPaths.contains(path) {
            let status = FileSystem.status(path)
            // May have changed while the step ran: the next run must not take it for what
            // was read.
            if let status, status.mayHaveChanged(since: startedAt) {
                discovered.append(StepRecord.Source(path: path, digest: .unknown))
                continue
            }
            let seen = files.observe(path, status: status, recorded: nil)
            discovered.append(
                StepRecord.Source(path: path, digest: seen.digest, status: seen.status))
        }
        return discovered
    }
}
