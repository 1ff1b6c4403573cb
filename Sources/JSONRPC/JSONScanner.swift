/// Finds where the values of a JSON array, or one member of a JSON object, begin and end, without
/// building them: how a JSON-RPC batch is cut into its members on both sides of a call, each member
/// then parsed, or decoded into its type, on its own (the parser's tree of a whole batch would be
/// built only to be encoded again, member by member).
///
/// It walks only the structure between the values it finds (brackets, strings, commas), in one
/// linear pass without recursion; what lies inside each value is left to whoever reads it, which must
/// be a strict reader (``JSONParser``, or a decoder behind one).
public enum JSONScanner {
    /// The byte offsets of a top-level array's elements, in order; `nil` when `bytes` is not
    /// `[ value, … ]` with optional whitespace around its parts.
    public static func elements(ofArray bytes: some Collection<UInt8>) -> [Range<Int>]? {
        withBuffer(bytes) { buffer in
            var cursor = Cursor(buffer)
            return cursor.arrayElements()
        }
    }

    /// The byte offsets of the value of the member named `name` of a top-level object, its name
    /// compared byte for byte as written (an escaped name does not match); `nil` when there is no
    /// such member or `bytes` is not an object.
    public static func member(_ name: String, ofObject bytes: some Collection<UInt8>) -> Range<Int>? {
        withBuffer(bytes) { buffer in
            var cursor = Cursor(buffer)
            return cursor.member(Array(name.utf8))
        }
    }

    /// JSON's insignificant whitespace (RFC 8259 §2): space, tab, line feed, carriage return.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func withBuffer<T>(_ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        if let result = bytes.withContiguousStorageIfAvailable(body) { return result }
        return Array(bytes).withUnsafeBufferPointer(body)
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func arrayElements() -> [Range<Int>]? {
            skipWhitespace()
            guard consume(UInt8(ascii: "[")) else { return nil }
            var ranges: [Range<Int>] = []
            skipWhitespace()
            if !consume(UInt8(ascii: "]")) {
                while true {
                    guard let range = value() else { return nil }
                    ranges.append(range)
                    skipWhitespace()
                    if consume(UInt8(ascii: ",")) {
                        skipWhitespace()
                        continue
                    }
                    guard consume(UInt8(ascii: "]")) else { return nil }
                    break
                }
            }
            skipWhitespace()
            return index == bytes.count ? ranges : nil
        }

        mutating func member(_ name: [UInt8]) -> Range<Int>? {
            skipWhitespace()
            guard consume(UInt8(ascii: "{")) else { return nil }
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return nil }
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = value() else { return nil }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard let found = value() else { return nil }
                if key.count == name.count + 2, bytes[(key.lowerBound + 1)..<(key.upperBound - 1)].elementsEqual(name) {
                    return found
                }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) {
                    skipWhitespace()
                    continue
                }
                return nil
            }
        }

        /// The value starting here: a string, an object or array (to its balancing bracket, strings
        /// inside skipped whole), or a scalar (to the next delimiter).
        mutating func value() -> Range<Int>? {
            let start = index
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard skipString() else { return nil }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                repeat {
                    guard index < bytes.count else { return nil }
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return nil }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                    default:
                        break
                    }
                    index += 1
                } while depth > 0
            default:
                while index < bytes.count, !Self.isDelimiter(bytes[index]) { index += 1 }
                guard index > start else { return nil }
            }
            return start..<index
        }

        /// Past the closing quote of the string starting here.
        mutating func skipString() -> Bool {
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                default: index += 1
                }
            }
            return false
        }

        mutating func skipWhitespace() {
            while index < bytes.count, JSONScanner.isWhitespace(bytes[index]) { index += 1 }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        static func isDelimiter(_ byte: UInt8) -> Bool {
            JSONScanner.isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
                || byte == UInt8(ascii: ":")
        }
    }
}
