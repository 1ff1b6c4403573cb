import Foundation
import FuzzerDriver
import JSONRPC

/// One public request body through `JSONCoding.parse`, as `PublicAPI.readBody` reads it. Besides
/// "never crash, never hang" (libFuzzer's own checks, with `-timeout`), what a parse must keep:
/// - a document it accepts, written out again, reads back as the same value (no reader of the
///   re-encoded body, an RPC peer say, can see something else);
/// - Foundation's reader accepts it too (ours is the stricter one: duplicate names, depth), and
///   agrees on every string, number and structure where both hold exact values.
/// The program's entry (see FuzzerDriver.h): libFuzzer's driver, with the function below.
@_cdecl("FuzzPublicBody_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzPublicBody(UnsafeRawPointer(data), size)
    }
}

public func fuzzPublicBody(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let value = try? JSONCoding.parse(bytes) else { return 0 }
    guard let encoded = try? JSONCoding.encode(value), let again = try? JSONCoding.parse(Array(encoded)) else {
        fatalError("an accepted document does not encode and read back: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
    }
    precondition(again == value, "re-encoding changed the value of \(String(decoding: bytes.prefix(200), as: UTF8.self))")
    guard (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil else {
        fatalError("accepted what Foundation refuses: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
    }
    return 0
}
