import Foundation
import IdentityToolkit
import JSONRPC
import Testing

/// Loads the real discovery schemas the gateway serves with.
enum Schemas {
    static let shared: DiscoverySchemas = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("proto-json/identitytoolkit/schemas.json")
        return try! DiscoverySchemas(contentsOf: url)
    }()
}

@Suite("Strict request validation (contract decision 15)")
struct RequestValidatorTests {
    let validator = RequestValidator(schemas: Schemas.shared)
    static let signUp = "GoogleCloudIdentitytoolkitV1SignUpRequest"
    static let update = "GoogleCloudIdentitytoolkitV1SetAccountInfoRequest"

    func body(_ json: String) throws -> JSONValue { try JSONCoding.parse(Array(json.utf8)) }

    func message(_ json: String, _ schema: String) throws -> String? {
        do {
            _ = try validator.validate(try body(json), schema: schema)
            return nil
        } catch let error as IdentityToolkitError {
            #expect(error.httpStatus == 400)
            #expect(error.status == "INVALID_ARGUMENT")
            return error.message
        }
    }

    @Test("fields the real API defines are accepted, including ones we do not act on")
    func acceptsKnownFields() throws {
        let request =
            #"{"email":"a@example.com","password":"secret1","returnSecureToken":true,"clientType":"CLIENT_TYPE_WEB","recaptchaVersion":"RECAPTCHA_ENTERPRISE","targetProjectId":"demo-project"}"#
        let normalised = try validator.validate(try body(request), schema: Self.signUp)
        #expect(normalised["email"] == "a@example.com")
        #expect(normalised["returnSecureToken"] == .bool(true))
    }

    @Test("an unknown field is refused with Google's exact message")
    func unknownField() throws {
        #expect(
            try message(#"{"email":"a@example.com","foo":1}"#, Self.signUp)
                == #"Invalid JSON payload received. Unknown name "foo": Cannot find field."#
        )
        #expect(
            try message(#"{"mfa":{"bogus":[]}}"#, Self.update)
                == #"Invalid JSON payload received. Unknown name "bogus" at 'mfa': Cannot find field."#
        )
    }

    @Test("a value of the wrong type is refused, naming its path")
    func wrongTypes() throws {
        #expect(try message(#"{"email":true}"#, Self.signUp) == "Invalid JSON payload received. /email must be string")
        #expect(try message(#"{"emailVerified":"yes"}"#, Self.signUp) == "Invalid JSON payload received. /emailVerified must be boolean")
        #expect(
            try message(#"{"mfa":{"enrollments":null}}"#, Self.update)
                == "Invalid JSON payload received. /mfa/enrollments must be array"
        )
        #expect(try message(#"{"mfaInfo":[7]}"#, Self.signUp) == "Invalid JSON payload received. /mfaInfo/0 must be object")
        #expect(try message("[1,2]", Self.signUp) == "Invalid JSON payload received. Root element must be a message.")
    }

    @Test("snake_case keys are read as lowerCamelCase, as Google's APIs do")
    func snakeCase() throws {
        let normalised = try validator.validate(
            try body(#"{"grant_type":"refresh_token","refresh_token":"abc"}"#), schema: "GrantTokenRequest"
        )
        #expect(normalised == ["grantType": "refresh_token", "refreshToken": "abc"])
        #expect(try message(#"{"grant_type":"x","grantType":"y"}"#, "GrantTokenRequest") != nil)
    }

    @Test("numbers for string fields become strings; enum indexes become names")
    func conversions() throws {
        let update = try validator.validate(try body(#"{"localId":"u1","validSince":1700000000}"#), schema: Self.update)
        #expect(update["validSince"] == "1700000000")
        let oob = try validator.validate(
            try body(#"{"requestType":6,"email":"a@example.com"}"#), schema: "GoogleCloudIdentitytoolkitV1GetOobCodeRequest"
        )
        #expect(oob["requestType"] == "EMAIL_SIGNIN")
        // The iOS SDK's revokeToken sends the enum's number as a string.
        let revoke = try validator.validate(try body(#"{"tokenType":"3"}"#), schema: "GoogleCloudIdentitytoolkitV2RevokeTokenRequest")
        #expect(revoke["tokenType"] == "CODE")
        #expect(
            try message(#"{"requestType":"NOT_A_TYPE"}"#, "GoogleCloudIdentitytoolkitV1GetOobCodeRequest")
                == "Invalid JSON payload received. Invalid value at 'requestType'."
        )
    }

    @Test("hostile keys are echoed only short and printable")
    func hostileKeys() throws {
        let key = String(repeating: "k", count: 5000) + "\\u0001"
        let text = try #require(try message("{\"\(key)\":1}", Self.signUp))
        #expect(text.count < 200)
        #expect(!text.contains("\u{1}"))
    }

    @Test("a string holding U+0000, in the body or the query, is refused with its location")
    func refusesNUL() throws {
        #expect(
            try message(#"{"email":"a\u0000@example.com"}"#, Self.signUp)
                == "Invalid JSON payload received. Invalid value at 'email' (TYPE_STRING): the character U+0000 is not accepted."
        )
        #expect(
            try message(#"{"email":"a@example.com","mfaInfo":[{"displayName":"\u0000"}]}"#, Self.signUp)?.contains(
                "'mfaInfo.0.displayName'") == true)
        #expect(try message(#"{"email":"a@example.com"}"#, Self.signUp) == nil)
        #expect(throws: IdentityToolkitError.self) { try validator.validateQuery(["nextPageToken": "a\u{0}b"]) }
        try validator.validateQuery(["nextPageToken": "abc", "maxResults": "2"])
    }
}
