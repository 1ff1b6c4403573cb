import Testing

@testable import WebAuthn

@Suite("CBOR, strictly")
struct CBORDecoderTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    static func decoded(_ hex: String) throws -> CBOR { try CBORDecoder.decode(bytes(hex)) }

    @Test("the kinds WebAuthn uses decode, maps in their order")
    func kinds() throws {
        #expect(try Self.decoded("00") == .integer(0))
        #expect(try Self.decoded("1903e8") == .integer(1000))
        #expect(try Self.decoded("3903e7") == .integer(-1000))
        #expect(try Self.decoded("26") == .integer(-7))
        #expect(try Self.decoded("390100") == .integer(-257))
        #expect(try Self.decoded("43010203") == .bytes([1, 2, 3]))
        #expect(try Self.decoded("646e6f6e65") == .text("none"))
        #expect(try Self.decoded("820102") == .array([.integer(1), .integer(2)]))
        #expect(try Self.decoded("f4f5f6".prefix(2).description) == .bool(false))
        #expect(try Self.decoded("f6") == .null)
        let map = try Self.decoded("a2026178016162")
        #expect(map == .map([.init(key: .integer(2), value: .text("x")), .init(key: .integer(1), value: .text("b"))]))
        #expect(map[1]?.text == "b" && map[3] == nil)
    }

    @Test(
        "hostile or foreign encodings are refused, never trapped on",
        arguments: [
            ("5f4101ff", "an indefinite length"),
            ("c001", "a tag"),
            ("f93c00", "a half-precision float"),
            ("fb3ff0000000000000", "a double"),
            ("f7", "undefined"),
            ("a201010102", "a duplicate key"),
            ("430102", "truncated bytes"),
            ("5affffffff", "a length past the end"),
            ("9bffffffffffffffff", "an array of 2^64 - 1 items"),
            ("1bffffffffffffffff", "an integer beyond Int64"),
            ("3bffffffffffffffff", "a negative integer beyond Int64"),
            ("61ff", "text that is not UTF-8"),
            ("0000", "bytes after the item"),
            ("1c", "reserved additional information"),
            ("", "nothing"),
        ]
    )
    func refusals(hex: String, what: String) {
        #expect(throws: CBORDecoder.Malformed.self, "\(what)") { try Self.decoded(hex) }
    }

    @Test("nesting stops at the depth cap")
    func depth() throws {
        let deepest = String(repeating: "81", count: CBORDecoder.maximumDepth) + "00"
        #expect(throws: Never.self) { try Self.decoded(deepest) }
        #expect(throws: CBORDecoder.Malformed.self) { try Self.decoded("81" + deepest) }
    }
}
