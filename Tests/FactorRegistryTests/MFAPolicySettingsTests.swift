import AuthVocabulary
import Contracts
import Foundation
import Testing

@testable import FactorRegistryApp

/// The MFA policy's settings as factor-registry stores them (docs/mfa-policy.md).
@Suite("MFA policy settings")
struct MFAPolicySettingsTests {
    func settings(_ state: String, grace: Int64? = nil, stepUp: Int64? = nil, since: Int64? = nil) -> AuthSettings {
        var settings = AuthSettings.projectDefaults
        settings.mfaConfig.state = MultiFactorState(rawValue: state)
        settings.mfaConfig.enrollmentGracePeriodSeconds = grace
        settings.mfaConfig.stepUpMaxAgeSeconds = stepUp
        settings.mfaConfig.mandatorySince = since
        return settings
    }

    @Test("mandatorySince is stamped when the state becomes MANDATORY, kept while it stays, cleared otherwise; a caller's is ignored")
    func mandatorySince() {
        let now = Date(timeIntervalSince1970: 2_000)
        let became = SettingsValidator.stampingMandatorySince(settings("MANDATORY", since: 5), previous: settings("ENABLED"), now: now)
        #expect(became.mfaConfig.mandatorySince == 2_000_000)
        let stayed = SettingsValidator.stampingMandatorySince(settings("MANDATORY", since: 5), previous: became, now: Date())
        #expect(stayed.mfaConfig.mandatorySince == 2_000_000)
        let left = SettingsValidator.stampingMandatorySince(settings("ENABLED", since: 5), previous: became, now: now)
        #expect(left.mfaConfig.mandatorySince == nil)
        let created = SettingsValidator.stampingMandatorySince(settings("MANDATORY"), previous: nil, now: now)
        #expect(created.mfaConfig.mandatorySince == 2_000_000)
    }

    @Test("grace periods of 0 s to 90 days and step-up ages of 1 minute to 1 day are stored; others refused")
    func ranges() throws {
        _ = try SettingsValidator.canonical(settings("MANDATORY", grace: 0, stepUp: 60))
        _ = try SettingsValidator.canonical(settings("MANDATORY", grace: 7_776_000, stepUp: 86_400))
        for (grace, stepUp) in [(-1, 600), (7_776_001, 600), (3_600, 59), (3_600, 86_401)] as [(Int64, Int64)] {
            #expect(throws: (any Error).self) { try SettingsValidator.canonical(settings("MANDATORY", grace: grace, stepUp: stepUp)) }
        }
    }
}
