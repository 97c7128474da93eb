extension Workflow {
    /// The most bytes one workflow file, included file or dotenv file may hold: 16 MiB, a
    /// thousand times a large hand-written workflow. A bigger file, or one that is not a
    /// regular file, is an error rather than a read without end.
    public static let maximumFileSize = 16 << 20
}
