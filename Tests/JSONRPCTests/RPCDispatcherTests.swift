import Foundation
import JSONRPC
import Logging
import Testing

/// JSON-RPC 2.0 conformance of the dispatcher, following the specification's own examples.
@Suite("JSON-RPC dispatcher")
struct RPCDispatcherTests {
    enum Subtract: RPCMethod {
        static let name = "subtract"
        struct Params: Codable, Sendable {
            var minuend: Int
            var subtrahend: Int
        }
        typealias Result = Int
    }

    enum Notify: RPCMethod {
        static let name = "notify"
        typealias Params = RPCEmpty
        typealias Result = RPCEmpty
    }

    enum Fail: RPCMethod {
        static let name = "fail"
        typealias Params = RPCEmpty
        typealias Result = RPCEmpty
    }

    struct SecretFailure: Error { let secret = "s3cr3t-code-123456" }

    func makeDispatcher(restrictParams: Bool = false) throws -> RPCDispatcher {
        var table = RPCMethodTable()
        table.register(Subtract.self, callers: .anyAuthenticated) { params, _ in params.minuend - params.subtrahend }
        table.register(Notify.self, callers: .anyAuthenticated) { _, _ in RPCEmpty() }
        table.register(Fail.self, callers: .only(["gateway"])) { _, _ in throw SecretFailure() }
        if restrictParams {
            try table.restrictParams(to: ["subtract": ["minuend", "subtrahend"], "notify": [], "fail": []])
        }
        return RPCDispatcher(table: table)
    }

    func call(_ body: String, caller: String = "gateway", restrictParams: Bool = false) async throws -> JSONValue? {
        let reply = try await makeDispatcher(restrictParams: restrictParams).handle(
            Array(body.utf8), context: RPCCallContext(caller: caller, requestID: "req-1", logger: Logger(label: "test"))
        )
        return try reply.encoded().map { try JSONCoding.parse($0) }
    }

