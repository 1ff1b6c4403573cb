import Foundation
import Hummingbird
import JSONRPC
import ServiceKit

/// Key management for operators (admin credential required): `GET /admin/signing-keys` lists the
/// keys (never a secret), `POST /admin/signing-keys/rotate` adds one that signs after the lead.
struct SigningKeyAdminRoutes: Sendable {
    let keyring: SigningKeyring

    func add(to admin: RouterGroup<BasicRequestContext>) {
        admin.get("signing-keys") { _, _ in
            OpsRouter.json(.ok, describe(Date()))
        }
        admin.post("signing-keys/rotate") { _, _ in
            do {
                let key = try await keyring.rotate()
                return OpsRouter.json(
                    .ok,
                    ["rotated": .string(key.kid), "signingFrom": .string(Self.iso(key.signingFrom)), "keys": describe(Date())] as JSONValue
                )
            } catch {
                return OpsRouter.error(.serviceUnavailable, "rotation failed; the key set is unchanged")
            }
        }
    }

    func describe(_ now: Date) -> JSONValue {
        let signer = keyring.signer(at: now)?.kid
        return .array(
            keyring.published(at: now).map { key in
                [
                    "kid": .string(key.kid), "signingFrom": .string(Self.iso(key.signingFrom)),
                    "signing": .bool(key.kid == signer),
                ]
            }
        )
    }

    static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
