import AsyncHTTPClient
import Foundation
import NIOCore
import PluginKit

/// Sends SMS through a Twilio-style Messages API: `POST <baseURL>/2010-04-01/Accounts/<account>/Messages.json`
/// with a form body (`To`, `From` or `MessagingServiceSid`, `Body`) and HTTP Basic authentication
/// (account id and token). Any 2xx is delivered; anything else is ``DeliveryFailed`` carrying the
/// status only (a provider's error text can echo the message).
public struct MessagesAPISender: SMSSender {
    public struct Configuration: Sendable {
        public var baseURL: String
        public var accountID: String
        public var authToken: String
        /// The sending number, or a messaging service id starting with `MG`.
        public var from: String
        public var timeout: Duration

        public init(baseURL: String, accountID: String, authToken: String, from: String, timeout: Duration = .seconds(10)) {
            self.baseURL = baseURL
            self.accountID = accountID
            self.authToken = authToken
            self.from = from
            self.timeout = timeout
        }
    }

    let configuration: Configuration
    let client: HTTPClient

    public init(configuration: Configuration, client: HTTPClient) {
        self.configuration = configuration
        self.client = client
    }

    public var name: String { "http" }

    public func send(to: String, text: String) async throws {
        let base = configuration.baseURL.hasSuffix("/") ? String(configuration.baseURL.dropLast()) : configuration.baseURL
        let account = configuration.accountID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        var request = HTTPClientRequest(url: "\(base)/2010-04-01/Accounts/\(account)/Messages.json")
        request.method = .POST
        let credentials = Data("\(configuration.accountID):\(configuration.authToken)".utf8).base64EncodedString()
        request.headers.add(name: "authorization", value: "Basic \(credentials)")
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        let sender = configuration.from.hasPrefix("MG") ? "MessagingServiceSid" : "From"
        let form = [("To", to), (sender, configuration.from), ("Body", text)]
            .map { "\($0)=\(Self.formEncode($1))" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: form))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .init(configuration.timeout))
        } catch {
            throw DeliveryFailed("SMS provider unreachable (\(type(of: error)))")
        }
        _ = try? await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(response.status.code) else {
            throw DeliveryFailed("SMS provider answered HTTP \(response.status.code)")
        }
    }

    static let formAllowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func formEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: formAllowed) ?? ""
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
