import Foundation

/// Polls `condition` every 20 ms for at most `seconds`: a wait for a positive signal, never a
/// blind sleep.
public func waitUntil(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return true
}
