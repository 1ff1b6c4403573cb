import Foundation
import Testing

@testable import WebAuthn

/// The two ceremonies (WebAuthn §7.1, §7.2) against vectors that python-fido2's server accepted
/// (make-vectors.py), and every way to spoil them.
@Suite("WebAuthn ceremonies")
struct CeremonyTests {
    struct Vector {
        let algorithm: String
        let party: RelyingParty
        let credentialId: [UInt8]
        let userHandle: [UInt8]
        let publicKey: [UInt8]
        let registrationChallenge: [UInt8]
        let registrationClientData: [UInt8]
        let attestationObject: [UInt8]
        let assertionChallenge: [UInt8]
        let assertionClientData: [UInt8]
        let authenticatorData: [UInt8]
        let signature: [UInt8]
    }

    static let vectors: [Vector] = {
        let list = try! JSONSerialization.jsonObject(with: Data(Vectors.json.utf8)) as! [[String: Any]]
        func bytes(_ text: Any?) -> [UInt8] { Base64Bytes.decode(text as! String)! }
        return list.map { entry in
            let registration = entry["registration"] as! [String: Any]
            let assertion = entry["assertion"] as! [String: Any]
            return Vector(
                algorithm: entry["algorithm"] as! String,
                party: RelyingParty(id: entry["rpId"] as! String, origins: [entry["origin"] as! String]),
                credentialId: bytes(entry["credentialId"]), userHandle: bytes(entry["userHandle"]), publicKey: bytes(entry["publicKey"]),
                registrationChallenge: bytes(registration["challenge"]), registrationClientData: bytes(registration["clientDataJSON"]),
                attestationObject: bytes(registration["attestationObject"]), assertionChallenge: bytes(assertion["challenge"]),
                assertionClientData: bytes(assertion["clientDataJSON"]), authenticatorData: bytes(assertion["authenticatorData"]),
                signature: bytes(assertion["signature"])
            )
        }
    }()

    static var algorithms: [String] { vectors.map(\.algorithm) }
    static func vector(_ algorithm: String) -> Vector { vectors.first { $0.algorithm == algorithm }! }

    func register(
        _ v: Vector, party: RelyingParty? = nil, clientData: [UInt8]? = nil, challenge: [UInt8]? = nil,
        claimed: [UInt8]? = nil
    ) throws -> RelyingParty.Registration {
        try (party ?? v.party).register(
            clientDataJSON: clientData ?? v.registrationClientData, attestationObject: v.attestationObject,
            challenge: challenge ?? v.registrationChallenge, claimedCredentialId: claimed ?? v.credentialId)
    }

    func authenticate(
        _ v: Vector, party: RelyingParty? = nil, clientData: [UInt8]? = nil, data: [UInt8]? = nil, signature: [UInt8]? = nil,
        userHandle: [UInt8]? = nil, challenge: [UInt8]? = nil, storedSignCount: UInt32 = 0
    ) throws -> RelyingParty.Assertion {
        try (party ?? v.party).authenticate(
            clientDataJSON: clientData ?? v.assertionClientData, authenticatorData: data ?? v.authenticatorData,
            signature: signature ?? v.signature, userHandle: userHandle ?? v.userHandle, challenge: challenge ?? v.assertionChallenge,
            publicKey: try COSEKey(CBORDecoder.decode(v.publicKey)), storedSignCount: storedSignCount, storedUserHandle: v.userHandle)
    }

    /// Client data as a browser writes it, with one member changed.
    static func clientData(_ raw: [UInt8], _ change: (inout [String: Any]) -> Void) -> [UInt8] {
        var object = try! JSONSerialization.jsonObject(with: Data(raw)) as! [String: Any]
        change(&object)
        return Array(try! JSONSerialization.data(withJSONObject: object))
    }

