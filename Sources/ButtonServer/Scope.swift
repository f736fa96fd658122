import Outbox
import ButtonEngine
import ButtonStore
import Buttons
import MicroHTTP
import Platform

/// What a token limited to groups may see (SPEC §6): only its groups' buttons and sheets, on
/// every route; any other one is 404 as if it did not exist. The guard checks the button,
/// sheet or handler a route names; the lists, the history and the stream filter by `sees`.
extension API {
    /// The group of a button or sheet, `.some(nil)` when it has none, nil when it does not exist.
    func group(of owner: Source) -> String?? {
        switch owner {
        case .button(let id): (try? registry.button(id)).map { slot in slot.locked { slot.definition.group } }
        case .sheet(let id): (try? registry.sheet(id)).map { slot in slot.locked { slot.definition.group } }
        }
    }

    func sees(_ owner: Source, _ grant: Grant) -> Bool {
        guard grant.isScoped else { return true }
        guard let group = group(of: owner) else { return false }
        return grant.sees(group: group)
    }

    /// An event source (by name) a scoped grant sees: a button of that name, else a sheet.
    func sees(source name: String, _ grant: Grant) -> Bool {
        guard grant.isScoped else { return true }
        if let group = group(of: .button(name)) { return grant.sees(group: group) }
        return grant.sees(group: group(of: .sheet(name)) ?? nil)
    }

    func visibleButtons(_ grant: Grant) -> [ButtonSlot] {
        registry.buttonSlots().filter { slot in grant.sees(group: slot.locked { slot.definition.group }) }
    }

    func visibleSheets(_ grant: Grant) -> [SheetSlot] {
        registry.sheetSlots.filter { slot in grant.sees(group: slot.locked { slot.definition.group }) }
    }

    /// A delivery, seen when the button or sheet whose event it carries is.
    func sees(_ row: DeliveryRow, _ grant: Grant) -> Bool {
        guard grant.isScoped else { return true }
        return sees(row.event.source, grant)
    }

    /// What a grant's stream may carry (by source name); nil for everything. A token that
    /// expires carries nothing from that moment on, whenever its timer ends the stream.
    func admits(_ grant: Grant) -> (@Sendable (String) -> Bool)? {
        if let expiresAt = grant.expiresAt {
            let (api, clock) = (self, auth.clock)
            return { name in clock.now() < expiresAt && api.sees(source: name, grant) }
        }
        guard grant.isScoped else { return nil }
        let api = self
        return { name in api.sees(source: name, grant) }
    }

    /// Which groups a scoped grant's stream hears registry messages of; nil for all.
    static func seesGroup(_ grant: Grant) -> (@Sendable (String?) -> Bool)? {
        guard grant.isScoped else { return nil }
        return { group in grant.sees(group: group) }
    }

    /// The names of every button and sheet the grant sees (the sources of its history).
    func visibleSources(_ grant: Grant) -> [String] {
        visibleButtons(grant).map(\.id) + visibleSheets(grant).map(\.id)
    }

    /// A scoped admin may make and change buttons and sheets in its own groups only.
    static func checkPlacement(_ group: String?, _ grant: Grant) throws(ButtonsError) {
        guard !grant.sees(group: group) else { return }
        throw ButtonsError.forbidden("this token may place buttons and sheets only in its groups")
    }
}
