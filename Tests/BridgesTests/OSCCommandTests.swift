import Buttons
import OSC
import Testing

@testable import Bridges

/// OSC addresses (SPEC §10) into the sequencer's commands, with the HTTP API's checks: what a
/// TouchOSC or Open Stage Control surface sends, and what is answered on `/buttond/error`.
@Suite struct OSCCommandTests {
    @Test(arguments: [
        (OSCMessage("/buttond/button/door", [.float(1)]), "input door down"),
        (OSCMessage("/buttond/button/door", [.float(0)]), "input door up"),
        (OSCMessage("/buttond/button/door", [.bool(true)]), "input door down"),
        (OSCMessage("/buttond/button/door/press"), "press door down hold=0"),
        (OSCMessage("/buttond/button/door/down", [.int64(1_700_000_000_000)]), "input door down t=1700000000000"),
        (OSCMessage("/buttond/button/door/up"), "input door up"),
        (OSCMessage("/buttond/button/door/cancel", [.int64(1_700_000_000_005)]), "input door cancel t=1700000000005"),
        (OSCMessage("/buttond/button/lamp/face", [.int32(1)]), "face lamp 1"),
        (OSCMessage("/buttond/sheet/scene/open"), "sheet scene open"),
        (OSCMessage("/buttond/sheet/scene/cancel"), "sheet scene cancel"),
        (OSCMessage("/buttond/sheet/scene/choose", [.string("warm")]), #"sheet scene choose "warm""#),
        (OSCMessage("/buttond/sheet/scene/choose", [.int32(2)]), "sheet scene choose 2"),
    ])
    func anAddressIsACommand(message: OSCMessage, command: String) throws {
        #expect(describe(try OSCCommand.parse(message)) == command)
    }

    @Test(arguments: [
        (OSCMessage("/other/button/door"), "address"),
        (OSCMessage("/buttond/button/"), "address"),
        (OSCMessage("/buttond/lamp/door/down"), "address"),
        (OSCMessage("/buttond/button/door/jump"), "address"),
        (OSCMessage("/buttond/button/door"), "args"),
        (OSCMessage("/buttond/button/door", [.string("on")]), "args"),
        (OSCMessage("/buttond/button/lamp/face", [.int32(2)]), "args"),
        (OSCMessage("/buttond/button/door/down", [.int32(1), .int32(2)]), "args"),
        (OSCMessage("/buttond/button/door/down", [.string("now")]), "t"),
        (OSCMessage("/buttond/button/door/down", [.int64(Fields.maxT + 1)]), "t"),
        (OSCMessage("/buttond/sheet/scene/choose"), "args"),
    ])
    func aMessageThatIsNoCommandIsRefusedNamingWhy(message: OSCMessage, field: String) {
        #expect {
            try OSCCommand.parse(message)
        } throws: { error in
            guard let error = error as? ButtonsError else { return false }
            return error.kind == .invalid && error.code == "invalid_value" && error.details["field"] == .string(field)
        }
    }

    @Test func aTInSecondsIsRefusedAsOverHTTP() {
        // `date +%s` where `date +%s%3N` was meant: refused as the HTTP API refuses it, not
        // dated 1970 (with a long press fired at once).
        #expect {
            try OSCCommand.parse(OSCMessage("/buttond/button/door/down", [.int64(1_700_000_000)]))
        } throws: { error in
            guard let error = error as? ButtonsError else { return false }
            return error.code == "t_not_milliseconds" && ErrorStatus.of(error.kind) == 422 && error.details["field"] == .string("t")
        }
    }

    @Test func anUnknownAddressSaysWhatTheAddressesAre() {
        do {
            _ = try OSCCommand.parse(OSCMessage("/buttond/knob/1"))
            Issue.record("parsed")
        } catch {
            #expect(error.message.contains("/buttond/button/<id>") && error.message.contains("/buttond/sheet/<id>"))
            #expect(ErrorStatus.of(error.kind) == 422)
        }
    }
}

/// `--osc-allow`: which senders are read.
@Suite struct OSCAllowListTests {
    @Test func loopbackIsTheDefaultAndNothingElse() throws {
        let list = try OSCAllowList.parse(OSCAllowList.loopback).get()
        #expect(list.allows([127, 0, 0, 1]) && list.allows([127, 9, 9, 9]))
        #expect(list.allows(Array(repeating: 0, count: 15) + [1]))
        #expect(!list.allows([192, 168, 1, 20]))
        #expect(!list.allows(Array(repeating: 0, count: 15) + [2]))
    }

    @Test func rangesAndBareAddresses() throws {
        let list = try OSCAllowList.parse(["10.0.0.0/8", "192.168.1.20", "fd00::/8", "172.16.0.0/12"]).get()
        #expect(list.allows([10, 200, 3, 4]) && list.allows([192, 168, 1, 20]) && list.allows([172, 31, 255, 1]))
        #expect(!list.allows([192, 168, 1, 21]) && !list.allows([11, 0, 0, 1]) && !list.allows([172, 32, 0, 1]))
        #expect(list.allows([0xFD, 0x12] + Array(repeating: 0, count: 14)))
        #expect(!list.allows([0xFE, 0x80] + Array(repeating: 0, count: 14)))
        #expect(try OSCAllowList.parse(["0.0.0.0/0"]).get().allows([8, 8, 8, 8]))
    }

    @Test(arguments: ["lan", "10.0.0.0/33", "::1/129", "10.0.0.0/x", "example.com/8"])
    func anItemThatIsNoCIDRIsNamed(item: String) {
        switch OSCAllowList.parse(["127.0.0.1", item]) {
        case .success: Issue.record("\(item) was taken")
        case .failure(let bad): #expect(bad.item == item)
        }
    }
}
