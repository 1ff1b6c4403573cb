import JSONRPC

extension RPCError {
    /// An application error that carries a business error for the gateway to answer unchanged.
    public init(code: RPCErrorCode, business: IdentityToolkitError) {
        self.init(code: code, identityToolkitError: business.message)
    }

    /// The business error this error carries, if any.
    public var business: IdentityToolkitError? {
        identityToolkitError.flatMap(IdentityToolkitError.init(businessMessage:))
    }
}
