extension ProcedureKitError {
    /// A ``ProcedurePromiseResult`` was released without being completed: what its future's
    /// result is then, as in the original.
    public struct UnfulfilledPromise: Error, Equatable, CustomStringConvertible {
        /// Creates the error.
        public init() {}

        /// The error as a sentence.
        public var description: String {
            "The promise was released without being completed."
        }
    }
}
