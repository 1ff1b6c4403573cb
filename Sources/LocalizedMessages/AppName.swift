/// The name a message gives the app. Every built-in text uses it as a proper noun ("Your {{appName}}
/// team", "your {{appName}} account"), so the name when the operator configured none must be one:
/// the project's id, as Firebase's templates show a project without a public-facing name by its id.
/// A phrase such as "your app" would read "your your app account", and English in every language.
public enum AppName {
    public static func shown(configured: String?, projectId: String) -> String {
        guard let configured, !configured.allSatisfy(\.isWhitespace) else { return projectId }
        return configured
    }
}
