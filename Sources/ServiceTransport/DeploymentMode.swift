/// `production` is what a service runs in unless told otherwise (contract decision 16).
/// `development` enables the emulator-compatible conveniences of decisions 11, 12 and 14
/// (`Bearer owner`, any API key, helper routes, unsigned custom tokens, the test reCAPTCHA token);
/// the local stack and the test stacks ask for it explicitly with `MODE=development`.
///
/// Every service of a deployment must run in the same mode: each RPC carries the caller's mode and
/// each answer the callee's (``DeploymentMode/header``), and a call between different modes is
/// refused on both sides, so a gateway in production can never lean on a session-token that
/// accepts unsigned tokens.
public enum DeploymentMode: String, Sendable, Codable, CaseIterable {
    case development
    case production

    /// The HTTP header that carries a service's mode on every RPC request and response.
    public static let header = "mfa-deployment-mode"
}
