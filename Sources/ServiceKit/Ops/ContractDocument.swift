import Foundation
import JSONRPC
import ServiceTransport

/// A service's OpenRPC document from `proto-json/`: served by `rpc.discover`, and the source of
/// each method's allowed param names (the dispatcher refuses params the contract lacks).
public struct ContractDocument: Sendable {
    public let document: JSONValue
    public let path: String

    public init(service: ServiceName, directory: String?) throws {
        let fileName = "\(service.rawValue).openrpc.json"
        guard let path = Self.locate(fileName, configured: directory) else {
            throw MissingContract(fileName: fileName)
        }
        self.path = path
        document = try JSONCoding.parse(Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Method name → names of its params, as declared in the document.
    public var paramNames: [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        guard case .array(let methods)? = document["methods"] else { return result }
        for method in methods {
            guard let name = method["name"]?.stringValue else { continue }
            var names: Set<String> = []
            if case .array(let params)? = method["params"] {
                for param in params {
                    if let paramName = param["name"]?.stringValue { names.insert(paramName) }
                }
            }
            result[name] = names
        }
        return result
    }

    /// The configured directory, else `proto-json/` in the working directory or in any parent of
    /// the executable's directory (a build tree or an installed layout).
    /// - Parameter fileName: a path relative to `proto-json/`.
    public static func locate(_ fileName: String, configured: String?) -> String? {
        var candidates: [URL] = []
        if let configured { candidates.append(URL(fileURLWithPath: configured)) }
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("proto-json"))
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<8 {
            candidates.append(directory.appendingPathComponent("proto-json"))
            directory = directory.deletingLastPathComponent()
        }
        return candidates.map { $0.appendingPathComponent(fileName).path }
            .first { FileManager.default.fileExists(atPath: $0) }
    }
}

public struct MissingContract: Error, CustomStringConvertible {
    let fileName: String

    public init(fileName: String) {
        self.fileName = fileName
    }

    public var description: String {
        "cannot find proto-json/\(fileName); set contracts.directory to the proto-json directory"
    }
}
