import Foundation
import JSONRPC
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    /// Documents every reader agrees on; the parser must read them as Foundation's decoder does.
    static let acceptedDocuments = [
        #"{}"#, #"[]"#, #"null"#, #"true"#, #"0"#, #"-0"#, #"12"#, #"-9223372036854775808"#,
        #"9223372036854775807"#, #"9223372036854775808"#, #"1.5"#, #"-2.25e-3"#, #"1E+2"#, #"1.0"#,
        #"  {"a" : [1, 2.5, "x", null, true, false, {"b": {}}]}  "#,
        #""\"\\\/\b\f\n\r\t""#, #""\u00e9\u20AC\ud83d\ude00""#, #""héllo wörld ✓""#,
        #"{"nested":{"deeper":{"deepest":[[["x"]]]}},"id":7}"#,
        #"[1e300, -1e-300, 123456789012345678901234567890]"#,
    ]

    @Test("reads what Foundation reads, as Foundation reads it", arguments: acceptedDocuments)
    func agreesWithFoundation(_ document: String) throws {
        let ours = try JSONParser.parse(Array(document.utf8))
        let foundations = try JSONDecoder().decode(JSONValue.self, from: Data(document.utf8))
        #expect(ours == foundations)
    }

    @Test("round-trips what the encoder writes")
    func roundTrip() throws {
        let value: JSONValue = ["a": [1, "two", true, ["three": .double(3.5)]], "b": .null, "c": "\u{1}\"\\"]
        #expect(try JSONCoding.parse(JSONCoding.encode(value)) == value)
    }

    static let refusedDocuments: [(String, JSONParser.Refusal.Reason)] = [
        ("", .unexpectedEnd), ("   ", .unexpectedEnd), ("[1,]", .unexpectedByte), (#"{"a":1,}"#, .unexpectedByte),
        ("[1 2]", .unexpectedByte), ("01", .unexpectedByte), ("-", .unexpectedEnd), ("1.", .invalidNumber),
        ("1e", .invalidNumber), ("NaN", .unexpectedByte), ("Infinity", .unexpectedByte), ("1e400", .invalidNumber),
        ("tru", .unexpectedEnd), ("nul!", .unexpectedByte), ("{} {}", .unexpectedByte), ("// x\n{}", .unexpectedByte),
        (#"{'a':1}"#, .unexpectedByte), (#"{"a" 1}"#, .unexpectedByte), (#"{a:1}"#, .unexpectedByte),
        ("\"a\u{1}b\"", .invalidString), ("\"tab\there\"", .invalidString), (#""\x41""#, .invalidString),
        (#""\ud800""#, .invalidString), (#""\ud800\u0041""#, .invalidString), (#""\udc00""#, .invalidString),
        (#""\u12G4""#, .invalidString), (#""\u12"#, .unexpectedEnd), (#""open"#, .unexpectedEnd),
        (#"{"a":1,"a":2}"#, .duplicateMember), (#"[{"k":1,"k":1}]"#, .duplicateMember),
    ]

    @Test("refuses what RFC 8259 does not allow, saying why", arguments: refusedDocuments)
    func refuses(_ document: String, _ reason: JSONParser.Refusal.Reason) {
        #expect(throws: JSONParser.Refusal.self) { try JSONParser.parse(Array(document.utf8)) }
        do {
            _ = try JSONParser.parse(Array(document.utf8))
        } catch {
            #expect(error.reason == reason, "\(document)")
        }
    }

    @Test("refuses bytes that are not UTF-8 inside a string")
    func refusesInvalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0x5C, 0x6E, 0xED, 0xA0, 0x80, 0x22]] {
            #expect(throws: JSONParser.Refusal(reason: .invalidString, offset: 1)) { try JSONParser.parse(bytes) }
        }
    }

    @Test("nesting is allowed to the limit and refused one level past it, for arrays and objects")
    func nestingLimit() throws {
        let depth = JSONParser.maximumDepth
        let deepestArray = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(try JSONParser.parse(Array(deepestArray.utf8)) != .null)
        let tooDeepArray = "[" + deepestArray + "]"
        #expect(throws: JSONParser.Refusal(reason: .tooDeep, offset: depth)) { try JSONParser.parse(Array(tooDeepArray.utf8)) }
        let tooDeepObject = String(repeating: #"{"a":"#, count: depth + 1) + "1" + String(repeating: "}", count: depth + 1)
        #expect(throws: JSONParser.Refusal.self) { try JSONParser.parse(Array(tooDeepObject.utf8)) }
    }

    /// The review's body (issue 40, H-2): twelve arrays nested 500 deep. The old reading cost more than
    /// a second of loop time for it; this one stops at the limit of the first.
    @Test("the review's deeply nested body is refused at its first array's limit")
    func reviewBody() {
        let body = Array(repeating: String(repeating: "[", count: 500) + String(repeating: "]", count: 500), count: 12)
            .joined(separator: ",")
        #expect(throws: JSONParser.Refusal(reason: .tooDeep, offset: JSONParser.maximumDepth)) {
            try JSONCoding.parse(Array(("[" + body + "]").utf8))
        }
    }

    @Test("a JSONValue inside a Decodable message is bounded in depth as well")
    func decodableDepth() throws {
        let depth = JSONParser.maximumDepth
        let shallow = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: Never.self) { try JSONDecoder().decode(JSONValue.self, from: Data(shallow.utf8)) }
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: Data(deep.utf8)) }
    }
}
