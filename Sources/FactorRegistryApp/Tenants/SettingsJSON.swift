import Contracts
import Foundation
import Synchronization

/// `AuthSettings` as stored in the `settings` jsonb columns.
enum SettingsJSON {
    static func encode(_ settings: AuthSettings) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(settings), as: UTF8.self)
    }

    /// `nil` for NULL (the defaults apply) or for a document this version cannot read.
    ///
    /// Every client request reads its scope's settings, and they rarely change: documents already
    /// decoded are kept by their exact text (the same text always decodes to the same settings, so
    /// nothing can go stale), up to ``cacheLimit`` of them.
    static func decode(_ text: String?) -> AuthSettings? {
        guard let text else { return nil }
        if let known = decoded.withLock({ $0[text] }) { return known }
        guard let settings = try? JSONDecoder().decode(AuthSettings.self, from: Data(text.utf8)) else { return nil }
        decoded.withLock { cache in
            if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[text] = settings
        }
        return settings
    }

    static let cacheLimit = 1024
    private static let decoded = Mutex<[String: AuthSettings]>([:])
}
