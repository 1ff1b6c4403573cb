import Contracts
import Foundation
import JSONRPC
import Testing

/// Reads `proto-json/` from the package root.
enum ContractFiles {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("proto-json")

    static func document(_ service: String) throws -> JSONValue {
        try JSONCoding.parse(Data(contentsOf: directory.appendingPathComponent("\(service).openrpc.json")))
    }

    static func methodNames(_ service: String) throws -> Set<String> {
        guard case .array(let methods)? = try document(service)["methods"] else { return [] }
        return Set(methods.compactMap { $0["name"]?.stringValue })
    }

    /// Every `examples/<method>/<case>.json`, as (method, case, file).
    static func examples() throws -> [Example] {
        let root = directory.appendingPathComponent("examples")
        let files = FileManager.default
        var result: [Example] = []
        for method in try files.contentsOfDirectory(atPath: root.path).sorted() {
            let folder = root.appendingPathComponent(method)
            for file in try files.contentsOfDirectory(atPath: folder.path).sorted() where file.hasSuffix(".json") {
                result.append(Example(method: method, name: String(file.dropLast(5)), url: folder.appendingPathComponent(file)))
            }
        }
        return result
    }

    struct Example: CustomTestStringConvertible, Sendable {
        let method: String
        let name: String
        let url: URL
        var testDescription: String { "\(method)/\(name)" }
    }

    static let services: [(name: String, methods: [any RPCMethod.Type])] = [
        (FactorRegistryAPI.service, FactorRegistryAPI.allMethods),
        (ChallengeIssuerAPI.service, ChallengeIssuerAPI.allMethods),
        (SessionTokenAPI.service, SessionTokenAPI.allMethods),
        (GatewayAPI.service, GatewayAPI.allMethods),
    ]
}
