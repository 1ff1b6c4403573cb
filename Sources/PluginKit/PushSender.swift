/// Delivers a silent (background) push to one device, for iOS app verification: the push carries a
/// secret only the real app, on a real device registered with APNs, can read.
public protocol PushSender: Sendable {
    var name: String { get }
    /// `payload` is the JSON body of the push; `sandbox` picks the development APNs environment;
    /// `topic` is the app's bundle id (`nil`: the sender's configured one).
    func sendSilentPush(deviceToken: String, sandbox: Bool, topic: String?, payload: [UInt8]) async throws
}
