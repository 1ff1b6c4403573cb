/// A strict CBOR decoder for what authenticators send (RFC 8949, CTAP2's subset): definite lengths
/// only, at most `maximumDepth` levels of nesting, no duplicate map keys, text that is UTF-8,
/// integers that fit an `Int64`, and no tags, floats or other simple values. Every length is checked
/// against the bytes that remain before anything is allocated, so a hostile length costs nothing.
public struct CBORDecoder {
    public struct Malformed: Error, Hashable, CustomStringConvertible {
        public let reason: String
        public var description: String { "malformed CBOR: \(reason)" }
    }

    public static let maximumDepth = 16
    /// Items in one array or map: far more than any WebAuthn structure has.
    public static let maximumCount = 1024

    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// The one item that makes up all of `bytes`.
    public static func decode(_ bytes: [UInt8]) throws(Malformed) -> CBOR {
        let (item, end) = try decodePrefix(bytes, from: 0)
        guard end == bytes.count else { throw Malformed(reason: "\(bytes.count - end) bytes after the item") }
        return item
    }

    /// The item that starts at `start`, and where it ends (authenticator data puts a COSE key and
    /// then, optionally, the extensions' map one after the other with no length in front).
    public static func decodePrefix(_ bytes: [UInt8], from start: Int) throws(Malformed) -> (CBOR, end: Int) {
        var decoder = CBORDecoder(bytes, offset: start)
        let item = try decoder.item(depth: 0)
        return (item, decoder.offset)
    }

    mutating func byte() throws(Malformed) -> UInt8 {
        guard offset < bytes.count else { throw Malformed(reason: "truncated") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func take(_ count: UInt64) throws(Malformed) -> ArraySlice<UInt8> {
        guard count <= UInt64(bytes.count - offset) else { throw Malformed(reason: "a length past the end") }
        defer { offset += Int(count) }
        return bytes[offset..<offset + Int(count)]
    }

    /// The argument of an initial byte: the value itself, or the length of what follows.
    mutating func argument(_ additional: UInt8) throws(Malformed) -> UInt64 {
        switch additional {
        case 0..<24: return UInt64(additional)
        case 24...27:
            var value: UInt64 = 0
            for byte in try take(1 << (additional - 24)) { value = value << 8 | UInt64(byte) }
            return value
        case 31: throw Malformed(reason: "an indefinite length")
        default: throw Malformed(reason: "reserved additional information \(additional)")
        }
    }

    mutating func count(_ additional: UInt8) throws(Malformed) -> Int {
        let count = try argument(additional)
        // Each item takes at least one byte: a count beyond what remains cannot be honest.
        guard count <= UInt64(Self.maximumCount), count <= UInt64(bytes.count - offset) else {
            throw Malformed(reason: "\(count) items")
        }
        return Int(count)
    }

    mutating func item(depth: Int) throws(Malformed) -> CBOR {
        guard depth <= Self.maximumDepth else { throw Malformed(reason: "nested deeper than \(Self.maximumDepth)") }
        let initial = try byte()
        let major = initial >> 5
        let additional = initial & 0x1f
        switch major {
        case 0:
            let value = try argument(additional)
            guard value <= UInt64(Int64.max) else { throw Malformed(reason: "an integer beyond 64 bits") }
            return .integer(Int64(value))
        case 1:
            let value = try argument(additional)
            guard value <= UInt64(Int64.max) else { throw Malformed(reason: "an integer beyond 64 bits") }
            return .integer(-1 - Int64(value))
        case 2: return .bytes(Array(try take(try argument(additional))))
        case 3:
            let raw = try take(try argument(additional))
            guard let text = String(validating: raw, as: UTF8.self) else { throw Malformed(reason: "text that is not UTF-8") }
            return .text(text)
        case 4:
            var items: [CBOR] = []
            for _ in 0..<(try count(additional)) { items.append(try item(depth: depth + 1)) }
            return .array(items)
        case 5:
            var pairs: [CBOR.Pair] = []
            var keys = Set<CBOR>()
            for _ in 0..<(try count(additional)) {
                let key = try item(depth: depth + 1)
                guard keys.insert(key).inserted else { throw Malformed(reason: "a duplicate map key") }
                pairs.append(CBOR.Pair(key: key, value: try item(depth: depth + 1)))
            }
            return .map(pairs)
        case 6: throw Malformed(reason: "a tag")
        default:
            switch additional {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            default: throw Malformed(reason: "a float or simple value \(additional)")
            }
        }
    }
}
