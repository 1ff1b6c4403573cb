import ChallengeIssuerApp
import FactorRegistryApp
import GatewayApp
import ServiceKit
import SessionTokenApp

// The four services in one process (docs/architecture.md, "One process or four"): each keeps its
// listeners, pool, migrations and configuration, and the calls between them skip the network.
await ServiceMain.runTogether([
    (.factorRegistry, FactorRegistryApp.build),
    (.challengeIssuer, ChallengeIssuerApp.build),
    (.sessionToken, SessionTokenApp.build),
    (.gateway, GatewayApp.build),
])
