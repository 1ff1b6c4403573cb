import AuthVocabulary
import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import IdentityToolkit
import JSONRPC
import Mustache
import ServiceKit

/// `/emulator/action?mode=…&oobCode=…&apiKey=…[&tenantId=…][&continueUrl=…]`: the page an
/// out-of-band link opens (`oob.linkBase`). It applies the code (`verifyEmail`,
/// `verifyAndChangeEmail`, `recoverEmail`, `revertSecondFactorAddition`, `revertPhoneNumberAddition`,
/// `resetPassword` with a new
/// password), then redirects to `continueUrl` or says it is done; a `signIn` link goes on to
/// `continueUrl` with the link's parameters, where the app finishes with `signInWithEmailLink`.
///
/// Two behaviours, by the deployment's mode (issue 39, M-5):
/// - development: the emulator's page (contract §1.2): a GET applies the code, `newPassword` is a
///   query parameter, answers are the emulator's `authEmulator` JSON;
/// - production: a GET only shows what the link will do, as a form; the code is applied by the
///   form's POST, so a mail scanner that fetches every link (the new-factor notice's among them)
///   changes nothing, and a new password travels in the POST's body, never in a URL (history,
///   logs, `Referer`).
/// In both, a `continueUrl` is followed only if it is plain http(s) on the scope's authorized
/// domains, checked again here: a link is not trusted for having been made by us.
struct OOBActionPage: Sendable {
    let codes: OOBCodeApplication
    let credentials: CredentialResolver
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    /// Production: show first, apply on the confirming POST.
    let confirmsFirst: Bool

    /// The link's members; anything else in a query or a form is ignored.
    static let members = ["mode", "oobCode", "apiKey", "tenantId", "lang", "continueUrl"]

    func respond(_ request: Request, requestID: String) async -> Response {
        var fields: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where Self.members.contains(String(key)) {
            fields[String(key)] = String(value)
        }
        var newPassword = confirmsFirst ? nil : request.uri.queryParameters["newPassword"].map(String.init)
        let confirmed = !confirmsFirst || request.method == .post
        if request.method == .post {
            guard confirmsFirst else { return PublicAPI.error(.notFound) }
            guard case .object(let body)? = try? await PublicAPI.readBody(request) else {
                return Self.failure("the form could not be read", html: true)
            }
            for name in Self.members { if let value = body[name]?.stringValue { fields[name] = value } }
            newPassword = body["newPassword"]?.stringValue
        }
        let html = confirmsFirst
        guard let apiKey = fields["apiKey"], !apiKey.isEmpty else { return Self.failure("missing apiKey query parameter", html: html) }
        guard let oobCode = fields["oobCode"], !oobCode.isEmpty else {
            return Self.failure("missing oobCode query parameter", html: html)
        }
        let mode = fields["mode"] ?? ""
        guard let requestType = OOBLinkBuilder.modes.first(where: { $0.value == mode })?.key else {
            return Self.failure("Invalid mode: \(mode)", html: html)
        }
        let projectId: String
        do {
            guard case .apiKey(let project) = try await credentials.resolve(headers: [:], query: ["key": apiKey], listener: .public) else {
                return Self.failure("missing apiKey query parameter", html: html)
            }
            projectId = project
        } catch let error as IdentityToolkitError {
            return PublicAPI.error(error)
        } catch {
            return PublicAPI.error(.internalError(requestID: requestID))
        }
        let continueUrl = await followable(fields["continueUrl"], projectId: projectId, tenantId: fields["tenantId"], requestID: requestID)
        if requestType == .emailSignIn {
            guard let continueUrl, var target = URLComponents(string: continueUrl) else {
                return Self.failure("missing continueUrl query parameter", html: html)
            }
            target.queryItems =
                (target.queryItems ?? [])
                + ["apiKey", "oobCode", "mode", "lang", "tenantId"].compactMap { name in
                    fields[name].map { URLQueryItem(name: name, value: $0) }
                }
            return Self.redirect(to: target.string ?? continueUrl)
        }
        if !confirmed { return Self.confirmation(requestType: requestType, fields: fields) }
        if requestType == .passwordReset, newPassword == nil {
            return Self.failure("missing newPassword query parameter", html: html)
        }
        do {
            let applied = try await codes.apply(
                oobCode, requestTypes: [requestType], newPassword: newPassword, projectId: projectId,
                tenantId: fields["tenantId"], apiKey: apiKey, locale: fields["lang"], requestID: requestID
            )
            if let continueUrl { return Self.redirect(to: continueUrl) }
            let done = Self.successes[requestType] ?? "Done."
            if html { return Self.page(title: "Done", message: done) }
            var success: [String: JSONValue] = ["success": .string(done)]
            if let email = applied.account.email { success["email"] = .string(email) }
            return PublicAPI.json(200, ["authEmulator": .object(success)])
        } catch let error as IdentityToolkitError where [.invalidOOBCode, .expiredOOBCode].contains(error.code) {
            let (what, again) = Self.requests[requestType] ?? ("verify your email", "Try verifying your email again.")
            let message = "Your request to \(what) has expired or the link has already been used."
            if html { return Self.page(title: "This link no longer works", message: "\(message) \(again)", status: .badRequest) }
            return PublicAPI.json(400, ["authEmulator": ["error": .string(message), "instructions": .string(again)]])
        } catch let error as IdentityToolkitError {
            return PublicAPI.error(error)
        } catch {
            return PublicAPI.error(.internalError(requestID: requestID))
        }
    }

