/// A step as a walk of the step tree meets it, with where it stands among groups and branches.
public struct NestedStep: Sendable {
    /// A case of a branch: the `index` of one of its `cases`, or `nil` for `otherwise`.
    public struct BranchCase: Hashable, Sendable {
        /// The branch's id.
        public var branch: String
        /// The position of the case in the branch's `cases`; `nil` for `otherwise`.
        public var index: Int?
    }

    /// The step.
    public var step: Step
    /// The ids of the groups and branches it is in, outermost first.
    public var path: [String]
    /// The branch cases it runs in, outermost first: it runs only if each is taken.
    public var cases: [BranchCase]

    /// The id of the group or branch it is directly in.
    public var parent: String? { path.last }

    /// The case of the branch it is directly in, if its parent is a branch.
    public var parentCase: BranchCase? {
        guard let last = cases.last, last.branch == parent else { return nil }
        return last
    }
}
