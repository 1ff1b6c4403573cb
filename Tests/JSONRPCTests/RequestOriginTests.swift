import Testing

@testable import JSONRPC

@Suite("Request origin: whom a call serves, carried between services")
struct RequestOriginTests {
    @Test("the header value reads back as the same origin, whatever the user agent holds")
    func roundTrip() throws {
        let origin = RequestOrigin(
            clientAddress: "2001:db8::/64", userAgent: "Mozilla/5.0 (\"quoted\"; ü) +/=", actor: "admin:0123abcd4567")
        let value = origin.headerValue
        #expect(!value.contains("+") && !value.contains("/") && !value.contains("\n"))
        #expect(RequestOrigin(headerValue: value) == origin)
    }

    @Test("long values are cut, and a malformed or oversized header is no origin")
    func bounds() {
        let long = RequestOrigin(
            clientAddress: String(repeating: "1", count: 500), userAgent: String(repeating: "a", count: 5_000), actor: "user")
        #expect(long.clientAddress?.count == 64 && long.userAgent?.count == 256)
        #expect(RequestOrigin(headerValue: "not base64 at all!") == nil)
        #expect(RequestOrigin(headerValue: String(repeating: "A", count: 3_000)) == nil)
    }

    @Test("a bound origin is seen by the code that runs inside it, and only there")
    func taskLocal() async {
        #expect(RequestOrigin.current == nil)
        let seen = await RequestOrigin.$current.withValue(RequestOrigin(actor: "user")) {
            await Task { RequestOrigin.current?.actor }.value
        }
        #expect(seen == "user")
        #expect(RequestOrigin.current == nil)
    }
}
