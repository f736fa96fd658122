import ButtonEngine
import Testing

/// SPEC §3 "Action sheets": open, choose by id or index, cancel.
@Suite struct SheetMachineTests {
    @Test func openChooseCancel() throws {
        var sheet = SheetMachine(optionIDs: ["a", "b", "c"])
        #expect(sheet.isOpen == false)
        #expect(sheet.open(t: 10).texts == ["sheet-open@10"])
        #expect(sheet.isOpen)
        #expect(try sheet.choose(option: "b", t: 20).texts == ["select@20 option=b index=1"])
        #expect(sheet.isOpen == false)
        _ = sheet.open(t: 30)
        #expect(sheet.cancel(t: 40).texts == ["sheet-cancel@40"])
        #expect(sheet.isOpen == false)
    }

    /// (option as sent, expected option id and index, or nil for unknown).
    @Test(arguments: [
        ("a", "a", 0), ("c", "c", 2), ("0", "a", 0), ("2", "c", 2), ("3", nil, nil), ("x", nil, nil), ("", nil, nil),
        ("+1", nil, nil), ("-1", nil, nil), (" 1", nil, nil), ("01", "b", 1), ("99999999999999999999", nil, nil),
    ] as [(String, String?, Int?)])
    func chooseByIdOrIndex(sent: String, option: String?, index: Int?) throws {
        var sheet = SheetMachine(optionIDs: ["a", "b", "c"])
        _ = sheet.open(t: 0)
        if let option, let index {
            #expect(try sheet.choose(option: sent, t: 5).texts == ["select@5 option=\(option) index=\(index)"])
            #expect(sheet.isOpen == false)
        } else {
            #expect(throws: SheetError.unknownOption) { _ = try sheet.choose(option: sent, t: 5) }
            #expect(sheet.isOpen)
        }
    }

    /// SPEC §7: an open sheet cancels itself `openTimeoutMs` after its open; at exactly the
    /// deadline it has timed out; a choice, a cancel or 0 ends it; a reopen starts it again.
    @Test func openTimeout() throws {
        var sheet = SheetMachine(optionIDs: ["a"], openTimeoutMs: 1000)
        #expect(sheet.fireDue(now: 5000).isEmpty, "closed: nothing to time out")
        _ = sheet.open(t: 100)
        #expect(sheet.closesAt == 1100)
        #expect(sheet.fireDue(now: 1099).isEmpty)
        #expect(sheet.isOpen)
        #expect(sheet.fireDue(now: 1100).texts == ["sheet-cancel@1100 reason=timeout"])
        #expect(!sheet.isOpen && sheet.closesAt == nil)
        #expect(sheet.fireDue(now: 9000).isEmpty, "once")

        _ = sheet.open(t: 2000)
        _ = sheet.open(t: 2500)
        #expect(sheet.fireDue(now: 3000).isEmpty, "reopened at 2500")
        #expect(sheet.fireDue(now: 3600).texts == ["sheet-cancel@3500 reason=timeout"], "at the deadline's t, however late")

        _ = sheet.open(t: 4000)
        _ = try sheet.choose(option: "a", t: 4100)
        #expect(sheet.fireDue(now: 6000).isEmpty)
        _ = sheet.open(t: 7000)
        _ = sheet.cancel(t: 7100)
        #expect(sheet.fireDue(now: 9000).isEmpty)

        sheet.openTimeoutMs = 0
        _ = sheet.open(t: 10_000)
        #expect(sheet.closesAt == nil)
        #expect(sheet.fireDue(now: .max).isEmpty && sheet.isOpen)

        var late = SheetMachine(optionIDs: ["a"], openTimeoutMs: 3_600_000)
        _ = late.open(t: .max - 5)
        #expect(late.closesAt == .max, "saturates")
    }

    @Test func anIdWinsOverAnIndex() throws {
        var sheet = SheetMachine(optionIDs: ["x", "0"])
        #expect(try sheet.choose(option: "0", t: 0).texts == ["select@0 option=0 index=1"])
        #expect(try sheet.choose(option: "1", t: 0).texts == ["select@0 option=0 index=1"])
    }

    @Test(arguments: [-1, 3, Int.max, Int.min])
    func anIndexOutOfRangeIsUnknown(index: Int) {
        var sheet = SheetMachine(optionIDs: ["a", "b", "c"])
        #expect(throws: SheetError.unknownOption) { _ = try sheet.choose(index: index, t: 0) }
    }

    @Test func chooseAndCancelWorkWhenClosed() throws {
        var sheet = SheetMachine(optionIDs: ["a"])
        #expect(try sheet.choose(index: 0, t: 1).texts == ["select@1 option=a index=0"])
        #expect(sheet.cancel(t: 2).texts == ["sheet-cancel@2"])
        #expect(sheet.isOpen == false)
    }

    @Test func optionsCanChange() throws {
        var sheet = SheetMachine(optionIDs: ["a"])
        sheet.optionIDs.append("b")
        #expect(try sheet.choose(option: "1", t: 0).texts == ["select@0 option=b index=1"])
    }
}
