import DevelopmentPKI
import Foundation

// Creates (once) the development CA and the four services' certificates.
// Usage: mfa-dev-pki <directory> [extra-host ...]
let arguments = CommandLine.arguments.dropFirst()
guard let directory = arguments.first, directory != "-h", directory != "--help" else {
    print("usage: mfa-dev-pki <directory> [extra-host ...]")
    exit(arguments.isEmpty ? 2 : 0)
}
do {
    let written = try DevelopmentCertificates.ensure(
        in: URL(fileURLWithPath: directory), extraHosts: Array(arguments.dropFirst())
    )
    print(
        written.isEmpty
            ? "development certificates already present in \(directory)" : "wrote \(written.joined(separator: " ")) in \(directory)")
} catch {
    FileHandle.standardError.write(Data("mfa-dev-pki: \(error)\n".utf8))
    exit(1)
}
