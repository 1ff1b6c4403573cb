import ArgumentParser
import BuildInfo
import DevelopmentPKI
import Foundation

/// `mfa-dev-pki <directory> [extra-host …]`: creates (once) the development CA and the four
/// services' certificates; files already there are kept, so a stack is never re-keyed by accident.
@main
struct DevelopmentPKICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa-dev-pki",
        abstract: "Create the development CA and the services' certificates (once; existing files are kept).",
        version: BuildInfo.version
    )

    @Argument(help: "Where to write ca.pem, <service>.pem and <service>-key.pem.") var directory: String
    @Argument(help: "More host names or addresses for the certificates (compose service names, say).") var extraHosts: [String] = []

    func run() throws {
        do {
            let written = try DevelopmentCertificates.ensure(in: URL(fileURLWithPath: directory), extraHosts: extraHosts)
            print(
                written.isEmpty
                    ? "development certificates already present in \(directory)" : "wrote \(written.joined(separator: " ")) in \(directory)"
            )
        } catch {
            FileHandle.standardError.write(Data("mfa-dev-pki: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
