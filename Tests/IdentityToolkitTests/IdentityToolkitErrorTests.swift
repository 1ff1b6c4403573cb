import IdentityToolkit
import JSONRPC
import Testing

@Suite("Identity Toolkit error envelope (contract §1.6)")
struct IdentityToolkitErrorTests {
    @Test("a business error is HTTP 400 with reason invalid and no status")
    func business() {
        let envelope = IdentityToolkitError(.emailExists).envelope
        #expect(
            envelope == [
                "error": [
                    "code": 400, "message": "EMAIL_EXISTS",
                    "errors": [["message": "EMAIL_EXISTS", "reason": "invalid", "domain": "global"]],
                ]
            ]
        )
    }

    @Test("a missing API key is 403 PERMISSION_DENIED with reason forbidden")
    func missingKey() {
        let error = IdentityToolkitError.missingAPIKey
        #expect(error.httpStatus == 403)
        #expect(error.envelope["error"]?["status"] == "PERMISSION_DENIED")
        #expect(error.envelope["error"]?["message"] == "The request is missing a valid API key.")
    }

    @Test("bad credentials are 401 with the header location in the errors item")
    func badCredentials() {
        let item = IdentityToolkitError.invalidCredentials.envelope["error"]?["errors"]
        guard case .array(let items)? = item else {
            Issue.record("no errors array")
            return
        }
        #expect(items.first?["location"] == "Authorization")
        #expect(items.first?["reason"] == "authError")
        #expect(items.first?["message"] == "Invalid Credentials")
    }
}
