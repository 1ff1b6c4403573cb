import Contracts
import Foundation

/// `AuthSettings` as stored in the `settings` jsonb columns.
enum SettingsJSON {
    static func encode(_ settings: AuthSettings) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(settings), as: UTF8.self)
    }

    /// `nil` for NULL (the defaults apply) or for a document this version cannot read.
    static func decode(_ text: String?) -> AuthSettings? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(AuthSettings.self, from: Data(text.utf8))
    }
}
