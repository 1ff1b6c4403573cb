import AuthVocabulary
import Testing

@testable import LocalizedMessages

@Suite("The built-in texts")
struct BuiltInTextsTests {
    static let required = ["en", "zh-Hans", "zh-Hant", "id", "pt-BR", "pt-PT", "es", "es-419"]

    @Test("the promised languages are all there, each with every email")
    func languages() {
        #expect(BuiltInTexts.all.map(\.locale).sorted() == Self.required.sorted())
        for texts in BuiltInTexts.all {
            #expect(Set(texts.emails.keys) == Set(OOBRequestType.allCases), "\(texts.locale)")
        }
    }

    @Test(
        "each SMS shows the code, the app and the expiry, and fits one segment with a 6-digit code and a 12-character app name",
        arguments: BuiltInTexts.all.map(\.locale)
    )
    func sms(locale: String) throws {
        let texts = try #require(BuiltInTexts.texts(for: locale))
        for name in ["code", "appName", "expiry"] {
            #expect(NotificationValidation.mentions(name, in: texts.sms), "\(locale) lacks {{\(name)}}")
        }
        #expect(texts.minutes.other.contains("{{count}}"))
        #expect(texts.phoneFactor.contains("{{phoneEnding}}"))
        let rendered = MessageCatalog(nil).sms(locale: locale, code: "123456", appName: "Twelve chars", lifetime: .seconds(600))
        #expect(rendered.locale == locale)
        #expect(rendered.text.contains("123456") && rendered.text.contains("Twelve chars"))
        #expect(rendered.length.segments == 1, "\(locale): \(rendered.length)")
    }

    @Test("each email uses only its kind's placeholders and shows the link and the app", arguments: BuiltInTexts.all.map(\.locale))
    func emails(locale: String) throws {
        let texts = try #require(BuiltInTexts.texts(for: locale))
        for (kind, email) in texts.emails {
            let placeholders = MessagePlaceholders.email(kind)
            #expect(throws: Never.self, "\(locale) \(kind)") {
                _ = try MessageTemplate(email.subject, format: .text, placeholders: placeholders)
                _ = try MessageTemplate(email.body, format: .text, placeholders: placeholders)
            }
            #expect(NotificationValidation.mentions("link", in: email.body), "\(locale) \(kind)")
            #expect(NotificationValidation.mentions("appName", in: email.body), "\(locale) \(kind)")
        }
    }

    /// The same word twice in a row ("your your app account"), case-insensitively.
    static func doubledWord(in text: String) -> String? {
        let words = text.split(whereSeparator: { !$0.isLetter }).map { $0.lowercased() }
        return zip(words, words.dropFirst()).first(where: { $0 == $1 }).map(\.0)
    }

    @Test(
        "every SMS and email reads right with the operator's app name and without one (the project id), in every language",
        arguments: BuiltInTexts.all.map(\.locale)
    )
    func appNames(locale: String) throws {
        for configured in ["Acme Notes", nil] {
            let name = AppName.shown(configured: configured, projectId: "demo-project")
            let sms = MessageCatalog(nil).sms(locale: locale, code: "123456", appName: name, lifetime: .seconds(600))
            var texts = [("sms", sms.text)]
            for kind in OOBRequestType.allCases {
                let email = MessageCatalog(nil).email(
                    kind, locale: locale,
                    values: EmailValues(
                        appName: name, email: "ana@example.com", link: "https://example.com/l", newEmail: "new@example.com",
                        secondFactor: .phone(ending: "4567"), linkedPhoneEnding: "4567"
                    )
                )
                texts += [("\(kind) subject", email.subject), ("\(kind) body", email.text)]
            }
            for (what, text) in texts {
                #expect(text.contains(name), "\(locale) \(what) does not name the app")
                #expect(Self.doubledWord(in: text) == nil, "\(locale) \(what): \(text)")
                #expect(!text.contains("{{"), "\(locale) \(what) left a placeholder")
                #expect(!text.lowercased().contains("your app"), "\(locale) \(what) names the app with a phrase")
            }
        }
    }

    @Test("the app's name is the operator's when set, else the project's id")
    func appNameFallback() {
        #expect(AppName.shown(configured: "Acme", projectId: "p-1") == "Acme")
        #expect(AppName.shown(configured: nil, projectId: "p-1") == "p-1")
        #expect(AppName.shown(configured: "  ", projectId: "p-1") == "p-1")
    }
}
