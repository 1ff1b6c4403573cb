import IdentityToolkit
import JSONRPC
import Testing

@Suite("Error catalogue: codes compared as codes, messages spelled once")
struct ErrorCatalogueTests {
    @Test("a detail follows the code after ' : ', the way clients split it")
    func detailFollowsCode() {
        let error = IdentityToolkitError(.weakPassword, detail: "Password should be at least 6 characters")
        #expect(error.message == "WEAK_PASSWORD : Password should be at least 6 characters")
        #expect(error.code == .weakPassword)
        #expect(error.httpStatus == 400)
    }

    @Test("every code's spelling reads back as the same code")
    func everyCodeRoundTrips() {
        #expect(!IdentityToolkitError.Code.all.isEmpty)
        for code in IdentityToolkitError.Code.all {
            #expect(IdentityToolkitError.Code(rawValue: code.rawValue) == code)
            #expect(code.rawValue.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" })
        }
        #expect(IdentityToolkitError.Code(rawValue: "NOT_A_CODE") == nil)
    }

    @Test("a business error crosses an RPC hop with its code and detail")
    func crossesAnRPCHop() throws {
        let sent = RPCError(code: RPCErrorCode(1000), business: .invalidPhoneNumberFormat)
        let received = try JSONCoding.decode(RPCError.self, from: JSONCoding.value(of: sent))
        #expect(received.business == .invalidPhoneNumberFormat)
        #expect(received.business?.code == .invalidPhoneNumber)
        #expect(received.business?.message == "INVALID_PHONE_NUMBER : Invalid format.")
    }

    @Test("a peer's message outside the catalogue still answers 400 with that message, without a code")
    func unknownPeerMessageStays400() {
        let error = IdentityToolkitError(businessMessage: "SOMETHING_NEW : detail")
        #expect(error.httpStatus == 400)
        #expect(error.message == "SOMETHING_NEW : detail")
        #expect(error.code == nil)
    }

    @Test("an RPC error without a business error carries none")
    func plainRPCErrorCarriesNone() {
        #expect(RPCError(code: .internalError, message: "Internal error").business == nil)
    }
}
