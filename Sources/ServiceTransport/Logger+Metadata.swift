import Logging

extension Logger {
    /// Adds several metadata values in one change to the handler. A handler that renders its metadata
    /// on every change (swift-log's `StreamLogHandler`) then renders it once instead of once per
    /// value; the services' own handler (``DeferredMetadataLogHandler``) renders it only to log.
    public mutating func addMetadata(_ values: Logger.Metadata) {
        handler.metadata.merge(values) { _, new in new }
    }
}
