/// Turns the bytes of a JSON document (RFC 8259) into a `JSONValue` in one pass.
///
/// Why not `JSONDecoder` into `JSONValue`: a `Decodable` cannot ask which kind of value comes next,
/// so it tries each scalar type before the containers at every level, and each failed try builds a
/// `DecodingError` carrying the whole coding path — O(depth²) per value. Twelve arrays nested 500
/// deep (a 12 KB body) cost more than a second of event-loop time (issue 40, H-2). This parser looks
/// at the next byte instead, so its cost is linear in the input, and it refuses nesting deeper than
/// `maximumDepth` before recursing further (no request the discovery documents describe comes near).
///
/// Strict, as a public endpoint's parser should be: no trailing commas, comments, leading zeros,
/// `NaN` or control characters in strings; strings must be valid UTF-8 and escapes valid UTF-16
/// (no lone surrogates); a member name may appear once per object, so no two readers of one body can
/// disagree about which value counts. Numbers keep `JSONValue`'s reading: an integral value that fits
/// `Int64` exactly is `.int`, anything else a finite `.double`.
public struct JSONParser: ~Copyable {
    /// How deeply arrays and objects may nest. A public request needs about five levels, an RPC
    /// envelope around it three more.
    public static let maximumDepth = 64

    /// Why a document was refused, with the byte offset where it went wrong. Never echoes input.
    public struct Refusal: Error, CustomStringConvertible, Equatable {
        public enum Reason: String, Sendable {
            case unexpectedByte = "unexpected byte"
            case unexpectedEnd = "unexpected end"
            case tooDeep = "nested too deeply"
            case invalidNumber = "number not representable"
            case invalidString = "invalid string"
            case duplicateMember = "member named twice"
        }

        public var reason: Reason
        public var offset: Int

        public init(reason: Reason, offset: Int) {
            self.reason = reason
            self.offset = offset
        }

        public var description: String { "JSON refused at byte \(offset): \(reason.rawValue)" }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let maximumDepth: Int

    private init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON value surrounded by optional whitespace.
    public static func parse(_ input: some Collection<UInt8>, maximumDepth: Int = Self.maximumDepth) throws(Refusal)
        -> JSONValue
    {
        func run(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, Refusal> {
            var parser = JSONParser(bytes: buffer, maximumDepth: maximumDepth)
            return Result { () throws(Refusal) in try parser.document() }
        }
        let result =
            input.withContiguousStorageIfAvailable(run)
            ?? Array(input).withUnsafeBufferPointer(run)
        return try result.get()
    }

    private mutating func document() throws(Refusal) -> JSONValue {
        skipWhitespace()
        let value = try self.value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw refusal(.unexpectedByte) }
        return value
    }

    private mutating func value(depth: Int) throws(Refusal) -> JSONValue {
        guard index < bytes.count else { throw refusal(.unexpectedEnd) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw refusal(.unexpectedByte)
        }
    }

    private mutating func object(depth: Int) throws(Refusal) -> JSONValue {
        guard depth <= maximumDepth else { throw refusal(.tooDeep) }
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw refusal(.unexpectedEnd) }
            guard bytes[index] == UInt8(ascii: "\"") else { throw refusal(.unexpectedByte) }
            let nameOffset = index
            let name = try string()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw refusal(.unexpectedByte) }
            skipWhitespace()
            let member = try value(depth: depth)
            guard members.updateValue(member, forKey: name) == nil else {
                throw Refusal(reason: .duplicateMember, offset: nameOffset)
            }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if consume(UInt8(ascii: "}")) { return .object(members) }
            throw refusal(.unexpectedByte)
        }
    }

    private mutating func array(depth: Int) throws(Refusal) -> JSONValue {
        guard depth <= maximumDepth else { throw refusal(.tooDeep) }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if consume(UInt8(ascii: "]")) { return .array(elements) }
            throw refusal(.unexpectedByte)
        }
    }

    private mutating func string() throws(Refusal) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes, so the bytes between the quotes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try validUTF8(UnsafeBufferPointer(rebasing: bytes[start..<index]), at: start)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw refusal(.invalidString) }
            index += 1
        }
        guard index < bytes.count else { throw refusal(.unexpectedEnd) }
        var unescaped = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try unescaped.withUnsafeBufferPointer { buffer throws(Refusal) in
                    try validUTF8(buffer, at: start)
                }
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &unescaped)
            case ..<0x20:
                throw refusal(.invalidString)
            default:
                unescaped.append(byte)
                index += 1
            }
        }
        throw refusal(.unexpectedEnd)
    }

    private mutating func escape(into output: inout [UInt8]) throws(Refusal) {
        guard index < bytes.count else { throw refusal(.unexpectedEnd) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try hexUnit()
            let scalar: Unicode.Scalar?
            switch unit {
            case 0xD800...0xDBFF:
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw refusal(.invalidString) }
                index += 2
                let low = try hexUnit()
                guard (0xDC00...0xDFFF).contains(low) else { throw refusal(.invalidString) }
                scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
            case 0xDC00...0xDFFF: scalar = nil
            default: scalar = Unicode.Scalar(UInt32(unit))
            }
            guard let scalar else { throw refusal(.invalidString) }
            output.append(contentsOf: UTF8.encode(scalar)!)
        default:
            index -= 1
            throw refusal(.invalidString)
        }
    }

    private mutating func hexUnit() throws(Refusal) -> UInt16 {
        guard index + 4 <= bytes.count else { throw refusal(.unexpectedEnd) }
        var unit: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw refusal(.invalidString)
            }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    private mutating func number() throws(Refusal) -> JSONValue {
        let start = index
        var integral = true
        _ = consume(UInt8(ascii: "-"))
        // Integer part: a single 0, or a digit 1-9 followed by digits.
        guard index < bytes.count else { throw refusal(.unexpectedEnd) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw refusal(.unexpectedByte) }
        }
        if consume(UInt8(ascii: ".")) {
            integral = false
            guard digits() > 0 else { throw refusal(.invalidNumber) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw refusal(.invalidNumber) }
        }
        // The number's bytes are ASCII by construction.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw Refusal(reason: .invalidNumber, offset: start) }
        if let exact = Int64(exactly: value) { return .int(exact) }
        return .double(value)
    }

    /// Consumes a run of ASCII digits and answers how many there were.
    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString) throws(Refusal) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw refusal(.unexpectedEnd) }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            index += offset
            throw refusal(.unexpectedByte)
        }
        index += count
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func validUTF8(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int) throws(Refusal) -> String {
        guard let text = String(validating: buffer, as: UTF8.self) else {
            throw Refusal(reason: .invalidString, offset: offset)
        }
        return text
    }

    private func refusal(_ reason: Refusal.Reason) -> Refusal {
        Refusal(reason: index >= bytes.count && reason == .unexpectedByte ? .unexpectedEnd : reason, offset: index)
    }
}
