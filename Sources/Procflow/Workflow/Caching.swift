/// What a step reads and makes, for incremental runs: its `sources`, `generates`, `depfile`
/// and `cache` fields.
public struct Caching: Sendable, Equatable {
    /// The files whose content the step's result depends on, relative to its working
    /// directory.
    public var sources: [GlobPattern] {
        get { sourcePatterns.array }
        set { sourcePatterns = OneOrMore(newValue) }
    }
    /// The files the step makes, relative to its working directory.
    public var generates: [GlobPattern] {
        get { generatedPatterns.array }
        set { generatedPatterns = OneOrMore(newValue) }
    }
    /// ``sources``, the one pattern most steps have inline: a list of one took an allocation
    /// of 64 bytes with malloc's, two a step.
    var sourcePatterns: OneOrMore<GlobPattern> = []
    /// ``generates``, the one pattern most steps have inline.
    var generatedPatterns: OneOrMore<GlobPattern> = []
    /// A file in Makefile syntax the command writes, whose prerequisites become sources of
    /// the step after a successful run; relative to its working directory.
    public var depfile: String?
    /// What else its result depends on (`cacheKey`), after the workflow's own.
    public var keyParts: [CacheKeyPart] = []
    /// Where each entry of `generates` is in the file (a byte offset), for diagnostics: the
    /// one most steps have inline, with `cache` in the padding after it (50 bytes, where an
    /// array took 56 and an allocation of 48).
    var generatesOffsets: OneOrMore<Int> = []
    /// `false` turns incremental runs off for the step; `true` makes a step without sources
    /// incremental on its command and wired inputs alone.
    public var cache: Bool?

    /// No caching declared.
    public init() {}

    /// Whether two declare the same: where they are in the file does not count.
    public static func == (lhs: Caching, rhs: Caching) -> Bool {
        lhs.sourcePatterns == rhs.sourcePatterns && lhs.generatedPatterns == rhs.generatedPatterns
            && lhs.depfile == rhs.depfile && lhs.cache == rhs.cache
            && lhs.keyParts == rhs.keyParts
    }

    /// Whether the step declares anything about files.
    public var declaresFiles: Bool {
        !sourcePatterns.isEmpty || !generatedPatterns.isEmpty || depfile != nil
    }

    /// Whether the step is incremental: it declares sources, generated files or a depfile,
    /// or `cache: true`, and not `cache: false`.
    public var isIncremental: Bool {
        cache ?? declaresFiles
    }
}
