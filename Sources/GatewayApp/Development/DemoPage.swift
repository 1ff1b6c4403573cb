import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QRCode
import ServiceKit
import ServiceTransport

/// `GET /demo`: a page that walks a newcomer through the product in a browser (sign up, verify the
/// email, enroll an authenticator app from a QR code and a phone, sign in through a second factor,
/// read the ID token, withdraw a factor), calling only the public API as the Firebase SDKs do.
/// `POST /demo/qr` draws the QR code of an enrollment's `otpauth://` address. Development mode only:
/// in production these paths do not exist (404), like the emulator's routes.
struct DemoPage: Sendable {
    let mode: DeploymentMode
    let projectId: String

    /// An `otpauth://` address is well under 300 bytes; anything much longer is not one.
    static let maximumQRTextBytes = 1024

    /// The answer for `path`, or `nil` when it is not one of the demo's routes.
    func respond(_ request: Request, path: String) async -> Response? {
        guard mode == .development, path == "/demo" || path.hasPrefix("/demo/") else { return nil }
        switch (request.method, path) {
        case (.get, "/demo"), (.get, "/demo/"):
            let page = String(decoding: PackageResources.demo_html, as: UTF8.self)
                .replacingOccurrences(of: "{{projectId}}", with: Self.escaped(projectId))
            return Self.file(page, type: "text/html; charset=utf-8")
        case (.get, "/demo/demo.js"):
            return Self.file(String(decoding: PackageResources.demo_js, as: UTF8.self), type: "text/javascript; charset=utf-8")
        case (.get, "/demo/demo.css"):
            return Self.file(String(decoding: PackageResources.demo_css, as: UTF8.self), type: "text/css; charset=utf-8")
        case (.post, "/demo/qr"):
            return await qrCode(request)
        default:
            return nil
        }
    }

    private func qrCode(_ request: Request) async -> Response {
        guard let body = try? await request.body.collect(upTo: Self.maximumQRTextBytes) else {
            return Self.text(413, "The text is longer than \(Self.maximumQRTextBytes) bytes.")
        }
        let text = String(buffer: body)
        guard text.hasPrefix("otpauth://"), let symbol = QRCode(encoding: text) else {
            return Self.text(400, "Send an otpauth:// address as the request body.")
        }
        return Self.file(symbol.svg(), type: "image/svg+xml")
    }

    /// Served with a policy that lets the page run only its own script and reach only this origin.
    private static func file(_ text: String, type: String) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        headers[HTTPField.Name("content-security-policy")!] =
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
        headers[HTTPField.Name("x-content-type-options")!] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func text(_ status: Int, _ message: String) -> Response {
        Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: message))
        )
    }

    /// For an HTML attribute value.
    static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
