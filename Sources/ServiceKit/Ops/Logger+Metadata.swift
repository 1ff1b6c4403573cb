import Logging

extension Logger {
    /// Adds several metadata values in one change to the handler. A handler that renders its metadata
    /// on every change (swift-log's `StreamLogHandler`, which the services log with) then renders it
    /// once instead of once per value; in-process calls do this for every call.
    mutating func addMetadata(_ values: Logger.Metadata) {
        handler.metadata.merge(values) { _, new in new }
    }
}
