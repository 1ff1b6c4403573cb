import Contracts
import Foundation
import IdentityToolkit

/// What a `signInWithIdp` request presents, read as Identity Toolkit reads it: the parameters of
/// `requestUri`'s query, then `postBody`'s (a form), then `requestUri`'s fragment, each later one
/// winning. A `state` parameter means the authorization response of a web sign-in this server
/// started; otherwise the credential an SDK got natively (an ID token, and the raw nonce). A
/// `pendingToken` stands on its own.
enum ProviderCredential {
    case pending(String)
    case web(state: String, code: String?, idToken: String?)
    case native(providerId: String, idToken: String?, accessToken: String?, nonce: String?)

    static func read(requestUri: String, postBody: String?, pendingToken: String?) throws -> ProviderCredential {
        if let pendingToken, !pendingToken.isEmpty { return .pending(pendingToken) }
        guard requestUri.utf8.count <= 16 * 1024, let url = URLComponents(string: requestUri), url.scheme != nil else {
            throw IdentityToolkitError(.invalidRequestURI)
        }
        var parameters: [String: String] = [:]
        for item in url.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        if let postBody, postBody.utf8.count <= 64 * 1024 {
            for (name, value) in form(postBody) { parameters[name] = value }
        }
        if let fragment = url.percentEncodedFragment {
            for (name, value) in form(fragment) { parameters[name] = value }
        }
        if let error = parameters["error"] {
            // The provider refused (the user cancelled, or the request was wrong): nothing to verify.
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider answered \(error.prefix(64)).")
        }
        if let state = parameters["state"] {
            return .web(state: state, code: parameters["code"].nonEmpty, idToken: parameters["id_token"].nonEmpty)
        }
        guard let providerId = parameters["providerId"]?.lowercased(), !providerId.isEmpty else {
            throw IdentityToolkitError(.invalidCredentialOrProviderID, detail: "Invalid IdP response/credential.")
        }
        return .native(
            providerId: providerId, idToken: parameters["id_token"].nonEmpty, accessToken: parameters["access_token"].nonEmpty,
            nonce: parameters["nonce"].nonEmpty
        )
    }

    /// `application/x-www-form-urlencoded` pairs (`+` is a space).
    static func form(_ text: String) -> [(String, String)] {
        text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? { String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = parts.first.flatMap(decode), !name.isEmpty else { return nil }
            return (name, parts.count > 1 ? decode(parts[1]) ?? "" : "")
        }
    }
}

extension String? {
    fileprivate var nonEmpty: String? {
        guard let self, !self.isEmpty else { return nil }
        return self
    }
}
