import Contracts
import Foundation
import JSONRPC
import Testing

@Suite("Contracts match proto-json")
struct ContractParityTests {
    @Test("every method a service registers is in its OpenRPC document, and nothing more", arguments: ContractFiles.services.map(\.name))
    func methodParity(service: String) throws {
        let declared = Set(ContractFiles.services.first { $0.name == service }!.methods.map { $0.name })
        #expect(declared == (try ContractFiles.methodNames(service)))
    }

    /// The markers a typed peer client checks at compile time (`PeerClient<FactorRegistryAPI>` takes
    /// `FactorRegistryMethod`s only) say exactly what each service's list, held to its OpenRPC
    /// document above, says it serves: a method marked for a service that does not serve it would
    /// compile into a call that fails at run time.
    @Test("each method is marked with exactly the data services that serve it")
    func servedMarkers() {
        let apis: [(String, [any RPCMethod.Type], (any RPCMethod.Type) -> Bool)] = [
            (FactorRegistryAPI.service, FactorRegistryAPI.allMethods, { $0 is any FactorRegistryMethod.Type }),
            (ChallengeIssuerAPI.service, ChallengeIssuerAPI.allMethods, { $0 is any ChallengeIssuerMethod.Type }),
            (SessionTokenAPI.service, SessionTokenAPI.allMethods, { $0 is any SessionTokenMethod.Type }),
        ]
        let every = apis.flatMap(\.1)
        #expect(every.count > 80)
        for (service, served, marked) in apis {
            let names = Set(served.map { $0.name })
            for method in every {
                #expect(marked(method) == names.contains(method.name), "\(method.name) and \(service)")
            }
        }
    }

    @Test("every documented method uses by-name params and has at least one example", arguments: ContractFiles.services.map(\.name))
    func methodsAreComplete(service: String) throws {
        guard case .array(let methods)? = try ContractFiles.document(service)["methods"] else {
            Issue.record("no methods in \(service)")
            return
        }
        let exampleMethods = Set(try ContractFiles.examples().map(\.method))
        for method in methods {
            let name = method["name"]?.stringValue ?? "?"
            #expect(method["paramStructure"] == "by-name", "\(name)")
            #expect(method["summary"]?.stringValue?.isEmpty == false, "\(name)")
            #expect(exampleMethods.contains(name), "\(name) has no example")
        }
    }

    @Test(
        "every service declares the request object's context member, with exactly the members the dispatcher takes",
        arguments: ContractFiles.services.map(\.name)
    )
    func requestContextIsDeclared(service: String) throws {
        let declared = try ContractFiles.document(service)["x-request-context"]?["schema"]?["$ref"]?.stringValue
        #expect(declared == "common.schema.json#/definitions/RequestContext")
        let common = try JSONCoding.parse(Data(contentsOf: ContractFiles.directory.appendingPathComponent("common.schema.json")))
        guard case .object(let members)? = common["definitions"]?["RequestContext"]?["properties"] else {
            Issue.record("common.schema.json has no RequestContext")
            return
        }
        #expect(Set(members.keys) == RPCRequestContext.memberNames)
        guard case .object(let origin)? = members["origin"]?["properties"] else {
            Issue.record("RequestContext has no origin")
            return
        }
        // The origin's members are RequestOrigin's coding keys.
        let encoded = try JSONCoding.parse(JSONCoding.encode(RequestOrigin(clientAddress: "a", userAgent: "u", actor: "user")))
        guard case .object(let originMembers) = encoded else { return }
        #expect(Set(origin.keys) == Set(originMembers.keys))
    }

    @Test("every example decodes into the Swift types and re-encodes to the same JSON", arguments: try ContractFiles.examples())
    func exampleRoundTrip(example: ContractFiles.Example) throws {
        let file = try JSONCoding.parse(Data(contentsOf: example.url))
        let method = try #require(
            ContractFiles.services.flatMap(\.methods).first { $0.name == example.method },
            "no Swift type for \(example.method)"
        )
        let request = try #require(file["request"])
        let response = try #require(file["response"])
        #expect(request["method"]?.stringValue == example.method)
        let params = request["params"] ?? .object([:])
        #expect(try Self.roundTrip(method.paramsType, params) == params)
        if let result = response["result"] {
            #expect(try Self.roundTrip(method.resultType, result) == result)
        } else {
            let error = try #require(response["error"])
            #expect(try Self.roundTrip(RPCError.self, error) == error)
        }
        // The whole response is a valid envelope.
        _ = try JSONCoding.decode(RPCResponseEnvelope.self, from: response)
    }

    @Test("application error codes in errors.json sit inside their declared ranges")
    func errorRanges() throws {
        let catalogue = try JSONCoding.parse(Data(contentsOf: ContractFiles.directory.appendingPathComponent("errors.json")))
        guard case .array(let ranges)? = catalogue["ranges"] else {
            Issue.record("no ranges")
            return
        }
        for range in ranges {
            guard case .array(let bounds)? = range["range"], case .int(let low) = bounds[0], case .int(let high) = bounds[1],
                case .array(let codes)? = range["codes"]
            else {
                Issue.record("malformed range")
                continue
            }
            for code in codes {
                guard case .int(let value)? = code["code"] else { continue }
                #expect((low...high).contains(value), "\(value) outside \(low)...\(high)")
            }
        }
        #expect(RPCErrorCode.tenantNotFound.rawValue == 1000)
        #expect(RPCErrorCode.invalidTenantScope.rawValue == 900)
    }

    static func roundTrip<T: Codable>(_ type: T.Type, _ value: JSONValue) throws -> JSONValue {
        try JSONCoding.value(of: try JSONCoding.decode(T.self, from: value))
    }
}

extension RPCMethod {
    static var paramsType: Params.Type { Params.self }
    static var resultType: Result.Type { Result.self }
}
