/// The answer of `…/accounts:batchCreate`: the accounts not imported, by place in the request.
struct UploadAccountResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1UploadAccountResponse"
    var kind = "identitytoolkit#UploadAccountResponse"
    var error: [ErrorInfo]
}

/// An account an import refused: its place in the request, and why.
struct ErrorInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1ErrorInfo"
    var index: Int
    var message: String
}
