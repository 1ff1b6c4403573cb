/// What the authenticator signs (WebAuthn §6.1): the relying party's id hash, the flags, the
/// signature counter and, at registration, the new credential (its id and public key), then any
/// extensions. Parsed strictly: every length is checked and nothing may follow the last part.
public struct AuthenticatorData: Sendable {
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backedUp = Flags(rawValue: 0x10)
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        public static let extensionData = Flags(rawValue: 0x80)
    }

    public struct AttestedCredential: Sendable {
        public let aaguid: [UInt8]
        public let credentialId: [UInt8]
        public let publicKey: COSEKey
        /// The COSE_Key's bytes as sent, to store and parse again at each sign-in.
        public let publicKeyBytes: [UInt8]
    }

    public struct Malformed: Error, Hashable, CustomStringConvertible {
        public let reason: String
        public var description: String { "malformed authenticator data: \(reason)" }
    }

    /// WebAuthn caps credential ids at 1,023 bytes.
    public static let maximumCredentialIdLength = 1023

    public let raw: [UInt8]
    public let rpIdHash: [UInt8]
    public let flags: Flags
    public let signCount: UInt32
    public let attestedCredential: AttestedCredential?

    public init(_ raw: [UInt8]) throws(Malformed) {
        guard raw.count >= 37 else { throw Malformed(reason: "\(raw.count) bytes, under 37") }
        self.raw = raw
        rpIdHash = Array(raw[0..<32])
        flags = Flags(rawValue: raw[32])
        signCount = raw[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard raw.count >= offset + 18 else { throw Malformed(reason: "attested credential data truncated") }
            let aaguid = Array(raw[offset..<offset + 16])
            let length = Int(raw[offset + 16]) << 8 | Int(raw[offset + 17])
            offset += 18
            guard length > 0, length <= Self.maximumCredentialIdLength, raw.count >= offset + length else {
                throw Malformed(reason: "a credential id of \(length) bytes")
            }
            let credentialId = Array(raw[offset..<offset + length])
            offset += length
            let keyItem: CBOR
            let keyEnd: Int
            do { (keyItem, keyEnd) = try CBORDecoder.decodePrefix(raw, from: offset) } catch {
                throw Malformed(reason: "the public key: \(error.reason)")
            }
            let publicKey: COSEKey
            do { publicKey = try COSEKey(keyItem) } catch { throw Malformed(reason: error.reason) }
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialId: credentialId, publicKey: publicKey, publicKeyBytes: Array(raw[offset..<keyEnd])
            )
            offset = keyEnd
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            let extensions: CBOR
            let end: Int
            do { (extensions, end) = try CBORDecoder.decodePrefix(raw, from: offset) } catch {
                throw Malformed(reason: "the extensions: \(error.reason)")
            }
            guard case .map = extensions else { throw Malformed(reason: "extensions that are not a map") }
            offset = end
        }
        guard offset == raw.count else { throw Malformed(reason: "\(raw.count - offset) bytes after the last part") }
        // A credential cannot be backed up without being eligible for it.
        guard !flags.contains(.backedUp) || flags.contains(.backupEligible) else { throw Malformed(reason: "backed up, not eligible") }
    }
}
