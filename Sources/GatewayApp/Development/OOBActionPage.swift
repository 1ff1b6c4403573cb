import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `GET /emulator/action?mode=…&oobCode=…&apiKey=…[&tenantId=…][&continueUrl=…]`: the page an
/// out-of-band link opens. Applies the code (`verifyEmail`, `verifyAndChangeEmail`, `recoverEmail`,
/// `revertSecondFactorAddition`; `resetPassword` with a `newPassword` parameter, as the emulator's
/// page submits it); answers in the emulator's `authEmulator` shape (contract §1.2), or redirects
/// to `continueUrl` on success. A `signIn` link goes on to `continueUrl` with the link's parameters,
/// where the app finishes with `signInWithEmailLink`.
struct OOBActionPage: Sendable {
    let codes: OOBCodeApplication
    let credentials: CredentialResolver

    func respond(_ request: Request, requestID: String) async -> Response {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        guard let apiKey = query["apiKey"], !apiKey.isEmpty else { return Self.failure("missing apiKey query parameter") }
        guard let oobCode = query["oobCode"], !oobCode.isEmpty else { return Self.failure("missing oobCode query parameter") }
        let mode = query["mode"] ?? ""
        guard let requestType = OOBLinkBuilder.modes.first(where: { $0.value == mode })?.key else {
            return Self.failure("Invalid mode: \(mode)")
        }
        if requestType == "EMAIL_SIGNIN" {
            guard let continueUrl = query["continueUrl"], OOBLinkBuilder.isAbsolute(continueUrl),
                var target = URLComponents(string: continueUrl)
            else { return Self.failure("missing continueUrl query parameter") }
            target.queryItems =
                (target.queryItems ?? [])
                + ["apiKey", "oobCode", "mode", "lang", "tenantId"].compactMap { name in
                    query[name].map { URLQueryItem(name: name, value: $0) }
                }
            var response = Response(status: .seeOther)
            response.headers[.location] = target.string ?? continueUrl
            return response
        }
        if requestType == "PASSWORD_RESET", query["newPassword"] == nil {
            return Self.failure("missing newPassword query parameter")
        }
        let projectId: String
        do {
            guard case .apiKey(let project) = try await credentials.resolve(headers: [:], query: ["key": apiKey]) else {
                return Self.failure("missing apiKey query parameter")
            }
            projectId = project
        } catch let error as IdentityToolkitError {
            return PublicAPI.error(error)
        } catch {
            return PublicAPI.error(.internalError(requestID: requestID))
        }
        do {
            let applied = try await codes.apply(
                oobCode, requestTypes: [requestType], newPassword: query["newPassword"], projectId: projectId,
                tenantId: query["tenantId"], apiKey: apiKey, locale: query["lang"], requestID: requestID
            )
            if let continueUrl = query["continueUrl"], OOBLinkBuilder.isAbsolute(continueUrl) {
                var response = Response(status: .seeOther)
                response.headers[.location] = continueUrl
                return response
            }
            var success: [String: JSONValue] = ["success": .string(Self.successes[requestType] ?? "Done.")]
            if let email = applied.account.email { success["email"] = .string(email) }
            return PublicAPI.json(200, ["authEmulator": .object(success)])
        } catch let error as IdentityToolkitError where [.invalidOOBCode, .expiredOOBCode].contains(error.code) {
            let (what, again) = Self.requests[requestType] ?? ("verify your email", "Try verifying your email again.")
            return PublicAPI.json(
                400,
                [
                    "authEmulator": [
                        "error": .string("Your request to \(what) has expired or the link has already been used."),
                        "instructions": .string(again),
                    ]
                ]
            )
        } catch let error as IdentityToolkitError {
            return PublicAPI.error(error)
        } catch {
            return PublicAPI.error(.internalError(requestID: requestID))
        }
    }

    /// What a used or expired link asked for, and what to do instead.
    static let requests: [String: (String, String)] = [
        "VERIFY_AND_CHANGE_EMAIL": ("change your email", "Try changing your email again."),
        "RECOVER_EMAIL": ("restore your email", "The link in the newest email about the change still works."),
        "PASSWORD_RESET": ("reset your password", "Try resetting your password again."),
        "REVERT_SECOND_FACTOR_ADDITION": ("remove the second factor", "Sign in and remove the factor in your account settings."),
    ]

    static let successes = [
        "VERIFY_EMAIL": "The email has been successfully verified.",
        "VERIFY_AND_CHANGE_EMAIL": "The email has been successfully changed and verified.",
        "RECOVER_EMAIL": "The email has been successfully restored.",
        "PASSWORD_RESET": "The password has been successfully updated.",
        "REVERT_SECOND_FACTOR_ADDITION": "The second factor has been successfully removed.",
    ]

    static func failure(_ message: String) -> Response {
        PublicAPI.json(400, ["authEmulator": ["error": .string(message)]])
    }
}
