import ButtonEngine
import ButtonStore
import JSON

/// One request's worth of input, as the sequencer applies it.
package enum Command: Sendable {
    /// One input for one button.
    case input(button: String, Input)
    /// A down, `holdMs` of holding, and the up.
    case press(button: String, down: Input, holdMs: Int64)
    /// Inputs for any buttons: all or nothing, events in input order.
    case batch([BatchItem])
    /// A toggle's face set directly.
    case face(button: String, face: Int)
    /// Back to rest at the server clock (`POST /buttons/{id}/reset`).
    case reset(button: String)
    /// Ends what is under way on a button its definition just disabled (SPEC §4 "Guards").
    case disable(button: String)
    case sheet(String, SheetAction, t: Int64?)

    package struct BatchItem: Sendable {
        package var button: String
        package var input: Input

        package init(button: String, input: Input) {
            self.button = button
            self.input = input
        }
    }

    package enum SheetAction: Sendable {
        case open, cancel
        case choose(JSONValue)
    }

    /// Whether a full delivery queue refuses it (503). Ending what a disable cut short is
    /// not refused, as a timer's events are not: the change that caused it was accepted.
    var mayWaitForQueue: Bool {
        if case .disable = self { return false }
        return true
    }
}

extension Sequencer {
    package static func conflict(_ error: InputError, index: Int? = nil) -> ButtonsError {
        var http = ButtonsError.conflict(error.code, error.message)
        if let index { http.details["index"] = .int(Int64(index)) }
        return http
    }
}
