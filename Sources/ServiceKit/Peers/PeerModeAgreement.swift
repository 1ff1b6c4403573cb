import Contracts
import JSONRPC
import Logging
import ServiceTransport

/// Decision 16 at start-up: a service whose peers already run in another deployment mode refuses to
/// start, with the peer and both modes named. Peers that do not answer yet are no verdict (services
/// start in any order); from then on every call states its mode and a call across modes is refused
/// on both sides (``RPCEndpoint``, ``RPCClient``), so a service started first is protected too.
struct PeerModeAgreement {
    let clients: [RPCClient]
    let mode: DeploymentMode
    /// How long start-up waits for peers' answers.
    static let budget: Duration = .seconds(3)

    func verify(logger: Logger) async throws {
        let mismatches = await withTaskGroup(of: (ServiceName, String)?.self) { group in
            for client in clients {
                group.addTask {
                    let answer = await RPCClient.result(within: Self.budget) { () -> String? in
                        do {
                            _ = try await client.call(Ping.self, RPCEmpty())
                            return nil
                        } catch let error as RPCTransportError {
                            return error.peerMode
                        } catch {
                            return nil
                        }
                    }
                    return (answer ?? nil).map { (client.peer, $0) }
                }
            }
            var found: [(ServiceName, String)] = []
            for await mismatch in group { if let mismatch { found.append(mismatch) } }
            return found
        }
        guard let (peer, peerMode) = mismatches.first else { return }
        throw InvalidSetting(
            key: "mode",
            reason: "this service runs in \(mode.rawValue) mode but \(peer.rawValue) runs in \(peerMode) mode; "
                + "every service of a deployment must run in the same mode"
        )
    }
}
