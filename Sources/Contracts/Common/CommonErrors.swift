import JSONRPC

/// Application errors any service may raise (range 900-999, `proto-json/errors.json`).
extension RPCErrorCode {
    /// The project or tenant id is not of a form the system accepts.
    public static let invalidTenantScope = RPCErrorCode(900)
    /// The scope's schema does not exist in the called service.
    public static let tenantSchemaMissing = RPCErrorCode(901)
}
