import Dispatch
import Foundation
import FuzzerDriver
import JSONRPC
import Logging

/// One JSON-RPC request body through `RPCDispatcher.handle`, as an RPC listener hands it over: the
/// fast path (`RequestHead`, params decoded straight into the method's type) and the general one
/// (batches, every error case). What must hold for any bytes: an answer comes back; it is a valid
/// JSON-RPC 2.0 response (or batch of them), or nothing when only notifications were sent; a body
/// that is not JSON is -32700 with a null id; and the method runs only for params of its own type.
enum Echo: RPCMethod {
    static let name = "fuzz.echo"
    struct Params: Codable, Sendable {
        var text: String
        var count: Int?
        var nested: [String: [Int]]?
    }
    typealias Result = Params
}

private let dispatcher: RPCDispatcher = {
    var table = RPCMethodTable()
    table.register(Echo.self, callers: .only(["gateway"])) { params, _ in params }
    return RPCDispatcher(table: table)
}()
private let context = RPCCallContext(caller: "gateway", requestID: "fuzz", logger: Logger(label: "fuzz"))

private func check(_ response: JSONValue, _ input: [UInt8]) {
    guard case .object(let members) = response, members["jsonrpc"] == .string("2.0"),
        (members["result"] == nil) != (members["error"] == nil)
    else { fatalError("not a JSON-RPC response: \(response) for \(String(decoding: input.prefix(200), as: UTF8.self))") }
    if case .object(let error)? = members["error"] {
        guard case .int? = error["code"], case .string? = error["message"] else { fatalError("malformed error \(error)") }
    }
}

/// The program's entry (see FuzzerDriver.h): libFuzzer's driver, with the function below.
@_cdecl("FuzzRPCEnvelope_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzRPCEnvelope(UnsafeRawPointer(data), size)
    }
}

public func fuzzRPCEnvelope(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var reply: RPCDispatcher.Reply?
    Task {
        reply = await dispatcher.handle(bytes, context: context)
        done.signal()
    }
    done.wait()
    guard let reply else { fatalError("no reply") }
    guard let body = reply.encoded() else {
        if case .none = reply { return 0 }
        fatalError("a reply that does not encode")
    }
    guard let answer = try? JSONCoding.parse(Array(body)) else { fatalError("a reply that is not JSON") }
    switch answer {
    case .array(let responses):
        precondition(!responses.isEmpty, "an empty batch answer")
        for response in responses { check(response, bytes) }
    default:
        check(answer, bytes)
        if (try? JSONCoding.parse(bytes)) == nil, answer["error"]?["code"] != .int(-32700) {
            // The fast path may read a body Foundation accepts and our parser refuses (a duplicate
            // name); anything else unreadable must be a parse error.
            if (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) == nil {
                fatalError("unreadable body answered \(answer)")
            }
        }
    }
    return 0
}
