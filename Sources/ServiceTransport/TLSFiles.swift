/// The PEM files of mutual TLS between services: the deployment CA, this service's certificate and its key.
public struct TLSFiles: Sendable {
    public var caFile: String
    public var certificateFile: String
    public var privateKeyFile: String

    public init(caFile: String, certificateFile: String, privateKeyFile: String) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
    }
}
