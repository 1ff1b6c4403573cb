import AsyncHTTPClient
import Foundation
import PluginHTTP
import PluginKit

/// Sends SMS through a Twilio-style Messages API: `POST <baseURL>/2010-04-01/Accounts/<account>/Messages.json`
/// with a form body (`To`, `From` or `MessagingServiceSid`, `Body`) and HTTP Basic authentication
/// (account id and token). Any 2xx is delivered; anything else is ``DeliveryFailed`` carrying the
/// status only (a provider's error text can echo the message). The body is UTF-8, percent-encoded:
/// the provider chooses GSM-7 or UCS-2 from the text, as ``SMSMessage/encoding`` measured it.
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

    public func send(_ message: SMSMessage) async throws {
        let base = configuration.baseURL.hasSuffix("/") ? String(configuration.baseURL.dropLast()) : configuration.baseURL
        let account = configuration.accountID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let credentials = Data("\(configuration.accountID):\(configuration.authToken)".utf8).base64EncodedString()
        let sender = configuration.from.hasPrefix("MG") ? "MessagingServiceSid" : "From"
        let response: OutsideCall.Answer
        do {
            response = try await OutsideCall(client: client, timeout: configuration.timeout).post(
                "\(base)/2010-04-01/Accounts/\(account)/Messages.json",
                headers: [("authorization", "Basic \(credentials)"), ("content-type", "application/x-www-form-urlencoded; charset=utf-8")],
                body: OutsideCall.form([("To", message.to), (sender, configuration.from), ("Body", message.text)])
            )
        } catch {
            throw DeliveryFailed("SMS provider unreachable (\(type(of: error)))")
        }
        guard (200..<300).contains(response.status) else {
            throw DeliveryFailed("SMS provider answered HTTP \(response.status)")
        }
    }
}
