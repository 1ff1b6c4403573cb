import Foundation
import Logging

/// `log.format=json`: one JSON object per line on standard output, for a log pipeline that indexes
/// fields instead of parsing text: `time` (RFC 3339, milliseconds, UTC), `level`, `service` (the
/// logger's label), `message`, then the metadata as members (`request.id`, the request id that
/// crosses the services; `rpc.method`, `rpc.caller`). What is logged is the same as in text: the
/// call sites already keep secrets, codes and full phone numbers out of messages and metadata.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var members: [String: Any] = [:]
        let provided = metadataProvider?.get() ?? [:]
        for (key, value) in metadata.merging(provided, uniquingKeysWith: { _, new in new })
            .merging(event.metadata ?? [:], uniquingKeysWith: { _, explicit in explicit })
        {
            members[key] = Self.json(value)
        }
        members["time"] = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        members["level"] = event.level.rawValue
        members["service"] = label
        members["message"] = event.message.description
        if let error = event.error { members["error"] = String(describing: error) }
        guard var line = try? JSONSerialization.data(withJSONObject: members, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        line.append(UInt8(ascii: "\n"))
        // One write per line: lines from several threads never interleave.
        FileHandle.standardOutput.write(line)
    }

    static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let members): members.mapValues(json)
        }
    }
}
