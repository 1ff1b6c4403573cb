/// `…/accounts:batchCreate` (importUsers): accounts with their password hashes.
struct UploadAccountRequest: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1UploadAccountRequest"
    var tenantId: String?
    var users: [UserInfo]?
    var hashAlgorithm: String?
    var cpuMemCost: Int?
    var blockSize: Int?
    var parallelization: Int?
    var dkLen: Int?
    var signerKey: String?
    var saltSeparator: String?
    var rounds: Int?
    var memoryCost: Int?
    var passwordHashOrder: String?
    var allowOverwrite: Bool?
    var sanityCheck: Bool?
}
