import Logging
import ServiceTransport
import Synchronization
import Testing

@testable import ServiceKit

@Suite("Log lines")
struct DeferredMetadataLogHandlerTests {
    /// What a StreamLogHandler writes, kept in memory.
    final class Lines: TextOutputStream, Sendable {
        let text = Mutex("")
        func write(_ string: String) { text.withLock { $0 += string } }
    }

    @Test("a logger's metadata appears in its lines sorted by key, and a statement's own value wins")
    func metadataRenderedAtLogTime() {
        let lines = Lines()
        var logger = Logger(label: "factor-registry") { label in
            DeferredMetadataLogHandler(StreamLogHandler(label: label, stream: lines, metadataProvider: nil))
        }
        logger.addMetadata(["rpc.caller": "gateway", "request.id": "r-1"])
        logger[metadataKey: "rpc.method"] = "totp.verify"
        var child = logger
        child[metadataKey: "request.id"] = "r-2"  // a copy's change stays in the copy
        logger.info("checked", metadata: ["rpc.method": "account.update"])
        child.debug("not at this level")
        child.warning("slow")
        let written = lines.text.withLock { $0 }.split(separator: "\n")
        #expect(written.count == 2)
        #expect(
            written.first?.hasSuffix(
                " info factor-registry: request.id=r-1 rpc.caller=gateway rpc.method=account.update [ServiceKitTests] checked") == true)
        #expect(
            written.last?.hasSuffix(
                " warning factor-registry: request.id=r-2 rpc.caller=gateway rpc.method=totp.verify [ServiceKitTests] slow") == true)
    }
}
