import Foundation
import JSONRPC
import Logging
import Synchronization
import Testing

/// Batches as the services' callers send them (issue 60): members run side by side, answer in their
/// order, and each keeps its own request id and origin (the request object's `context` member).
@Suite("JSON-RPC batches: members side by side, each with its own context")
struct RPCBatchTests {
    /// Waits until `count` calls are inside it at once, or `patience` has passed; answers whether they were.
    enum Meet: RPCMethod {
        static let name = "meet"
        typealias Params = RPCEmpty
        typealias Result = Bool
    }

    /// What the handler saw of its call.
    enum Echo: RPCMethod {
        static let name = "echo"
        typealias Params = RPCEmpty
        struct Result: Codable, Sendable {
            var requestId: String
            var actor: String?
        }
    }

    final class Gathering: Sendable {
        let inside = Atomic<Int>(0)
    }

    func dispatcher(meeting count: Int = 2) -> RPCDispatcher {
        let gathering = Gathering()
        var table = RPCMethodTable()
        table.register(Meet.self, callers: .anyAuthenticated) { _, _ in
            gathering.inside.add(1, ordering: .relaxed)
            let clock = ContinuousClock()
            // Long enough for a loaded machine; in turn, the first would wait it out and answer false.
            let patience = clock.now + .seconds(30)
            while gathering.inside.load(ordering: .relaxed) < count, clock.now < patience {
                try await Task.sleep(for: .milliseconds(5))
            }
            return gathering.inside.load(ordering: .relaxed) >= count
        }
        table.register(Echo.self, callers: .anyAuthenticated) { _, context in
            Echo.Result(requestId: context.requestID, actor: RequestOrigin.current?.actor)
        }
        return RPCDispatcher(table: table)
    }

    func handle(_ body: String, with dispatcher: RPCDispatcher) async throws -> JSONValue? {
        let reply = await dispatcher.handle(
            Array(body.utf8), context: RPCCallContext(caller: "gateway", requestID: "stream-id", logger: Logger(label: "test"))
        )
        return try reply.encoded().map { try JSONCoding.parse($0) }
    }

    func element(_ value: JSONValue?, _ index: Int) -> JSONValue? {
        guard case .array(let elements)? = value, index < elements.count else { return nil }
        return elements[index]
    }

    @Test("a batch's members run side by side: each waits for the other, and both are answered")
    func membersRunConcurrently() async throws {
        let body = #"[{"jsonrpc":"2.0","method":"meet","id":1},{"jsonrpc":"2.0","method":"meet","id":2}]"#
        let answer = try await handle(body, with: dispatcher())
        #expect(answer == [["jsonrpc": "2.0", "id": 1, "result": true], ["jsonrpc": "2.0", "id": 2, "result": true]])
    }

