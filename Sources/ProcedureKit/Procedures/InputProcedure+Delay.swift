import Foundation

extension InputProcedure where Input == Delay {
    /// Takes as this procedure's delay an interval made from the output of `dependency`.
    ///
    /// As ``injectResult(from:via:)``: the dependency is added, and a dependency that gives no
    /// value, or a block that throws, cancels this procedure.
    ///
    /// - Parameters:
    ///   - dependency: the procedure whose output gives the interval.
    ///   - makeInterval: makes the seconds to wait from the dependency's output.
    /// - Returns: this procedure, so that calls can be chained.
    @discardableResult
    public func injectDelay<Dependency: OutputProcedure>(
        from dependency: Dependency,
        by makeInterval: @escaping @Sendable (Dependency.Output) throws -> TimeInterval
    ) -> Self {
        injectResult(from: dependency, via: { .by(try makeInterval($0)) })
    }

    /// Takes as this procedure's delay a date made from the output of `dependency`.
    ///
    /// As ``injectDelay(from:by:)``, with a date to wait until.
    ///
    /// - Parameters:
    ///   - dependency: the procedure whose output gives the date.
    ///   - makeDate: makes the date to wait until from the dependency's output.
    /// - Returns: this procedure, so that calls can be chained.
    @discardableResult
    public func injectDelay<Dependency: OutputProcedure>(
        from dependency: Dependency,
        until makeDate: @escaping @Sendable (Dependency.Output) throws -> Date
    ) -> Self {
        injectResult(from: dependency, via: { .until(try makeDate($0)) })
    }
}
