import JSONRPC
import Testing

@Suite("JSON-RPC errors")
struct RPCErrorTests {
    @Test("an application error carries its Identity Toolkit string in data")
    func identityToolkitError() throws {
        let error = RPCError(code: RPCErrorCode(1000), identityToolkitError: "TENANT_NOT_FOUND")
        let decoded = try JSONCoding.decode(RPCError.self, from: try JSONCoding.value(of: error))
        #expect(decoded.identityToolkitError == "TENANT_NOT_FOUND")
        #expect(decoded.code.rawValue == 1000)
    }

    @Test("a response envelope round-trips results, errors and null results")
    func envelopeRoundTrip() throws {
        for envelope in [
            RPCResponseEnvelope(id: .int(1), result: ["a": 1]),
            RPCResponseEnvelope(id: .string("x"), result: .null),
            RPCResponseEnvelope(id: .null, error: .parseError()),
        ] {
            let decoded = try JSONCoding.decode(RPCResponseEnvelope.self, from: try JSONCoding.value(of: envelope))
            #expect(decoded == envelope)
        }
    }
}
