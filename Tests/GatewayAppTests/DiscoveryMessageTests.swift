import IdentityToolkit
import JSONRPC
import Testing

@testable import GatewayApp

/// The gateway's request and answer types against the discovery document they mirror: every member a type
/// declares is one its schema defines, of a type that decodes what the validator lets through.
@Suite("Typed public requests and answers")
struct DiscoveryMessageTests {
    /// Every message the gateway decodes, bodies and the messages inside them.
    static let types: [any DiscoveryMessage.Type] = [
        SignUpRequest.self, MFAFactor.self, SignInWithPasswordRequest.self, GetAccountInfoRequest.self,
        DeleteAccountRequest.self, SetAccountInfoRequest.self, MFAEnrollmentList.self, MFAEnrollment.self, TOTPInfo.self,
        GetOOBCodeRequest.self, ResetPasswordRequest.self, SignInWithEmailLinkRequest.self,
        SignInWithCustomTokenRequest.self, SendVerificationCodeRequest.self, SignInWithPhoneNumberRequest.self,
        GrantTokenRequest.self, UploadAccountRequest.self, UserInfo.self, BatchDeleteAccountsRequest.self,
        VerifyIosClientRequest.self, StartMFAEnrollmentRequest.self, FinalizeMFAEnrollmentRequest.self,
        WithdrawMFARequest.self, StartMFASignInRequest.self, FinalizeMFASignInRequest.self,
        StartMFAPhoneRequestInfo.self, FinalizeMFAPhoneRequestInfo.self, StartMFATOTPEnrollmentRequestInfo.self,
        FinalizeMFATOTPEnrollmentRequestInfo.self, MFATOTPSignInRequestInfo.self, MFAWithdrawEnrollmentRequest.self,
        ResumeSMSRegionRequest.self, StartMFAEnrollmentResponse.self, StartMFASignInResponse.self,
        StartMFAPhoneResponseInfo.self, StartMFATOTPEnrollmentResponseInfo.self, VerifyIosClientResponse.self,
        SendVerificationCodeResponse.self, FinalizeMFASignInResponse.self, FinalizeMFAEnrollmentResponse.self,
        ProviderUserInfo.self, SignUpResponse.self, SignInWithPasswordResponse.self, SignInWithEmailLinkResponse.self,
        SignInWithCustomTokenResponse.self, SignInWithPhoneNumberResponse.self, DeleteAccountResponse.self,
        GetOOBCodeResponse.self, GetAccountInfoResponse.self, SetAccountInfoResponse.self, ResetPasswordResponse.self,
        DownloadAccountResponse.self, GrantTokenResponse.self, BatchDeleteAccountsResponse.self, BatchDeleteErrorInfo.self,
        UploadAccountResponse.self, ErrorInfo.self, PasskeyInfo.self, StartPasskeyEnrollmentRequest.self,
        FinalizePasskeyEnrollmentRequest.self, AuthenticatorRegistrationResponse.self, AuthenticatorAttestationResponse.self,
        StartPasskeySignInRequest.self, FinalizePasskeySignInRequest.self, AuthenticatorAuthenticationResponse.self,
        AuthenticatorAssertionResponse.self,
    ]

    @Test("each type names a message of the discovery document", arguments: types.map { String(describing: $0) })
    func namesAMessage(_ name: String) throws {
        let type = try #require(Self.types.first { String(describing: $0) == name })
        #expect(Discovery.validator.members(of: type.schema) != nil, "\(name): no message \(type.schema)")
    }

    /// A body with every member of the schema, each a value of its schema type, decodes with every
    /// member of the type set (so each member's name is the schema's, nested messages included)
    /// and encodes back to the same values (so each member's type is the schema's).
    @Test("each type's members are its message's members, by name and type", arguments: types.map { String(describing: $0) })
    func membersMatchTheSchema(_ name: String) throws {
        let type = try #require(Self.types.first { String(describing: $0) == name })
        try check(type)
    }

