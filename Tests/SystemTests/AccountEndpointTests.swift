import AsyncHTTPClient
import Foundation
import JSONRPC
import NIOCore
import NIOHTTP1
import ServiceKit
import Testing

/// Every account and token endpoint over the running four-process stack, with the error strings
/// of each check in the contract's order (§2.1-§2.7, §2.14, §2.17). Python's client tests drive
/// the same endpoints through independent clients (firebase-admin, PyJWT).
@Suite("Accounts and tokens over the running stack: each endpoint and its refusals in contract order", .serialized)
struct AccountEndpointTests {
    typealias Answer = PublicAPITests.Answer

    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let admin = "\(v1)/projects/demo-project"

    static func post(_ stack: TestStack, _ path: String, _ body: JSONValue, admin: Bool = false) async throws -> Answer {
        let text = String(decoding: try JSONCoding.encode(body), as: UTF8.self)
        var headers = [("content-type", "application/json")]
        if admin { headers.append(("authorization", "Bearer owner")) }
        let url = admin || path.contains("?") ? path : path + "?key=k"
        return try await PublicAPITests.send(stack, .POST, url, body: text, headers: headers)
    }

    /// Sends each body and expects the business error next to it, in order.
    static func expectRefusals(
        _ stack: TestStack, _ path: String, _ cases: [(JSONValue, String)], admin: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for (body, message) in cases {
            let answer = try await post(stack, path, body, admin: admin)
            #expect(answer.status == 400, "\(body)", sourceLocation: sourceLocation)
            #expect(answer.message == message, "\(body)", sourceLocation: sourceLocation)
        }
    }