    @Test("a batch is answered in its members' order, whichever finishes first")
    func answersKeepOrder() async throws {
        let members = (1...20).map { #"{"jsonrpc":"2.0","method":"echo","id":\#($0),"context":{"requestId":"r\#($0)"}}"# }
        let answer = try await handle("[" + members.joined(separator: " , ") + "]", with: dispatcher())
        guard case .array(let answers)? = answer else {
            Issue.record("not an array: \(String(describing: answer))")
            return
        }
        #expect(answers.map { $0["id"] } == (1...20).map { .int(Int64($0)) })
        #expect(answers.map { $0["result"]?["requestId"] } == (1...20).map { .string("r\($0)") })
    }

    @Test("each member keeps its own request id and origin; a member without a context takes the stream's")
    func contextPerMember() async throws {
        let body = """
            [{"jsonrpc":"2.0","method":"echo","id":1,"context":{"requestId":"alpha","origin":{"actor":"admin:ci","clientAddress":"192.0.2.1"}}},
             {"jsonrpc":"2.0","method":"echo","id":2,"context":{"requestId":"beta","trace":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}},
             {"jsonrpc":"2.0","method":"echo","id":3}]
            """
        let answer = try await handle(body, with: dispatcher())
        #expect(element(answer, 0)?["result"] == ["requestId": "alpha", "actor": "admin:ci"])
        #expect(element(answer, 1)?["result"] == ["requestId": "beta"])
        #expect(element(answer, 2)?["result"] == ["requestId": "stream-id"])
    }

    @Test(
        "a context that breaks the contract is -32600 for its own request alone",
        arguments: [
            #""context":"x""#, #""context":{"requestId":"has space"}"#, #""context":{"extra":1}"#,
            #""context":{"origin":{"clientAddress":"x"}}"#, #""context":{"origin":{"actor":"a","more":"b"}}"#,
            #""context":{"trace":{"traceparent":7}}"#,
        ]
    )
    func invalidContext(member: String) async throws {
        let body = #"[{"jsonrpc":"2.0","method":"echo","id":1,\#(member)},{"jsonrpc":"2.0","method":"echo","id":2}]"#
        let answer = try await handle(body, with: dispatcher())
        #expect(element(answer, 0)?["error"]?["code"] == -32600)
        #expect(element(answer, 0)?["id"] == 1)
        #expect(element(answer, 1)?["result"]?["requestId"] == "stream-id")
    }

    @Test(
        "a batch with any member that is not JSON, or that is not a closed array, is one parse error",
        arguments: [
            #"[{"jsonrpc":"2.0","method":"echo","id":1},{"jsonrpc":"2.0","method":"echo","id":2,}]"#,
            #"[{"jsonrpc":"2.0","method":"echo","id":1}"#, #"[{"jsonrpc":"2.0","method":"echo","id":1},]"#,
            #"[{"jsonrpc":"2.0","method":"echo","id":1}] x"#, #"[{"a":"\"}]"#, #"[,]"#, #"[{]}]"#,
        ]
    )
    func malformedBatch(body: String) async throws {
        let answer = try await handle(body, with: dispatcher())
        #expect(answer?["error"]?["code"] == -32700)
        #expect(answer?["id"] == .null)
    }

    @Test("nesting is counted from the batch: a member may nest one level less than a lone request")
    func nestingCountsTheBatch() async throws {
        let depth = JSONParser.maximumDepth - 1
        let params = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let lone = try await handle(#"{"jsonrpc":"2.0","method":"echo","id":1,"params":\#(params)}"#, with: dispatcher())
        #expect(lone?["error"]?["code"] == -32602)
        let batched = try await handle(#"[{"jsonrpc":"2.0","method":"echo","id":1,"params":\#(params)}]"#, with: dispatcher())
        #expect(batched?["error"]?["code"] == -32700)
    }
}

@Suite("JSONScanner: where a batch's members begin and end")
struct JSONScannerTests {
    @Test("elements of an array, strings with brackets and escaped quotes skipped whole")
    func elements() {
        let text = #" [ {"a":"]}\"["}, [1,[2]] ,"x\\",-1.5e3, true ,null ] "#
        let bytes = Array(text.utf8)
        let ranges = JSONScanner.elements(ofArray: bytes)
        #expect(
            ranges?.map { String(decoding: bytes[$0], as: UTF8.self) } == [
                #"{"a":"]}\"["}"#, "[1,[2]]", #""x\\""#, "-1.5e3", "true", "null",
            ])
        #expect(JSONScanner.elements(ofArray: Array("[]".utf8)) == [])
    }

    @Test("a member of an object by its name, wherever it stands")
    func member() {
        let bytes = Array(#"{"result":{"id":7},"jsonrpc":"2.0", "id" : "abc"}"#.utf8)
        let range = JSONScanner.member("id", ofObject: bytes)
        #expect(range.map { String(decoding: bytes[$0], as: UTF8.self) } == #""abc""#)
        #expect(JSONScanner.member("missing", ofObject: bytes) == nil)
        #expect(JSONScanner.member("id", ofObject: Array("[1]".utf8)) == nil)
    }
}
