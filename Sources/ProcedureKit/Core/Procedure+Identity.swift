extension Procedure {
    /// Who a procedure is, as the original tells it: the instance, and its name when the
    /// identity was taken. Hashed by the instance alone.
    public struct Identity: Hashable, Sendable, CustomStringConvertible {
        /// The instance.
        public let identity: ObjectIdentifier
        /// The procedure's name when the identity was taken.
        public let name: String?

        /// The name and the instance, such as `build #ObjectIdentifier(0x…)`.
        public var description: String {
            "\(name ?? "Unnamed Procedure") #\(identity)"
        }

        /// Hashes the instance.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(identity)
        }
    }

    /// The procedure's identity, for diagnostics and as a key.
    public var identity: Identity {
        Identity(identity: ObjectIdentifier(self), name: name)
    }
}
