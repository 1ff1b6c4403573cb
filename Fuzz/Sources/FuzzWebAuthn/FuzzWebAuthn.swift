import FuzzerDriver
import WebAuthn

/// What an authenticator's bytes go through first: the strict CBOR decoder, the authenticator data
/// parser (with its COSE key), and a registration's checks on an attestation object. What must hold
/// for any bytes: each answers or refuses, never traps, and a decoded item re-reads the same from its
/// own prefix (the decoder consumed exactly what it reported).
private let party = RelyingParty(id: "localhost", origins: ["http://localhost:8080"])
private let clientData = Array(
    #"{"type":"webauthn.create","challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","origin":"http://localhost:8080"}"#.utf8)
private let challenge = (0..<32).map { UInt8($0) }

@_cdecl("FuzzWebAuthn_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzWebAuthn(Array(UnsafeBufferPointer(start: data, count: size)))
    }
}

public func fuzzWebAuthn(_ bytes: [UInt8]) -> CInt {
    if let (item, end) = try? CBORDecoder.decodePrefix(bytes, from: 0) {
        precondition(end > 0 && end <= bytes.count, "an item that ends at \(end) of \(bytes.count)")
        precondition((try? CBORDecoder.decode(Array(bytes[..<end]))) == item, "a prefix that reads differently alone")
    }
    _ = try? AuthenticatorData(bytes)
    _ = try? party.register(clientDataJSON: clientData, attestationObject: bytes, challenge: challenge, claimedCredentialId: nil)
    return 0
}
