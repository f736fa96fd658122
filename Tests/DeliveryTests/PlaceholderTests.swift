import Outbox
import ButtonStore
import Delivery
import MicroHTTP
import Testing

/// Placeholders in script args (whole only) and in webhook strings (anywhere) (SPEC §5), read
/// the way the dispatcher reads them: from a delivery's typed event facts
/// (`Placeholders(DeliveryEvent)`), with the event's JSON parsed only for `index` and `by`.
@Suite struct PlaceholderTests {
    /// A toggle on a button, as the server writes it (its JSON: sorted keys, no `by`).
    static let toggle: JSONValue = [
        "id": "evt_1k", "seq": 56, "type": "toggle", "button": "desk", "t": 1_796_040_000_123,
        "at": "2026-11-30T12:00:00.123Z", "data": ["face": 2, "previousFace": 1],
    ]
    /// A choice on an action sheet: `{button}` is the sheet id.
    static let select: JSONValue = [
        "id": "evt_1l", "seq": 57, "type": "select", "sheet": "scenes", "t": 1_796_040_001_000,
        "at": "2026-11-30T12:00:01.000Z", "data": ["option": "movie", "index": 1],
    ]
    /// The toggle's facts as the handler registry stores them with its delivery, label included.
    static let toggleFacts = DeliveryEvent(
        seq: 56, id: "evt_1k", type: .toggle, source: .button("desk"), t: 1_796_040_000_123, face: 2, label: "Desk lamp",
        json: JSONWriter.encode(toggle))
    static let selectFacts = DeliveryEvent(
        seq: 57, id: "evt_1l", type: .select, source: .sheet("scenes"), t: 1_796_040_001_000, option: "movie", label: "Scenes",
        optionLabel: "Movie night", json: JSONWriter.encode(select))
    static let fields = Placeholders(toggleFacts)

