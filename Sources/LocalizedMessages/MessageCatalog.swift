import AuthVocabulary
import Contracts
import Foundation

/// Chooses and renders the text of each message a scope sends: the client's language when there are
/// texts in it, else the scope's default language, else English. At each language, from the most
/// specific tag to the shortest, an operator's template wins over the built-in text of that same
/// language; a more specific built-in text wins over a shorter tag's template (an operator's `es`
/// text does not hide the built-in `es-419` from a client in Mexico).
public struct MessageCatalog: Sendable {
    let defaultTag: String
    let useDeviceLocale: Bool
    /// Operators' texts by lowercased canonical tag; the unlocalized ones under the default tag.
    let smsTemplates: [String: String]
    let emailTemplates: [String: EmailTemplateSet]

    public init(_ notification: NotificationConfig?) {
        let defaultTag = notification?.defaultLocale.flatMap(MessageLocale.init)?.tag ?? "en"
        self.defaultTag = defaultTag
        useDeviceLocale = notification?.sendSms?.useDeviceLocale ?? true
        var sms: [String: String] = [:]
        for (key, template) in notification?.sendSms?.localizedTemplates ?? [:] {
            if let tag = MessageLocale(key)?.tag { sms[tag.lowercased()] = template.content }
        }
        if let content = notification?.sendSms?.smsTemplate?.content { sms[defaultTag.lowercased()] = content }
        smsTemplates = sms
        var emails: [String: EmailTemplateSet] = [:]
        for (key, set) in notification?.sendEmail?.localizedTemplates ?? [:] {
            if let tag = MessageLocale(key)?.tag { emails[tag.lowercased()] = set }
        }
        if let set = notification?.sendEmail?.templates { emails[defaultTag.lowercased()] = set }
        emailTemplates = emails
    }

    /// The tags to try, most specific first; `requested` is the client's (`X-Firebase-Locale`).
    func languages(requested: String?, deviceLocale: Bool = true) -> [String] {
        var chain: [String] = []
        let requestedTags = deviceLocale ? (requested.flatMap(MessageLocale.init)?.fallbacks ?? []) : []
        for tag in requestedTags + (MessageLocale(defaultTag)?.fallbacks ?? []) + ["en"] where !chain.contains(tag) {
            chain.append(tag)
        }
        return chain
    }

    /// The built-in texts nearest to `tag` along `chain` (for the words of values: "10 minutes").
    static func nearestBuiltIn(from tag: String, in chain: [String]) -> LocaleTexts {
        let start = chain.firstIndex(of: tag) ?? chain.startIndex
        return chain[start...].lazy.compactMap(BuiltInTexts.texts(for:)).first ?? BuiltInTexts.english
    }

    // MARK: SMS

    public func sms(locale requested: String?, code: String, appName: String, lifetime: Duration) -> RenderedSMS {
        let chain = languages(requested: requested, deviceLocale: useDeviceLocale)
        let minutes = max(1, Int((lifetime.components.seconds + 59) / 60))
        for tag in chain {
            let source = smsTemplates[tag.lowercased()] ?? BuiltInTexts.texts(for: tag)?.sms
            guard let source, let template = try? MessageTemplate(source, format: .text, placeholders: MessagePlaceholders.sms)
            else { continue }
            let words = Self.nearestBuiltIn(from: tag, in: chain).minutes
            let expiry = minutes == 1 ? words.one : words.other.replacingCount(with: minutes)
            let text = template.render(["code": code, "appName": appName, "expiry": expiry, "minutes": String(minutes)])
            return RenderedSMS(text: text, locale: tag, length: SMSLength(of: text))
        }
        let text = "\(code) is your verification code for \(appName)."
        return RenderedSMS(text: text, locale: "en", length: SMSLength(of: text))
    }

    // MARK: email

