import Contracts
import Testing

@testable import LocalizedMessages

@Suite("An operator's notification settings before they are stored")
struct NotificationValidationTests {
    static func refusal(_ config: NotificationConfig) -> String? {
        do {
            _ = try NotificationValidation.canonical(config)
            return nil
        } catch {
            return error.detail
        }
    }

    static func sms(_ content: String, locale: String? = nil) -> NotificationConfig {
        if let locale {
            return NotificationConfig(sendSms: SMSNotifications(localizedTemplates: [locale: SMSTemplate(content: content)]))
        }
        return NotificationConfig(sendSms: SMSNotifications(smsTemplate: SMSTemplate(content: content)))
    }

    @Test("an SMS template is refused for an unknown placeholder, a missing code, or more than two segments")
    func smsRules() throws {
        #expect(Self.refusal(Self.sms("{{code}} for {{app}}"))?.contains("unknown placeholder {{app}}") == true)
        #expect(Self.refusal(Self.sms("Your code is ready"))?.contains("must contain {{code}}") == true)
        #expect(Self.refusal(Self.sms("%LOGIN_CODE% is your code"))?.contains("%LOGIN_CODE%") == true)
        #expect(Self.refusal(Self.sms("{{code}} {{> partial}}"))?.contains("partials") == true)
        #expect(Self.refusal(Self.sms("{{code}} {{#appName}}"))?.contains("well-formed") == true)
        #expect(Self.refusal(Self.sms("{{code"))?.contains("closing") == true)
        let long = Self.refusal(Self.sms("{{code}} " + String(repeating: "码", count: 150), locale: "zh-Hans"))
        #expect(long?.hasPrefix("notification.sendSms.localizedTemplates.zh-Hans.content is 3 SMS segments long (UCS-2") == true)
        #expect(Self.refusal(Self.sms("{{code}} " + String(repeating: "a", count: 280))) == nil)
    }

    @Test("locale keys must be language tags, and come back in canonical case")
    func localeKeys() throws {
        #expect(Self.refusal(Self.sms("{{code}}", locale: "not a tag"))?.contains("BCP 47") == true)
        #expect(Self.refusal(NotificationConfig(defaultLocale: "???"))?.contains("defaultLocale") == true)
        let canonical = try NotificationValidation.canonical(
            NotificationConfig(
                defaultLocale: "PT_br", sendSms: SMSNotifications(localizedTemplates: ["zh_hant_tw": SMSTemplate(content: "{{code}}")]))
        )
        #expect(canonical.defaultLocale == "pt-BR")
        #expect(canonical.sendSms?.localizedTemplates?.keys.sorted() == ["zh-Hant-TW"])
    }

    @Test("an email template needs its link, its kind's placeholders only, and a one-line subject")
    func emailRules() {
        func refusal(_ template: EmailTemplate) -> String? {
            Self.refusal(NotificationConfig(sendEmail: EmailNotifications(templates: EmailTemplateSet(verifyEmailTemplate: template))))
        }
        #expect(refusal(EmailTemplate(body: "Click here")) == "notification.sendEmail.verifyEmailTemplate.body must contain {{link}}")
        #expect(refusal(EmailTemplate(body: "{{link}} {{newEmail}}"))?.contains("unknown placeholder {{newEmail}}") == true)
        #expect(refusal(EmailTemplate(subject: "Hi\r\nBcc: x@example.com"))?.contains("one line") == true)
        #expect(refusal(EmailTemplate(body: "{{link}}", bodyFormat: "MARKDOWN"))?.contains("bodyFormat") == true)
        #expect(refusal(EmailTemplate(subject: "Verify for {{appName}}", body: "<a href='{{link}}'>go</a>", bodyFormat: "HTML")) == nil)
    }
}