    @Test("a call with by-name params returns its result and echoes the id")
    func byNameCall() async throws {
        let response = try await call(#"{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":3}"#)
        #expect(response == ["jsonrpc": "2.0", "result": 19, "id": 3])
    }

    @Test("string ids and null ids are echoed as sent")
    func idEcho() async throws {
        let stringID = try await call(#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1,"subtrahend":1},"id":"abc"}"#)
        #expect(stringID?["id"] == "abc")
        let nullID = try await call(#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1,"subtrahend":1},"id":null}"#)
        #expect(nullID?["id"] == .null)
        #expect(nullID?["result"] == 0)
    }

    @Test("invalid JSON is a parse error with id null")
    func parseError() async throws {
        let response = try await call(#"{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]"#)
        #expect(response?["error"]?["code"] == .int(-32700))
        #expect(response?["id"] == .null)
    }

    @Test(
        "a body JSONParser refuses is a parse error, never a call, whichever path reads it (found by FuzzRPCEnvelope)",
        arguments: [[0xEE, 0xEE, 0xEE], [0x0C], [0x09], Array(#"","minuend":2,"y":""#.utf8)] as [[UInt8]]
    )
    func refusedBodies(inserted: [UInt8]) async throws {
        // Invalid UTF-8, raw control characters in a string, a member name given twice.
        var body = Array(#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1,"subtrahend":1,"x":"h"#.utf8)
        body += inserted
        body += Array(#"i"},"id":1}"#.utf8)
        let reply = try await makeDispatcher().handle(
            body, context: RPCCallContext(caller: "gateway", requestID: "req-1", logger: Logger(label: "test"))
        )
        let response = try reply.encoded().map { try JSONCoding.parse($0) }
        #expect(response?["error"]?["code"] == -32700)
        #expect(response?["id"] == .null)
    }

    @Test("a request object with a non-string method is an invalid request")
    func invalidRequest() async throws {
        let response = try await call(#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#)
        #expect(response?["error"]?["code"] == .int(-32600))
        #expect(response?["id"] == .null)
    }

    @Test("a wrong jsonrpc version is an invalid request that still echoes a valid id")
    func wrongVersion() async throws {
        let response = try await call(#"{"jsonrpc":"1.0","method":"subtract","id":9}"#)
        #expect(response?["error"]?["code"] == .int(-32600))
        #expect(response?["id"] == 9)
    }

    @Test("an id of an illegal type makes the request invalid", arguments: [#"{"a":1}"#, "[1]", "true"])
    func illegalID(id: String) async throws {
        let response = try await call(#"{"jsonrpc":"2.0","method":"subtract","id":\#(id)}"#)
        #expect(response?["error"]?["code"] == .int(-32600))
        #expect(response?["id"] == .null)
    }

    @Test("scalar params are an invalid request", arguments: ["\"bar\"", "3", "null"])
    func scalarParams(params: String) async throws {
        let response = try await call(#"{"jsonrpc":"2.0","method":"subtract","params":\#(params),"id":1}"#)
        #expect(response?["error"]?["code"] == .int(-32600))
    }

    @Test("an unknown method is method-not-found")
    func unknownMethod() async throws {
        let response = try await call(#"{"jsonrpc":"2.0","method":"foobar","id":"1"}"#)
        #expect(response?["error"]?["code"] == .int(-32601))
        #expect(response?["id"] == "1")
    }

    @Test("missing, mistyped or positional params are invalid params")
    func invalidParams() async throws {
        for params in [#"{"minuend":1}"#, #"{"minuend":"1","subtrahend":2}"#, "[42, 23]"] {
            let response = try await call(#"{"jsonrpc":"2.0","method":"subtract","params":\#(params),"id":1}"#)
            #expect(response?["error"]?["code"] == .int(-32602), "params \(params)")
        }
    }

    @Test(
        "a single request and the same request inside a batch get the same invalid-params detail",
        arguments: [
            (#"{"minuend":1}"#, "missing field subtrahend"),
            (#"{"minuend":"1","subtrahend":2}"#, "minuend must be a number"),
            (#"{"minuend":null,"subtrahend":2}"#, "minuend must be a number, not null"),
        ]
    )
    func invalidParamsDetail(params: String, detail: String) async throws {
        let request = #"{"jsonrpc":"2.0","method":"subtract","params":\#(params),"id":1}"#
        let single = try await call(request)
        #expect(single?["error"]?["data"]?["detail"] == .string(detail))
        guard case .array(let answers)? = try await call("[\(request)]") else {
            Issue.record("a batch answers with an array")
            return
        }
        #expect(answers.first?["error"]?["data"]?["detail"] == .string(detail))
    }

    @Test("absent params decode as an empty object on the single-request path")
    func absentParams() async throws {
        #expect(try await call(#"{"jsonrpc":"2.0","method":"notify","id":7}"#) == ["jsonrpc": "2.0", "result": [:], "id": 7])
        let missing = try await call(#"{"jsonrpc":"2.0","method":"subtract","id":8}"#)
        #expect(missing?["error"]?["data"]?["detail"] == "missing field minuend")
    }

    @Test("with the contract applied, a param the contract lacks is invalid params")
    func unknownParam() async throws {
        let body = #"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1,"subtrahend":1,"extra":true},"id":1}"#
        #expect(try await call(body)?["result"] == 0)
        let strict = try await call(body, restrictParams: true)
        #expect(strict?["error"]?["code"] == .int(-32602))
        #expect(strict?["error"]?["data"]?["detail"] == "unknown param extra")
    }

    @Test("a notification gets no response, even when it fails")
    func notification() async throws {
        #expect(try await call(#"{"jsonrpc":"2.0","method":"notify"}"#) == nil)
        #expect(try await call(#"{"jsonrpc":"2.0","method":"foobar"}"#) == nil)
    }

    @Test("a batch of only notifications gets no response")
    func notificationBatch() async throws {
        #expect(try await call(#"[{"jsonrpc":"2.0","method":"notify"},{"jsonrpc":"2.0","method":"notify"}]"#) == nil)
    }

    @Test("a batch mixing valid and invalid entries answers each in order, skipping notifications")
    func mixedBatch() async throws {
        let response = try await call(
            """
            [
              {"jsonrpc":"2.0","method":"subtract","params":{"minuend":5,"subtrahend":2},"id":"1"},
              {"jsonrpc":"2.0","method":"notify"},
              {"foo":"boo"},
              {"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"},
              1
            ]
            """
        )
        guard case .array(let entries)? = response else {
            Issue.record("expected an array, got \(String(describing: response))")
            return
        }
        #expect(entries.count == 4)
        #expect(entries[0] == ["jsonrpc": "2.0", "result": 3, "id": "1"])
        #expect(entries[1]["error"]?["code"] == .int(-32600))
        #expect(entries[2]["error"]?["code"] == .int(-32601))
        #expect(entries[2]["id"] == "5")
        #expect(entries[3]["error"]?["code"] == .int(-32600))
    }

    @Test("an empty batch is a single invalid request")
    func emptyBatch() async throws {
        let response = try await call("[]")
        #expect(response?["error"]?["code"] == .int(-32600))
    }

    @Test("a batch larger than the limit is refused as a whole")
    func oversizedBatch() async throws {
        let entry = #"{"jsonrpc":"2.0","method":"notify","id":1}"#
        let body = "[" + Array(repeating: entry, count: RPCDispatcher.maximumBatchSize + 1).joined(separator: ",") + "]"
        let response = try await call(body)
        #expect(response?["error"]?["code"] == .int(-32600))
    }

    @Test("a caller outside the method's policy is refused")
    func callerPolicy() async throws {
        let response = try await call(#"{"jsonrpc":"2.0","method":"fail","id":1}"#, caller: "session-token")
        #expect(response?["error"]?["code"] == .int(-32003))
    }

    @Test("a handler's unexpected error is an internal error that reveals nothing of it")
    func internalError() async throws {
        let response = try await call(#"{"jsonrpc":"2.0","method":"fail","id":1}"#)
        #expect(response?["error"]?["code"] == .int(-32603))
        let text = String(decoding: try JSONCoding.encode(response), as: UTF8.self)
        #expect(!text.contains("s3cr3t"))
        #expect(text.contains("req-1"))
    }

    @Test("deeply nested input is a parse error, not a crash")
    func deepNesting() async throws {
        let body = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let response = try await call(body)
        #expect(response?["error"]?["code"] == .int(-32700))
    }

    @Test("non-JSON bytes are a parse error")
    func binaryGarbage() async throws {
        let reply = try await makeDispatcher().handle(
            [0xff, 0xfe, 0x00, 0x7b], context: RPCCallContext(caller: "gateway", requestID: "r", logger: Logger(label: "t"))
        )
        let response = try reply.encoded().map { try JSONCoding.parse($0) }
        #expect(response?["error"]?["code"] == .int(-32700))
    }
}