    /// `continueUrl` if a browser may be sent there: one reading (ContinueURL) and a host on the
    /// scope's authorized domains (decision 21), checked now, whatever the link says; else `nil`.
    private func followable(_ continueUrl: String?, projectId: String, tenantId: String?, requestID: String) async -> String? {
        guard let continueUrl, !continueUrl.isEmpty else { return nil }
        do {
            try await scopeSettings.requireAuthorized(
                continueUrl: continueUrl, projectId: projectId, tenantId: tenantId, requestID: requestID
            )
            return continueUrl
        } catch {
            return nil
        }
    }

    /// What a used or expired link asked for, and what to do instead.
    static let requests: [OOBRequestType: (String, String)] = [
        .verifyAndChangeEmail: ("change your email", "Try changing your email again."),
        .recoverEmail: ("restore your email", "The link in the newest email about the change still works."),
        .passwordReset: ("reset your password", "Try resetting your password again."),
        .revertSecondFactorAddition: ("remove the second factor", "Sign in and remove the factor in your account settings."),
        .revertPhoneNumberAddition: ("remove the phone number", "Sign in and remove the phone number in your account settings."),
    ]

    static let successes: [OOBRequestType: String] = [
        .verifyEmail: "The email has been successfully verified.",
        .verifyAndChangeEmail: "The email has been successfully changed and verified.",
        .recoverEmail:
            "The email has been successfully restored, and you are signed out everywhere. The password set since was removed too: a link to choose a new one is on its way to the restored address.",
        .passwordReset: "The password has been successfully updated.",
        .revertSecondFactorAddition: "The second factor has been successfully removed.",
        .revertPhoneNumberAddition: "The phone number has been successfully removed.",
    ]

    /// What the confirming button does, per link.
    static let confirmations: [OOBRequestType: String] = [
        .verifyEmail: "Verify my email address",
        .verifyAndChangeEmail: "Change my email address",
        .recoverEmail: "Restore my email address and sign out everywhere",
        .passwordReset: "Set the new password",
        .revertSecondFactorAddition: "Remove the second factor and sign out everywhere",
        .revertPhoneNumberAddition: "Remove the phone number and sign out everywhere",
    ]

    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!

    static func redirect(to location: String) -> Response {
        var response = Response(status: .seeOther)
        response.headers[.location] = location
        response.headers[Self.referrerPolicy] = "no-referrer"
        return response
    }

    static func failure(_ message: String, html: Bool) -> Response {
        if html { return page(title: "This link cannot be used", message: message, status: .badRequest) }
        return PublicAPI.json(400, ["authEmulator": ["error": .string(message)]])
    }

    /// The production page's form: the link's members as hidden fields (escaped by Mustache), a
    /// password field for a reset, one button. It posts back here, and nothing else is allowed to run.
    static func confirmation(requestType: OOBRequestType, fields: [String: String]) -> Response {
        let hidden = members.compactMap { name in fields[name].map { ["name": name, "value": $0] } }
        return render(
            [
                "title": "Confirm", "action": confirmations[requestType] ?? "Continue", "fields": hidden,
                "password": requestType == .passwordReset,
            ],
            status: .ok
        )
    }

    static func page(title: String, message: String, status: HTTPResponse.Status = .ok) -> Response {
        render(["title": title, "message": message], status: status)
    }

    private static func render(_ values: [String: Any], status: HTTPResponse.Status) -> Response {
        let body = template.render(values)
        var response = Response(status: status, body: .init(byteBuffer: ByteBuffer(string: body)))
        response.headers[.contentType] = "text/html; charset=utf-8"
        response.headers[.cacheControl] = "no-store"
        response.headers[Self.referrerPolicy] = "no-referrer"
        response.headers[Self.contentSecurityPolicy] =
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
        return response
    }

    /// Written here, so it cannot fail to parse at run time (a test renders every branch).
    private static let template = try! MustacheTemplate(
        string: """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>{{title}}</title>
            <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
            button{font-size:1rem;padding:.5rem 1rem}input{font-size:1rem;width:100%;margin:.5rem 0 1rem}</style>
            </head><body><h1>{{title}}</h1>
            {{#message}}<p>{{message}}</p>{{/message}}
            {{#action}}<form method="post">
            {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">{{/fields}}
            {{#password}}<label>New password <input type="password" name="newPassword" autocomplete="new-password" required></label>{{/password}}
            <button type="submit">{{action}}</button>
            </form>{{/action}}
            </body></html>
            """
    )
}
