extension Workflow {
    /// The most bytes one workflow file, included file or dotenv file may hold: 16 MiB, a
    /// thousand times a large hand-written workflow. A bigger file, or one that is not a
    /// regular file, is an error rather than a read without end.
    public static let maximumFileSize = 16 << 20

    /// The most files loading a workflow reads, each counted every time it is read: the
    /// workflow file, the files it includes (and they include), and their dotenv files.
    public static let maximumFilesRead = 10_000

    /// The most bytes loading a workflow reads, each file counted every time it is read.
    public static let maximumBytesRead = 64 << 20

    /// The most instances one `forEach` makes: its list's items, its matrix's combinations, or
    /// the items a wire gives it at run time.
    public static let maximumInstancesPerForEach = 100_000

    /// The most axes a `forEach` matrix has: each combination is an object of that many
    /// fields, so axes multiply what every instance holds.
    public static let maximumMatrixAxes = 32

    /// The most procedures the `forEach` steps of a workflow make when it is loaded, all
    /// together: each instance counts once for itself and once for every procedure it holds.
    /// Many `forEach` steps, or one around a large group, multiply.
    public static let maximumInstances = 1_000_000

    /// The most text the `forEach` instances of a workflow fill their items into when it is
    /// loaded, all together: each instance counts the bytes of its fields that name the item.
    /// A large `content` naming `${item}`, made once per item, would otherwise multiply.
    public static let maximumInstanceText = 64 << 20
}
