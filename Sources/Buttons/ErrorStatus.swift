/// SPEC.md §3's status number of each kind of refusal: the one mapping both edges that number
/// a refusal use. The HTTP API answers with it (`ButtonsError+HTTP.swift`) and the MQTT bridge's
/// `<base>/error` carries it as `status` (SPEC §9: "the HTTP-style error JSON"); OSC's
/// `/buttond/error` carries no number. Kept out of `ButtonsError`, which says what was refused,
/// not how a protocol numbers it.
package enum ErrorStatus {
    package static func of(_ kind: ButtonsError.Kind) -> Int {
        switch kind {
        case .malformed: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .invalid: 422
        case .unavailable: 503
        }
    }
}
