import Foundation
import PackagePlugin

/// Writes `BuildVersion.swift` before each build: the release from `VERSION` and the commit the
/// tree was built from (`scripts/build-version.sh`), so `--version`, `GET /` and the `build_info`
/// metric say what is running instead of a constant someone forgot to bump.
@main
struct BuildVersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        return [
            .prebuildCommand(
                displayName: "Build version of \(target.name)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [
                    context.package.directoryURL.appending(path: "scripts/build-version.sh").path,
                    context.package.directoryURL.path, output.appending(path: "BuildVersion.swift").path,
                ],
                outputFilesDirectory: output
            )
        ]
    }
}
