import Foundation

/// The one wait of the tests: polls every few milliseconds for at most `seconds` until the
/// condition holds — a wait for a positive signal, never a blind sleep. Returns whether it
/// held; a caller asserts that.
public func eventually(_ seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    try eventually(seconds: seconds, condition, until: { $0 })
}

/// Polls `probe` until `condition` holds of its value (at most `seconds`) and returns the last
/// value: the caller asserts on what it saw, not only that the wait ended.
public func eventually<T>(seconds: Double = 15, _ probe: () throws -> T, until condition: (T) -> Bool) rethrows -> T {
    let deadline = Date().addingTimeInterval(seconds)
    var value = try probe()
    while !condition(value) && Date() < deadline {
        usleep(5_000)
        value = try probe()
    }
    return value
}
