import Logging

/// swift-log's `StreamLogHandler`, with its metadata rendered only when something is logged.
///
/// `StreamLogHandler` renders its metadata to text on every change. Every RPC call sets three
/// values (request id, caller, method) and almost never logs, so a sign-in rendered metadata eight
/// times for nothing: 2 % of the process's CPU in the profile (docs/performance.md).
/// This handler keeps the values and hands them to the stream handler with each event, which
/// renders them then, sorted by key as before: the lines are the same.
struct DeferredMetadataLogHandler: LogHandler {
    private var stream: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    init(_ stream: StreamLogHandler) {
        self.stream = stream
    }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty {
            // A value given with the log statement wins over the logger's, as in StreamLogHandler.
            event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        }
        stream.log(event: event)
    }
}
