import Configuration
import ServiceTransport

/// The `http.*` keys ``ListenerLimits`` names, read strictly: a limit that is not a positive number stops the service.
extension ListenerLimits {
    init(reader: ConfigReader) throws {
        func positive(_ key: String, _ fallback: Int) throws -> Int {
            let value = reader.int(forKey: ConfigKey(key), default: fallback)
            guard value > 0 else { throw InvalidSetting(key: key, reason: "must be a positive number") }
            return value
        }
        let firstRequest = try positive("http.firstRequestTimeoutSeconds", 10)
        guard firstRequest <= 10 else {
            throw InvalidSetting(
                key: "http.firstRequestTimeoutSeconds", reason: "must be at most 10: a silent connection holds a slot that long")
        }
        let maximum = try positive("http.maximumConnections", 4096)
        self.init(
            handshake: .seconds(try positive("http.handshakeTimeoutSeconds", 10)),
            firstRequest: .seconds(firstRequest),
            header: .seconds(try positive("http.headerTimeoutSeconds", 10)),
            body: .seconds(try positive("http.bodyTimeoutSeconds", 30)),
            idle: .seconds(try positive("http.idleTimeoutSeconds", 60)),
            maximumConnections: maximum,
            maximumConnectionsPerAddress: try positive("http.maximumConnectionsPerAddress", 256)
        )
    }
}