    @Test("the oracle's registration and sign-in pass, and the stored key is the authenticator's", arguments: algorithms)
    func accepted(algorithm: String) throws {
        let v = Self.vector(algorithm)
        let registration = try register(v)
        #expect(registration.credentialId == v.credentialId && registration.publicKeyBytes == v.publicKey)
        #expect(registration.publicKey.algorithm == COSEKey.Algorithm.allCases.first { "\($0)".lowercased() == algorithm.lowercased() })
        #expect(registration.flags.contains([.userPresent, .userVerified, .backupEligible]))
        #expect(try authenticate(v).signCount == 7)
        // The iOS SDK sends no user handle in the discovery shape: it is then not compared.
        #expect(
            try v.party.authenticate(
                clientDataJSON: v.assertionClientData, authenticatorData: v.authenticatorData, signature: v.signature, userHandle: nil,
                challenge: v.assertionChallenge, publicKey: registration.publicKey, storedSignCount: 6, storedUserHandle: v.userHandle
            ).signCount == 7)
    }

    @Test("a registration is refused for the wrong challenge, origin, type, rp id or credential id", arguments: algorithms)
    func registrationRefusals(algorithm: String) {
        let v = Self.vector(algorithm)
        let refused: [(String, () throws -> Void)] = [
            ("challenge", { _ = try register(v, challenge: v.assertionChallenge) }),
            ("origin", { _ = try register(v, party: RelyingParty(id: v.party.id, origins: ["https://evil.example"])) }),
            ("origin's case", { _ = try register(v, party: RelyingParty(id: v.party.id, origins: [v.party.origins[0].uppercased()])) }),
            ("type", { _ = try register(v, clientData: Self.clientData(v.registrationClientData) { $0["type"] = "webauthn.get" }) }),
            ("cross origin", { _ = try register(v, clientData: Self.clientData(v.registrationClientData) { $0["crossOrigin"] = true }) }),
            ("rp id", { _ = try register(v, party: RelyingParty(id: "example.com", origins: v.party.origins)) }),
            ("credential id", { _ = try register(v, claimed: Array(v.credentialId.reversed())) }),
            ("client data", { _ = try register(v, clientData: Array("not json".utf8)) }),
        ]
        for (what, attempt) in refused {
            #expect(throws: RelyingParty.Refusal.self, "\(algorithm): \(what)") { try attempt() }
        }
    }

    @Test("a sign-in is refused for a spoiled signature, flags, challenge, origin, user or counter", arguments: algorithms)
    func assertionRefusals(algorithm: String) {
        let v = Self.vector(algorithm)
        var badSignature = v.signature
        badSignature[badSignature.count / 2] ^= 0x01
        func flags(_ transform: (UInt8) -> UInt8) -> [UInt8] {
            var data = v.authenticatorData
            data[32] = transform(data[32])
            return data
        }
        var counted = v.authenticatorData
        counted[36] ^= 0x02  // a signed counter changed after signing
        let refused: [(String, () throws -> Void)] = [
            ("signature", { _ = try authenticate(v, signature: badSignature) }),
            ("empty signature", { _ = try authenticate(v, signature: []) }),
            ("UV cleared", { _ = try authenticate(v, data: flags { $0 & ~0x04 }) }),
            ("UP cleared", { _ = try authenticate(v, data: flags { $0 & ~0x01 }) }),
            ("signed data changed", { _ = try authenticate(v, data: counted) }),
            ("challenge", { _ = try authenticate(v, challenge: v.registrationChallenge) }),
            ("origin", { _ = try authenticate(v, party: RelyingParty(id: v.party.id, origins: ["http://localhost:9999"])) }),
            ("rp id", { _ = try authenticate(v, party: RelyingParty(id: "127.0.0.1", origins: v.party.origins)) }),
            ("type", { _ = try authenticate(v, clientData: v.registrationClientData, challenge: v.registrationChallenge) }),
            ("another user's handle", { _ = try authenticate(v, userHandle: [1, 2, 3]) }),
            ("counter not moving", { _ = try authenticate(v, storedSignCount: 7) }),
            ("counter going back", { _ = try authenticate(v, storedSignCount: 900) }),
        ]
        for (what, attempt) in refused {
            #expect(throws: RelyingParty.Refusal.self, "\(algorithm): \(what)") { try attempt() }
        }
    }

    @Test("authenticator data is parsed strictly")
    func authenticatorData() throws {
        let v = Self.vector("ES256")
        #expect(throws: AuthenticatorData.Malformed.self) { try AuthenticatorData(Array(v.authenticatorData.prefix(36))) }
        #expect(throws: AuthenticatorData.Malformed.self) { try AuthenticatorData(v.authenticatorData + [0]) }
        var backedUpOnly = v.authenticatorData
        backedUpOnly[32] = (backedUpOnly[32] & ~0x08) | 0x10
        #expect(throws: AuthenticatorData.Malformed.self) { try AuthenticatorData(backedUpOnly) }
        var claimsExtensions = v.authenticatorData
        claimsExtensions[32] |= 0x80
        #expect(throws: AuthenticatorData.Malformed.self) { try AuthenticatorData(claimsExtensions) }
        #expect(throws: Never.self) { try AuthenticatorData(claimsExtensions + [0xa0]) }
        var claimsCredential = v.authenticatorData
        claimsCredential[32] |= 0x40
        #expect(throws: AuthenticatorData.Malformed.self) {
            try AuthenticatorData(claimsCredential + [UInt8](repeating: 0, count: 16) + [0x04, 0x00])
        }
    }

    @Test("keys of other algorithms, curves or sizes are refused")
    func keys() throws {
        let es256 = try CBORDecoder.decode(Self.vector("ES256").publicKey)
        func with(_ label: Int64, _ value: CBOR) -> CBOR {
            guard case .map(let pairs) = es256 else { return es256 }
            return .map(pairs.map { $0.key == .integer(label) ? .init(key: $0.key, value: value) : $0 })
        }
        #expect(throws: Never.self) { try COSEKey(es256) }
        #expect(throws: COSEKey.Unsupported.self) { try COSEKey(with(3, .integer(-35))) }  // ES384
        #expect(throws: COSEKey.Unsupported.self) { try COSEKey(with(-1, .integer(2))) }  // P-384's curve
        #expect(throws: COSEKey.Unsupported.self) { try COSEKey(with(1, .integer(3))) }  // kty RSA with alg ES256
        #expect(throws: COSEKey.Unsupported.self) { try COSEKey(with(-2, .bytes([UInt8](repeating: 7, count: 32)))) }  // off the curve
        let small: CBOR = .map([
            .init(key: .integer(1), value: .integer(3)), .init(key: .integer(3), value: .integer(-257)),
            .init(key: .integer(-1), value: .bytes([0xc1] + [UInt8](repeating: 0x35, count: 127))),
            .init(key: .integer(-2), value: .bytes([1, 0, 1])),
        ])
        #expect(throws: COSEKey.Unsupported.self) { try COSEKey(small) }  // 1,024-bit RSA
        #expect(throws: COSEKey.Unsupported.self) { try COSEKey(.array([])) }
    }

    @Test("either base64 alphabet, padded or not; nothing else")
    func base64() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xbf, 0x01]
        #expect(Base64Bytes.decode("+/+/AQ==") == bytes && Base64Bytes.decode("-_-_AQ") == bytes)
        #expect(Base64Bytes.url(bytes) == "-_-_AQ" && Base64Bytes.standard(bytes) == "+/+/AQ==")
        #expect(Base64Bytes.decode("A") == nil && Base64Bytes.decode("a b") == nil && Base64Bytes.decode("é") == nil)
    }
}
