import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `GET /emulator/action?mode=verifyEmail&oobCode=…&apiKey=…[&tenantId=…][&continueUrl=…]`: the
/// page an out-of-band link opens. Applies the code; answers in the emulator's `authEmulator` shape
/// (contract §1.2), or redirects to `continueUrl` on success.
struct OobActionPage: Sendable {
    let registry: RPCClient
    let credentials: CredentialResolver

    func respond(_ request: Request, requestID: String) async -> Response {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        guard let apiKey = query["apiKey"], !apiKey.isEmpty else { return Self.failure("missing apiKey query parameter") }
        guard let oobCode = query["oobCode"], !oobCode.isEmpty else { return Self.failure("missing oobCode query parameter") }
        guard query["mode"] == "verifyEmail" else {
            return Self.failure("Unsupported mode: only verifyEmail links are served.")
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
            let applied = try await PeerCall.call(
                registry, ApplyOobCode.self, .init(projectId: projectId, tenantId: query["tenantId"], oobCode: oobCode),
                requestID: requestID
            )
            if let continueUrl = query["continueUrl"], OobLinkBuilder.isAbsolute(continueUrl) {
                var response = Response(status: .seeOther)
                response.headers[.location] = continueUrl
                return response
            }
            var success: [String: JSONValue] = ["success": "The email has been successfully verified."]
            if let email = applied.account.email { success["email"] = .string(email) }
            return PublicAPI.json(200, ["authEmulator": .object(success)])
        } catch let error as IdentityToolkitError where ["INVALID_OOB_CODE", "EXPIRED_OOB_CODE"].contains(error.message) {
            return PublicAPI.json(
                400,
                [
                    "authEmulator": [
                        "error": "Your request to verify your email has expired or the link has already been used.",
                        "instructions": "Try verifying your email again.",
                    ]
                ]
            )
        } catch let error as IdentityToolkitError {
            return PublicAPI.error(error)
        } catch {
            return PublicAPI.error(.internalError(requestID: requestID))
        }
    }

    static func failure(_ message: String) -> Response {
        PublicAPI.json(400, ["authEmulator": ["error": .string(message)]])
    }
}
