import AsyncHTTPClient
import Foundation
import NIOCore

/// One call to an outside service, as every plugin that makes one does it (reCAPTCHA's
/// siteverify, Play Integrity, the SMS provider, APNs): a POST under a time limit whose answer is
/// read up to a bound. A failure to connect or to answer in time throws; any answer, whatever its
/// status, is returned for the plugin to judge.
public struct OutsideCall: Sendable {
    public let client: HTTPClient
    public let timeout: Duration
    /// The most of an answer's body that is read; a longer one reads as empty.
    public let answerLimit: Int

    public init(client: HTTPClient, timeout: Duration, answerLimit: Int = 64 * 1024) {
        self.client = client
        self.timeout = timeout
        self.answerLimit = answerLimit
    }

    public struct Answer: Sendable {
        public let status: Int
        public let body: [UInt8]

        /// The body as a JSON object, if it is one.
        public var jsonObject: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        }
    }

    public func post(_ url: String, headers: [(String, String)], body: [UInt8]) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let (seconds, attoseconds) = timeout.components
        let response = try await client.execute(request, timeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        let collected = try? await response.body.collect(upTo: answerLimit)
        return Answer(status: Int(response.status.code), body: collected.map { Array($0.readableBytesView) } ?? [])
    }

    /// `application/x-www-form-urlencoded`, every byte but the unreserved ones escaped.
    public static func form(_ fields: [(String, String)]) -> [UInt8] {
        Array(fields.map { "\($0)=\(formEncoded($1))" }.joined(separator: "&").utf8)
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func formEncoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
}