    /// `Placeholders.names` is the list the API's vocabulary gives the panel: each one stands for
    /// a value, and nothing outside it does.
    @Test func everyNamedPlaceholderIsOneAndNoOtherIs() {
        var filled = Placeholders(button: "b", type: "tap", seq: 7, t: 9, face: "1", option: "o", label: "L", id: "evt_x")
        (filled.index, filled.optionLabel, filled.faceLabel, filled.by) = ("2", "Opt", "On", "kiosk")
        #expect(Placeholders.names.count == 12)
        #expect(Set(Placeholders.names).count == 12)
        for name in Placeholders.names { #expect(filled.substitute(name) != name, "\(name) stands for nothing") }
        for other in ["{event}", "{buttons}", "{Button}", "{}", "{optionlabel}"] { #expect(filled.substitute(other) == other) }
        #expect(Placeholders.numeric.isSubset(of: Set(Placeholders.names)))
    }

    @Test func readsAButtonEvent() {
        #expect(
            Self.fields
                == Placeholders(
                    button: "desk", type: "toggle", seq: 56, t: 1_796_040_000_123, face: "2", option: "",
                    label: "Desk lamp", id: "evt_1k"))
    }

    @Test func readsASheetEvent() {
        let fields = Placeholders(Self.selectFacts)
        #expect(fields.button == "scenes")
        #expect(fields.option == "movie")
        #expect(fields.face == "")
        #expect(fields.index == "1", "from the event's JSON: a choice has an option")
        #expect(fields.optionLabel == "Movie night")
        #expect(fields.interpolate("{button}/{option}") == "scenes/movie")
    }

    /// `by` is read from the JSON only when the server wrote it (last, so the JSON ends `"}`).
    @Test func readsWhoSentItFromTheEventsJSON() {
        let json = #"{"id":"evt_1m","seq":58,"type":"tap","button":"door","t":1796040002000,"at":"2026-11-30T12:00:02.000Z","data":{},"by":"kiosk"}"#
        let tap = DeliveryEvent(seq: 58, id: "evt_1m", type: .tap, source: .button("door"), t: 1_796_040_002_000, json: Array(json.utf8))
        #expect(Placeholders(tap).by == "kiosk")
        #expect(Placeholders(tap).interpolate("{button} by {by}") == "door by kiosk")
        #expect(Self.fields.by == "")
        #expect(Self.fields.index == "", "a toggle has no option, so no index")
    }

    @Test(arguments: [
        "{}", "", "not json\"}",  // no JSON members at all, or not JSON where `by` is looked for
        #"{"data": {"index": "1"}, "by": 7}"#,  // wrong JSON types
    ])
    func missingFieldsAreEmpty(_ json: String) {
        let event = DeliveryEvent(seq: 0, id: "", type: .tap, source: .button(""), t: 0, option: json.contains("index") ? "" : nil, json: Array(json.utf8))
        let fields = Placeholders(event)
        #expect(fields.button == "" && fields.face == "" && fields.option == "" && fields.label == "")
        #expect(fields.seq == 0 && fields.t == 0 && fields.id == "")
        #expect(fields.index == "" && fields.by == "" && fields.optionLabel == "" && fields.faceLabel == "")
        #expect(fields.interpolate("[{button}|{face}|{option}|{label}|{id}|{seq}]") == "[|||||0]")
    }

    @Test(arguments: [
        ("{button}", "desk"), ("{type}", "toggle"), ("{seq}", "56"), ("{t}", "1796040000123"), ("{face}", "2"),
        ("{option}", ""), ("{label}", "Desk lamp"), ("{id}", "evt_1k"),
    ])
    func eachPlaceholderWhole(_ placeholder: String, _ value: String) {
        #expect(Self.fields.substitute(placeholder) == value)
        #expect(Self.fields.interpolate(placeholder) == value)
    }

    @Test(arguments: [
        ("button {button}!", "button desk!"), ("type={type}", "type=toggle"), ("#{seq}", "#56"),
        ("at {t} ms", "at 1796040000123 ms"), ("face {face} up", "face 2 up"), ("<{option}>", "<>"),
        ("“{label}” pressed", "“Desk lamp” pressed"), ("/events/{id}", "/events/evt_1k"),
    ])
    func eachPlaceholderInsideText(_ text: String, _ expected: String) {
        #expect(Self.fields.interpolate(text) == expected)
        #expect(Self.fields.substitute(text) == text)  // script args: whole placeholders only
    }

    @Test(arguments: [
        ("{button}:{type}:{seq}", "desk:toggle:56"),
        ("{button}{button}", "deskdesk"),
        ("{label} ({button}) → face {face}, event {id}", "Desk lamp (desk) → face 2, event evt_1k"),
        ("Bearer abc-{id}", "Bearer abc-evt_1k"),  // a header value
    ])
    func severalInOneString(_ text: String, _ expected: String) {
        #expect(Self.fields.interpolate(text) == expected)
    }

    @Test(arguments: [
        "{{ states('light.kitchen') }}", "{% if is_state('x', 'on') %}on{% endif %}", "{unknown}", "{Button}",
        "{ button }", "{button", "button}", "{}", "{{", "}}", "{event}", "{buttons}", "plain text", "",
    ])
    func otherBracesStayAsTheyAre(_ text: String) {
        #expect(Self.fields.interpolate(text) == text)
        #expect(Self.fields.substitute(text) == text)
    }

    @Test(arguments: [
        ("{{button}}", "{desk}"),  // the inner pair is a placeholder
        ("{x{button}}", "{xdesk}"),
        ("{{{ {label} }}}", "{{{ Desk lamp }}}"),
        ("{unknown}{seq}", "{unknown}56"),
    ])
    func placeholdersNextToOtherBraces(_ text: String, _ expected: String) {
        #expect(Self.fields.interpolate(text) == expected)
    }

    @Test func valuesAreNotExpandedAgain() {
        let fields = Placeholders(button: "{id}", type: "{type}", label: "{{button}} {seq}", id: "evt_9")
        #expect(fields.interpolate("{button} {label} {type}") == "{id} {{button}} {seq} {type}")
        #expect(fields.substitute("{label}") == "{{button}} {seq}")
    }

    @Test func nonASCIITextSurvives() {
        let fields = Placeholders(button: "küche", label: "Licht 💡")
        #expect(fields.interpolate("é{button}🎛{label}{ü}") == "éküche🎛Licht 💡{ü}")
    }
}

/// SPEC §5 as extended: numbers stay numbers, the URL's path and query are filled in, and the
/// option's and face's labels have placeholders of their own.
@Suite("Placeholders in URLs, numbers and labels")
struct PlaceholderShapingTests {
    static let fields: Placeholders = {
        var fields = Placeholders(button: "menu", type: "select", seq: 42, t: 1_700_000_000_000, face: "1", option: "movie night", label: "Scenes")
        (fields.index, fields.optionLabel, fields.faceLabel) = ("2", "Movie night", "On")
        return fields
    }()

    @Test func aStringThatIsOneNumericPlaceholderBecomesANumber() throws {
        let template = try WebhookTemplate(["face": "{face}", "seq": "{seq}", "t": "{t}", "index": "{index}", "text": "face {face}", "button": "{button}"])
        let body = try JSONParser.parse(template.render(Self.fields, event: .null))
        #expect(body == ["face": 1, "seq": 42, "t": 1_700_000_000_000, "index": 2, "text": "face 1", "button": "menu"])
        var none = Self.fields
        none.face = ""
        #expect(try JSONParser.parse(WebhookTemplate(["face": "{face}"]).render(none, event: .null)) == ["face": ""])
    }

    @Test func theURLsPathAndQueryAreFilledInPercentEncoded() {
        #expect(Self.fields.expandURL("http://ha.local:8123/scene/{option}?label={option_label}&n={index}")
            == "http://ha.local:8123/scene/movie%20night?label=Movie%20night&n=2")
        #expect(Self.fields.expandURL("http://{button}.local/x") == "http://{button}.local/x")
        #expect(Self.fields.expandURL("http://h/plain") == "http://h/plain")
    }

    @Test func optionAndFaceLabels() {
        #expect(Self.fields.interpolate("{option_label} / {face_label} / {label}") == "Movie night / On / Scenes")
    }
}
