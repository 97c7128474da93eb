import Foundation

/// A duration as people read it: "340 ms", "2.5 s", "1 min 05 s".
func formatDuration(_ seconds: TimeInterval) -> String {
    if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
    if seconds < 60 {
        let tenths = (seconds * 10).rounded() / 10
        return tenths == tenths.rounded() ? "\(Int(tenths)) s" : String(format: "%.1f s", tenths)
    }
    let whole = Int(seconds.rounded())
    return String(format: "%d min %02d s", whole / 60, whole % 60)
}
