import ButtonEngine
import Buttons
import Delivery
import Handlers
import MicroHTTP
import Outbox
import QRCode

/// What the panel reads from the server instead of keeping a copy that could drift (SPEC §7):
/// the vocabulary (event types, handler kinds, placeholders, delivery filters), who the session
/// is, and the QR code of a kiosk link.
extension API {
    /// The server's words, as the API spells them.
    static var vocabulary: JSONValue {
        let strings = { (list: [String]) in JSONValue.array(list.map { .string($0) }) }
        let buttonTypes = EventType.allCases.filter { Handler.buttonEvents.contains($0) }.map(\.rawValue)
        let sheetTypes = EventType.allCases.filter { Handler.sheetEvents.contains($0) }.map(\.rawValue)
        return [
            "eventTypes": ["button": strings(buttonTypes), "sheet": strings(sheetTypes)],
            "handlerKinds": strings(DeliveryAction.kinds),
            "placeholders": strings(Placeholders.names),
            "numericPlaceholders": strings(Placeholders.names.filter(Placeholders.numeric.contains)),
            "deliveryKinds": strings(DeliveryLogFilter.kinds),
            "deliveryStatuses": strings(DeliveryStatus.allCases.map(\.name) + ["failing"]),
        ]
    }

    func addVocabularyRoutes(to router: inout APIRouter) {
        let vocabulary = Self.vocabulary
        router.get("/api/v1/vocabulary", access: .read()) { _, _ in .json(vocabulary) }
        // Who this request is: the panel decides what to offer (edit mode, marks) from this,
        // not by trying an admin route and reading a 403.
        router.get("/api/v1/session", access: .read()) { _, grant in
            var object: [String: JSONValue] = ["role": .string(grant.role.name)]
            if let name = grant.name { object["name"] = .string(name) }
            if let groups = grant.groups { object["groups"] = .array(groups.sorted().map { .string($0) }) }
            return .json(.object(object))
        }
        // A POST, so the text (a kiosk link carries a token) is never in a URL or a log line.
        router.post("/api/v1/qr", access: .read()) { request, _ in
            var fields = try Fields(try request.json())
            guard let text = try fields.string("text", maxLength: 2048) else { throw ButtonsError.invalid("text", "text is required") }
            try fields.finish()
            let code: QRCode
            do throws(QRCode.Failure) { code = try QRCode(text: text) } catch {
                switch error {
                case .empty: throw ButtonsError.invalid("text", "text must not be empty")
                case .tooLong: throw ButtonsError.invalid("text", "text is too long for a QR code")
                case .encoder(let code): throw ButtonsError.unavailable("the QR encoder failed (errno \(code))", retryAfter: 1)
                }
            }
            return Response(
                status: 200, headers: [("Content-Type", "image/svg+xml"), ("Cache-Control", "no-store")],
                body: .bytes(Array(code.svg().utf8)))
        }
    }
}
