/// `v2/projects/{p}[/tenants/{t}]/smsDefense:resume`, this server's own: SMS to a region the
/// anomaly brake paused may go again (`identitytoolkit/extensions.json`).
struct ResumeSMSRegionRequest: DiscoveryMessage {
    static let schema = "MfaResumeSmsRegionRequest"
    var region: String?
}
