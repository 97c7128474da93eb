extension ProcedureKitError {
    /// Several conditions failed: what an ``OrCondition`` none of whose parts is satisfied
    /// fails with when two or more of them failed, as the original's does.
    ///
    /// One failure is reported as it is, not wrapped. The errors are in the order of the
    /// conditions, and a part that itself failed with several is flattened into them.
    public struct FailedConditions: Error, CustomStringConvertible {
        /// The errors of the conditions that failed, in the order of the conditions.
        public let errors: [any Error]

        /// Combines `errors`, taking the errors out of any that is itself a
        /// `FailedConditions`.
        ///
        /// - Parameter errors: the conditions' errors, in order.
        public init(errors: [any Error]) {
            self.errors = errors.flatMap { error -> [any Error] in
                (error as? FailedConditions)?.errors ?? [error]
            }
        }

        /// The errors as a sentence, such as "2 conditions failed: …; …."
        public var description: String {
            // Each error's own closing full stop gives way to the one that ends the sentence.
            let listed = errors.map { error in
                let text = String(describing: error)
                return text.hasSuffix(".") ? String(text.dropLast()) : text
            }.joined(separator: "; ")
            let count = errors.count == 1 ? "1 condition" : "\(errors.count) conditions"
            return "\(count) failed: \(listed)."
        }
    }
}
