#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reading the files a workflow is made of: the workflow file, the files it includes and its
/// dotenv files. Each must be a regular file of at most ``maximumSize`` bytes, so that a
/// device, a FIFO or a huge file named in a workflow is an error rather than a hang or
/// exhausted memory.
enum WorkflowFile {
    /// The most bytes one may hold.
    static let maximumSize = Workflow.maximumFileSize

    /// Why a file could not be read, as a sentence.
    struct Problem: Error {
        let message: String
        /// Whether the file does not exist (an optional dotenv file may be missing).
        let isMissing: Bool
    }

    /// The bytes of the file at `path`.
    ///
    /// - Parameters:
    ///   - name: the file as a problem names it, as the subject of a sentence: "the included
    ///     file ci/a.json".
    ///   - kind: what such files are called in plural, for the size limit: "workflow files".
    static func read(_ path: String, named name: String, kind: String = "workflow files")
        -> Result<[UInt8], Problem>
    {
        switch POSIXIO.readRegularFile(path, limit: maximumSize) {
        case .success(let bytes):
            return .success(bytes)
        case .failure(.unreadable(let failure)):
            return .failure(
                Problem(
                    message: "cannot read \(name): \(failure.message)",
                    isMissing: failure.code == ENOENT))
        case .failure(.notRegular(let type)):
            return .failure(
                Problem(message: "\(name) is \(type), not a regular file", isMissing: false))
        case .failure(.tooLarge(let size)):
            let limit = formatBytes(maximumSize)
            let shown = size.map(formatSizeRoundedUp) ?? "more than \(limit)"
            return .failure(
                Problem(
                    message: "\(name) is \(shown); \(kind) are limited to \(limit)",
                    isMissing: false))
        }
    }
}
