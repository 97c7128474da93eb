import Foundation

/// Turns run events into output.
public protocol Reporter: Sendable {
    /// Called for each event, from any thread, one at a time.
    func report(_ event: RunEvent)
}
