/// What loading one workflow may read, all its files together: each workflow, included and
/// dotenv file counts every time it is read. One file is bounded by
/// ``Workflow/maximumFileSize``; this bounds how often files are read, so that a file that
/// includes another twice, which includes another twice, and so on, doubling at each level,
/// is an error rather than a load without end.
final class ReadBudget {
    /// The files read so far, and their bytes.
    private(set) var files = 0
    private(set) var bytes = 0
    /// Whether a file was refused: that is reported once, and nothing more is read.
    private(set) var isSpent = false

    /// Counts a file of `size` bytes read, `name`d as the subject of a sentence ("the
    /// included file a.json"); returns what is wrong if it takes the workflow past a limit.
    func take(_ size: Int, for name: String) -> String? {
        files += 1
        bytes += size
        let what = "(each file counted every time it is included or read)"
        if files > Workflow.maximumFilesRead {
            isSpent = true
            return
                "with \(name), the workflow reads \(formatCount(files)) files \(what); a workflow reads at most \(formatCount(Workflow.maximumFilesRead))"
        }
        if bytes > Workflow.maximumBytesRead {
            isSpent = true
            return
                "with \(name), the workflow reads \(formatSizeRoundedUp(bytes)) \(what); a workflow reads at most \(formatBytes(Workflow.maximumBytesRead))"
        }
        return nil
    }
}
