import DevelopmentPKI
import Foundation
import ServiceKit
import ServiceTransport
import Synchronization

/// A deployment CA and a certificate per service, written once per test process: a service host
/// reads its TLS files at construction even when nothing it does goes over the network.
enum TestCertificates {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static let written = Mutex<URL?>(nil)

    static var directory: URL {
        get throws {
            try written.withLock { written in
                if let written { return written }
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "mfa-service-tests-\(UUID().uuidString.prefix(8))")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let authority = try CertificateAuthority(commonName: "in-process test CA")
                try Data(try authority.certificatePEM.utf8).write(to: directory.appendingPathComponent("ca.pem"))
                for service in ServiceName.allCases {
                    let issued = try authority.issue(commonName: service.rawValue, hosts: ["localhost", "127.0.0.1"])
                    try Data(issued.certificatePEM.utf8).write(to: directory.appendingPathComponent("\(service.rawValue).pem"))
                    try Data(issued.privateKeyPEM.utf8).write(to: directory.appendingPathComponent("\(service.rawValue)-key.pem"))
                }
                written = directory
                return directory
            }
        }
    }
}
