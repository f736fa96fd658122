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
