/// Which of the gateway's API listeners a request came in on: it decides whether an admin
/// credential counts (``AdminListenerSettings``).
enum ListenerRole: Sendable {
    /// The public listeners (plain and TLS): what apps and the internet reach.
    case `public`
    /// The admin listener on the private network, when one is configured.
    case admin
}