    @Test("a body is decoded, and an answer written, only as its own operation's message")
    func onlyItsOwnMessages() throws {
        let harness = MFASignInFinalizeTests()
        let request = try harness.request(["mfaPendingCredential": "c"], operation: "identitytoolkit.accounts.mfaSignIn.start")
        #expect(try request.decode(StartMFASignInRequest.self).mfaPendingCredential == "c")
        #expect(throws: BodyTypeMismatch.self) { try request.decode(FinalizeMFASignInRequest.self) }
        let answer = StartMFASignInResponse(phoneResponseInfo: .init(sessionInfo: "s"))
        #expect(try request.answer(answer) == ["phoneResponseInfo": ["sessionInfo": "s"]])
        #expect(throws: BodyTypeMismatch.self) { try request.answer(SendVerificationCodeResponse(sessionInfo: "s")) }
    }

    private func check<Message: DiscoveryMessage>(_: Message.Type) throws {
        let sample = try #require(Self.sample(message: Message.schema, depth: 0))
        let decoded = try JSONCoding.decode(Message.self, from: sample)
        let unset = Self.unsetMembers(of: decoded, path: "")
        #expect(unset.isEmpty, "\(Message.self) has members \(Message.schema) does not define (or of another message): \(unset)")
        let encoded = try JSONCoding.value(of: decoded)
        #expect(Self.isPart(encoded, of: sample), "\(Message.self) does not give back what it decoded: \(encoded)")
    }

    /// A value of every member, by the schema's types, nested messages to a depth of four (an
    /// imported factor's `totpInfo` is at the fourth: `users[].mfaInfo[].totpInfo.sharedSecretKey`).
    static func sample(message name: String, depth: Int) -> JSONValue? {
        guard let members = Discovery.validator.members(of: name) else { return nil }
        guard depth < 4 else { return .object([:]) }
        var result: [String: JSONValue] = [:]
        for (member, property) in members { result[member] = sample(property, depth: depth) }
        return .object(result)
    }

    static func sample(_ property: JSONValue, depth: Int) -> JSONValue {
        if let reference = property["$ref"]?.stringValue {
            let name = String(reference.split(separator: "/").last ?? "")
            return sample(message: name, depth: depth + 1) ?? .object([:])
        }
        switch property["type"]?.stringValue {
        case "string":
            if case .array(let names)? = property["enum"], let last = names.last { return last }
            switch property["format"]?.stringValue {
            case "int64": return "12"
            case "byte": return "c2FsdA=="
            default: return "text"
            }
        case "integer": return 7
        case "number": return .double(1.5)
        case "boolean": return true
        case "array": return [sample(property["items"] ?? .object([:]), depth: depth)]
        case "object":
            guard let values = property["additionalProperties"], case .object = values else { return .object([:]) }
            return ["key": sample(values, depth: depth)]
        default: return .object([:])
        }
    }

    /// The paths of optional members left `nil`: a member the sample did not have.
    static func unsetMembers(of value: Any, path: String) -> [String] {
        var unset: [String] = []
        for child in Mirror(reflecting: value).children {
            let childPath = path + "/" + (child.label ?? "?")
            let mirror = Mirror(reflecting: child.value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else {
                    unset.append(childPath)
                    continue
                }
                unset += unsetMembers(inside: wrapped, path: childPath)
            } else {
                unset += unsetMembers(inside: child.value, path: childPath)
            }
        }
        return unset
    }

    private static func unsetMembers(inside value: Any, path: String) -> [String] {
        switch value {
        case let message as any DiscoveryMessage: return unsetMembers(of: message, path: path)
        case let items as [any DiscoveryMessage]: return items.flatMap { unsetMembers(of: $0, path: path + "/0") }
        default: return []
        }
    }

    /// Whether every member of `part` is in `whole` with the same value (objects compared member by member).
    static func isPart(_ part: JSONValue, of whole: JSONValue) -> Bool {
        switch (part, whole) {
        case (.object(let members), .object(let wholeMembers)):
            return members.allSatisfy { key, value in wholeMembers[key].map { isPart(value, of: $0) } ?? false }
        case (.array(let items), .array(let wholeItems)):
            return items.count == wholeItems.count && zip(items, wholeItems).allSatisfy { isPart($0, of: $1) }
        default:
            return part == whole
        }
    }
}