    public func email(_ kind: OOBRequestType, locale requested: String?, values: EmailValues) -> RenderedEmail {
        let chain = languages(requested: requested)
        let placeholders = MessagePlaceholders.email(kind)
        var subject: (text: String, tag: String)?
        var body: (text: String, html: Bool, tag: String)?
        for tag in chain where subject == nil || body == nil {
            let custom = emailTemplates[tag.lowercased()]?.template(for: kind)
            let builtIn = BuiltInTexts.texts(for: tag)?.emails[kind]
            if subject == nil, let source = custom?.subject ?? builtIn?.subject {
                subject = (source, tag)
            }
            if body == nil, let custom, let source = custom.body {
                body = (source, custom.isHTML, tag)
            } else if body == nil, let source = builtIn?.body {
                body = (source, false, tag)
            }
        }
        let bodyTag = body?.tag ?? "en"
        let rendered = values.rendered(words: Self.nearestBuiltIn(from: bodyTag, in: chain))
        func render(_ source: String?, _ format: MessageTemplate.Format, fallback: String) -> String {
            guard let source, let template = try? MessageTemplate(source, format: format, placeholders: placeholders) else {
                return fallback
            }
            return template.render(rendered)
        }
        let plain = Self.nearestBuiltIn(from: bodyTag, in: chain).emails[kind] ?? BuiltInTexts.english.emails[kind]
        let plainText = render(plain?.body, .text, fallback: values.link)
        let subjectText = render(subject?.text, .text, fallback: values.appName)
        if let body, body.html {
            // An HTML template goes with the built-in plain text of its language as the alternative.
            return RenderedEmail(
                subject: subjectText, text: plainText, html: render(body.text, .html, fallback: values.link), locale: bodyTag)
        }
        return RenderedEmail(subject: subjectText, text: render(body?.text, .text, fallback: plainText), html: nil, locale: bodyTag)
    }
}

/// An SMS ready to send: its text, the language it is in, and how it travels.
public struct RenderedSMS: Sendable, Hashable {
    public let text: String
    public let locale: String
    public let length: SMSLength
}

public struct RenderedEmail: Sendable, Hashable {
    public let subject: String
    public let text: String
    /// Present when the operator's template is HTML; `text` is then the alternative part.
    public let html: String?
    public let locale: String
}

/// What an email's template can say.
public struct EmailValues: Sendable {
    public var appName: String
    /// The recipient.
    public var email: String
    public var link: String
    public var newEmail: String?
    /// The new factor of a notice: a phone number's last four digits, an authenticator app, a passkey.
    public var secondFactor: NewSecondFactor?
    /// The last four digits of a phone number linked as a way to sign in (never the whole number).
    public var linkedPhoneEnding: String?

    public init(
        appName: String, email: String, link: String, newEmail: String? = nil, secondFactor: NewSecondFactor? = nil,
        linkedPhoneEnding: String? = nil
    ) {
        self.appName = appName
        self.email = email
        self.link = link
        self.newEmail = newEmail
        self.secondFactor = secondFactor
        self.linkedPhoneEnding = linkedPhoneEnding
    }

    func rendered(words: LocaleTexts) -> [String: String] {
        var values = ["appName": appName, "email": email, "link": link]
        if let newEmail { values["newEmail"] = newEmail }
        if let secondFactor {
            values["secondFactor"] =
                switch secondFactor.kind {
                case .phone: words.phoneFactor.replacingOccurrences(of: "{{phoneEnding}}", with: secondFactor.phoneEnding ?? "")
                case .passkey: words.passkeyFactor
                case .totp, .recoveryCode: words.authenticatorFactor
                }
        }
        if let linkedPhoneEnding {
            values["phoneNumber"] = words.phoneFactor.replacingOccurrences(of: "{{phoneEnding}}", with: linkedPhoneEnding)
        }
        return values
    }
}

extension String {
    fileprivate func replacingCount(with count: Int) -> String {
        replacingOccurrences(of: "{{count}}", with: String(count))
    }
}
