import ChallengeIssuerApp
import ServiceKit

await ServiceMain.run(.challengeIssuer, build: ChallengeIssuerApp.build)