    @Test("client endpoints: signUp, signInWithPassword, lookup, update, sendOobCode, custom tokens, refresh, delete")
    func clientEndpoints() async throws {
        try await TestStack.with { stack in
            try await stack.start(PublicAPITests.services)
            let email = "ada-\(UUID().uuidString.prefix(8))@example.com"

            try await Self.expectRefusals(
                stack, "\(Self.v1)/accounts:signUp",
                [
                    (["localId": "x", "email": .string(email)], "UNEXPECTED_PARAMETER : User ID"),
                    (["password": "secret-pw"], "MISSING_EMAIL"),
                    (["email": .string(email)], "MISSING_PASSWORD"),
                    (["email": "not-an-email", "password": "secret-pw"], "INVALID_EMAIL"),
                    (["email": .string(email), "password": "short"], "WEAK_PASSWORD : Password should be at least 6 characters"),
                ]
            )
            let signedUp = try await Self.post(stack, "\(Self.v1)/accounts:signUp", ["email": .string(email), "password": "secret-pw"])
            #expect(signedUp.status == 200)
            let idToken = try #require(signedUp.body?["idToken"]?.stringValue)
            let refreshToken = try #require(signedUp.body?["refreshToken"]?.stringValue)
            try await Self.expectRefusals(
                stack, "\(Self.v1)/accounts:signUp", [(["email": .string(email.uppercased()), "password": "secret-pw"], "EMAIL_EXISTS")]
            )

            try await Self.expectRefusals(
                stack, "\(Self.v1)/accounts:signInWithPassword",
                [
                    (["password": "secret-pw"], "MISSING_EMAIL"),
                    (["email": "bad", "password": "secret-pw"], "INVALID_EMAIL"),
                    (["email": .string(email)], "MISSING_PASSWORD"),
                    (["email": "nobody@example.com", "password": "secret-pw"], "EMAIL_NOT_FOUND"),
                    (["email": .string(email), "password": "wrong-pw"], "INVALID_PASSWORD"),
                ]
            )
            let signedIn = try await Self.post(
                stack, "\(Self.v1)/accounts:signInWithPassword", ["email": .string(email), "password": "secret-pw"]
            )
            #expect(signedIn.status == 200)
            #expect(signedIn.body?["registered"] == .bool(true))

            try await Self.expectRefusals(
                stack, "\(Self.v1)/accounts:lookup", [([:], "MISSING_ID_TOKEN"), (["idToken": "garbage"], "INVALID_ID_TOKEN")]
            )
            let lookedUp = try await Self.post(stack, "\(Self.v1)/accounts:lookup", ["idToken": .string(idToken)])
            #expect(lookedUp.body?["users"]?.first?["email"]?.stringValue == email)

            try await Self.expectRefusals(
                stack, "\(Self.v1)/accounts:update",
                [
                    (["displayName": "x"], "INVALID_REQ_TYPE : Unsupported request parameters."),
                    (["idToken": .string(idToken), "customAttributes": "{}"], "INSUFFICIENT_PERMISSION"),
                    (["idToken": .string(idToken), "disableUser": true], "OPERATION_NOT_ALLOWED"),
                    (["idToken": .string(idToken), "password": "short"], "WEAK_PASSWORD : Password should be at least 6 characters"),
                    (["oobCode": "not-a-code"], "INVALID_OOB_CODE"),
                ]
            )

            // Email verification through the development sink, applied once.
            try await Self.expectRefusals(
                stack, "\(Self.v1)/accounts:sendOobCode",
                [
                    (["idToken": .string(idToken)], "MISSING_REQ_TYPE"),
                    (["requestType": "VERIFY_EMAIL"], "INVALID_ID_TOKEN"),
                    (["requestType": "VERIFY_EMAIL", "idToken": .string(idToken), "returnOobLink": true], "INSUFFICIENT_PERMISSION"),
                ]
            )
            let sent = try await Self.post(
                stack, "\(Self.v1)/accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)]
            )
            #expect(sent.status == 200)
            let outbox = try await PublicAPITests.send(stack, .GET, "/emulator/v1/projects/demo-project/oobCodes")
            let code = try #require(outbox.body?["oobCodes"]?.first?["oobCode"]?.stringValue)
            let applied = try await Self.post(stack, "\(Self.v1)/accounts:update", ["oobCode": .string(code)])
            #expect(applied.body?["emailVerified"] == .bool(true))
            try await Self.expectRefusals(stack, "\(Self.v1)/accounts:update", [(["oobCode": .string(code)], "INVALID_OOB_CODE")])

            // An anonymous user upgraded to email/password keeps their id.
            let anonymous = try await Self.post(stack, "\(Self.v1)/accounts:signUp", [:])
            let anonymousToken = try #require(anonymous.body?["idToken"]?.stringValue)
            let upgraded = try await Self.post(
                stack, "\(Self.v1)/accounts:signUp",
                [
                    "idToken": .string(anonymousToken), "email": .string("upgraded-\(UUID().uuidString.prefix(8))@example.com"),
                    "password": "secret-pw",
                ]
            )
            #expect(upgraded.status == 200)
            #expect(upgraded.body?["localId"] == anonymous.body?["localId"])
            try await Self.expectRefusals(
                stack, "\(Self.v1)/accounts:signUp",
                [(["idToken": .string(idToken), "email": "again@example.com", "password": "secret-pw"], "PROVIDER_ALREADY_LINKED")]
            )

            try await Self.expectRefusals(
                stack, "\(Self.v1)/accounts:signInWithCustomToken",
                [
                    ([:], "MISSING_CUSTOM_TOKEN"),
                    (["token": "x.y"], "INVALID_CUSTOM_TOKEN : Invalid assertion format"),
                    (["token": #"{"claims":{}}"#], "MISSING_IDENTIFIER"),
                ]
            )
            let custom = try await Self.post(stack, "\(Self.v1)/accounts:signInWithCustomToken", ["token": #"{"uid":"system-test-user"}"#])
            #expect(custom.body?["isNewUser"] == .bool(true))

            let tokenPath = "/securetoken.googleapis.com/v1/token?key=k"
            try await Self.expectRefusals(
                stack, tokenPath,
                [
                    (["refreshToken": .string(refreshToken)], "MISSING_GRANT_TYPE"),
                    (["grantType": "password", "refreshToken": .string(refreshToken)], "INVALID_GRANT_TYPE"),
                    (["grantType": "refresh_token"], "MISSING_REFRESH_TOKEN"),
                    (["grantType": "refresh_token", "refreshToken": "garbage"], "INVALID_REFRESH_TOKEN"),
                ]
            )
            let refreshed = try await Self.post(stack, tokenPath, ["grantType": "refresh_token", "refreshToken": .string(refreshToken)])
            #expect(refreshed.status == 200)
            #expect(refreshed.body?["token_type"] == "Bearer")
            // The rotated token is spent: using it again revokes the family, the new one with it.
            let newRefresh = try #require(refreshed.body?["refresh_token"]?.stringValue)
            try await Self.expectRefusals(
                stack, tokenPath,
                [
                    (["grantType": "refresh_token", "refreshToken": .string(refreshToken)], "INVALID_REFRESH_TOKEN"),
                    (["grantType": "refresh_token", "refreshToken": .string(newRefresh)], "INVALID_REFRESH_TOKEN"),
                ]
            )

            try await Self.expectRefusals(stack, "\(Self.v1)/accounts:delete", [([:], "MISSING_ID_TOKEN")])
            let deleted = try await Self.post(stack, "\(Self.v1)/accounts:delete", ["idToken": .string(idToken)])
            #expect(deleted.body?["kind"] == "identitytoolkit#DeleteAccountResponse")
            try await Self.expectRefusals(stack, "\(Self.v1)/accounts:lookup", [(["idToken": .string(idToken)], "USER_NOT_FOUND")])
        }
    }

    @Test("admin endpoints: create, lookup, update, batchGet, batchCreate, batchDelete, delete, sendOobCode")
    func adminEndpoints() async throws {
        try await TestStack.with { stack in
            try await stack.start(PublicAPITests.services)
            let accounts = "\(Self.admin)/accounts"
            let created = try await Self.post(stack, accounts, ["localId": "admin-made", "email": "made@example.com"], admin: true)
            #expect(created.body?["localId"] == "admin-made")
            #expect(created.body?["idToken"] == nil)
            try await Self.expectRefusals(
                stack, accounts,
                [
                    (["localId": "admin-made"], "DUPLICATE_LOCAL_ID"),
                    (["phoneNumber": "555"], "INVALID_PHONE_NUMBER : Invalid format."),
                    (["email": "bad"], "INVALID_EMAIL"),
                    (["email": "MADE@example.com"], "EMAIL_EXISTS"),
                    (["password": "short"], "WEAK_PASSWORD : Password should be at least 6 characters"),
                ],
                admin: true
            )
            let client = try await Self.post(stack, accounts + "?key=k", ["localId": "x"])
            #expect(client.message == "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")

            let found = try await Self.post(
                stack, "\(accounts):lookup", ["email": ["made@example.com", "nobody@example.com"]], admin: true)
            #expect(found.body?["users"]?.first?["localId"] == "admin-made")
            let none = try await Self.post(stack, "\(accounts):lookup", ["localId": ["missing"]], admin: true)
            #expect(none.body?["users"] == nil)

            try await Self.expectRefusals(
                stack, "\(accounts):update",
                [
                    (["emailVerified": true], "MISSING_LOCAL_ID"),
                    (["localId": "missing", "emailVerified": true], "USER_NOT_FOUND"),
                    (["localId": "admin-made", "customAttributes": #"{"sub":"x"}"#], "FORBIDDEN_CLAIM : sub"),
                    (["localId": "admin-made", "customAttributes": "[1]"], "INVALID_CLAIMS"),
                ],
                admin: true
            )
            let updated = try await Self.post(
                stack, "\(accounts):update", ["localId": "admin-made", "emailVerified": true, "disableUser": true], admin: true
            )
            #expect(updated.body?["emailVerified"] == .bool(true))

            let link = try await Self.post(
                stack, "\(accounts):sendOobCode", ["requestType": "VERIFY_EMAIL", "email": "made@example.com", "returnOobLink": true],
                admin: true
            )
            #expect(link.body?["oobLink"]?.stringValue?.contains("mode=verifyEmail") == true)
            try await Self.expectRefusals(
                stack, "\(accounts):sendOobCode",
                [
                    (["requestType": "VERIFY_EMAIL", "returnOobLink": true], "MISSING_EMAIL"),
                    (["requestType": "VERIFY_EMAIL", "email": "nobody@example.com", "returnOobLink": true], "USER_NOT_FOUND"),
                ],
                admin: true
            )

            let imported = try await Self.post(
                stack, "\(accounts):batchCreate",
                ["users": [["localId": "imported-1", "email": "imported@example.com"], ["localId": "imported-2", "email": "bad"]]],
                admin: true
            )
            #expect(imported.body?["error"] == [["index": 1, "message": "email is invalid"]])
            try await Self.expectRefusals(stack, "\(accounts):batchCreate", [(["users": []], "MISSING_USER_ACCOUNT")], admin: true)

            let page = try await PublicAPITests.send(
                stack, .GET, "\(accounts):batchGet?maxResults=1", headers: [("authorization", "Bearer owner")]
            )
            #expect(page.body?["users"]?.first?["localId"] == "admin-made")
            let next = try #require(page.body?["nextPageToken"]?.stringValue)
            let second = try await PublicAPITests.send(
                stack, .GET, "\(accounts):batchGet?maxResults=1&nextPageToken=\(next)", headers: [("authorization", "Bearer owner")]
            )
            #expect(second.body?["users"]?.first?["localId"] == "imported-1")

            // Without force only disabled accounts go: admin-made is disabled, imported-1 is not.
            let batch = try await Self.post(stack, "\(accounts):batchDelete", ["localIds": ["admin-made", "imported-1"]], admin: true)
            #expect(batch.body?["errors"]?.first?["localId"] == "imported-1")
            try await Self.expectRefusals(stack, "\(accounts):batchDelete", [(["localIds": []], "MISSING_LOCAL_ID")], admin: true)

            try await Self.expectRefusals(
                stack, "\(accounts):delete", [([:], "MISSING_LOCAL_ID"), (["localId": "admin-made"], "USER_NOT_FOUND")], admin: true
            )
            let deleted = try await Self.post(stack, "\(accounts):delete", ["localId": "imported-1"], admin: true)
            #expect(deleted.body?["kind"] == "identitytoolkit#DeleteAccountResponse")
        }
    }
}

extension JSONValue {
    /// The first element of an array.
    fileprivate var first: JSONValue? {
        if case .array(let items) = self { return items.first }
        return nil
    }
}
