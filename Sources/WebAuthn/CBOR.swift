/// A CBOR data item (RFC 8949) of the kinds WebAuthn uses: the attestation object, COSE keys and
/// extension outputs. Floats, tags and indefinite lengths never occur there and are refused by
/// ``CBORDecoder``; a map keeps its pairs in the order they came.
public indirect enum CBOR: Sendable, Hashable {
    case integer(Int64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    case map([Pair])
    case bool(Bool)
    case null

    public struct Pair: Sendable, Hashable {
        public let key: CBOR
        public let value: CBOR
    }

    /// The value under `key` in a map; `nil` for another kind or a missing key.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    public subscript(label: Int64) -> CBOR? { self[.integer(label)] }
    public subscript(name: String) -> CBOR? { self[.text(name)] }

    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    public var bytes: [UInt8]? { if case .bytes(let value) = self { value } else { nil } }
    public var text: String? { if case .text(let value) = self { value } else { nil } }
}
