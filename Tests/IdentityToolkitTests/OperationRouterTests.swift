import IdentityToolkit
import Testing

@Suite("Identity Toolkit paths")
struct OperationRouterTests {
    let router = OperationRouter(schemas: Schemas.shared)

    func operationId(_ method: String, _ path: String) -> String? {
        if case .matched(let match) = router.route(method: method, path: path) { return match.operation.operationId }
        return nil
    }

    @Test("paths match with and without the host prefix")
    func prefixes() {
        #expect(operationId("POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp") == "identitytoolkit.accounts.signUp")
        #expect(operationId("POST", "/v1/accounts:signUp?key=abc") == "identitytoolkit.accounts.signUp")
        #expect(
            operationId("POST", "/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize")
                == "identitytoolkit.accounts.mfaSignIn.finalize")
        #expect(operationId("POST", "/securetoken.googleapis.com/v1/token") == "securetoken.token")
        #expect(operationId("POST", "/v1/token") == "securetoken.token")
    }

    /// The iOS SDK sends these to `http://host:port/www.googleapis.com/identitytoolkit/v3/relyingparty/<name>`
    /// (firebase-ios-sdk `FirebaseAuth/Sources/Swift/Backend/IdentityToolkitRequest.swift`, lines 76-101).
    @Test("the iOS and Android SDKs' legacy v3 paths are their v1 operations, as in the Auth emulator")
    func legacyPaths() {
        let prefix = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
        #expect(operationId("POST", prefix + "signupNewUser?key=k") == "identitytoolkit.accounts.signUp")
        #expect(operationId("POST", prefix + "verifyPassword") == "identitytoolkit.accounts.signInWithPassword")
        #expect(operationId("POST", prefix + "sendVerificationCode") == "identitytoolkit.accounts.sendVerificationCode")
        #expect(operationId("POST", prefix + "verifyPhoneNumber") == "identitytoolkit.accounts.signInWithPhoneNumber")
        #expect(operationId("POST", prefix + "getAccountInfo") == "identitytoolkit.accounts.lookup")
        #expect(operationId("POST", prefix + "setAccountInfo") == "identitytoolkit.accounts.update")
        #expect(operationId("GET", prefix + "getProjectConfig") == "identitytoolkit.getProjects")
        #expect(operationId("POST", "/identitytoolkit/v3/relyingparty/deleteAccount") == "identitytoolkit.accounts.delete")
        #expect(operationId("POST", prefix + "signOutUser") == nil)
        #expect(operationId("POST", "/www.googleapis.com/v1/accounts:signUp") == nil)
    }

    @Test("a parameter that starts a segment (`projects/{p}:verb`) binds without the verb, and no id takes a verb")
    func parameterWithVerb() throws {
        guard case .matched(let cookie) = router.route(method: "POST", path: "/v1/projects/demo-project:createSessionCookie") else {
            Issue.record("no match")
            return
        }
        #expect(cookie.operation.operationId == "identitytoolkit.projects.createSessionCookie")
        #expect(cookie.pathParameters == ["targetProjectId": "demo-project"])
        #expect(
            operationId("POST", "/v1/projects/p1/tenants/t1:createSessionCookie") == "identitytoolkit.projects.tenants.createSessionCookie")
        #expect(operationId("POST", "/v1/projects/p1:queryAccounts") == "identitytoolkit.projects.queryAccounts")
        #expect(operationId("POST", "/v1/projects/:createSessionCookie") == nil)
        #expect(operationId("GET", "/v2/projects/p1/tenants/t1:getIamPolicy") == nil)
    }

    @Test("admin paths accept both /v2 and /admin/v2 and bind their parameters")
    func adminPaths() throws {
        guard case .matched(let match) = router.route(method: "GET", path: "/admin/v2/projects/demo-project/config") else {
            Issue.record("no match")
            return
        }
        #expect(match.pathParameters == ["targetProjectId": "demo-project"])
        guard case .matched(let tenant) = router.route(method: "DELETE", path: "/v2/projects/p1/tenants/T%2D1") else {
            Issue.record("no match")
            return
        }
        #expect(tenant.pathParameters == ["targetProjectId": "p1", "tenantId": "T-1"])
        #expect(
            operationId("POST", "/identitytoolkit.googleapis.com/v1/projects/p1/tenants/t1/accounts:lookup")
                == "identitytoolkit.projects.tenants.accounts.lookup"
        )
    }

    @Test("a known path with another method, and an unknown path, are told apart")
    func misses() {
        #expect(router.route(method: "GET", path: "/v1/accounts:signUp") == .methodNotAllowed)
        #expect(router.route(method: "POST", path: "/v1/accounts:nothing") == .notFound)
        #expect(router.route(method: "POST", path: "/") == .notFound)
        #expect(router.route(method: "POST", path: "/v1/projects//accounts:lookup") == .notFound)
        #expect(router.route(method: "DELETE", path: "/v2/projects/p1/tenants/T%zz") == .notFound)  // does not decode
    }
}
