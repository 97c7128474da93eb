/// A position in a source file, as people count: lines and columns from 1.
public struct SourceLocation: Hashable, Sendable, Comparable {
    /// The line, from 1.
    public var line: Int
    /// The column in Unicode scalars, from 1.
    public var column: Int

    /// The location at `line` and `column`.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// Earlier lines, then earlier columns, come first.
    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}
