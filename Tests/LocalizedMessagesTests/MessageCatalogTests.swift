import Contracts
import Testing

@testable import LocalizedMessages

@Suite("Which text a message is written in")
struct MessageCatalogTests {
    static func sms(_ config: NotificationConfig?, locale: String?) -> RenderedSMS {
        MessageCatalog(config).sms(locale: locale, code: "123456", appName: "Demo", lifetime: .seconds(300))
    }

    @Test("the client's language picks the built-in text, falling back by region to the written variant")
    func clientLanguage() {
        #expect(Self.sms(nil, locale: "zh-TW").locale == "zh-Hant")
        #expect(Self.sms(nil, locale: "zh").locale == "zh-Hans")
        #expect(Self.sms(nil, locale: "pt").locale == "pt-BR")
        #expect(Self.sms(nil, locale: "pt-PT").locale == "pt-PT")
        #expect(Self.sms(nil, locale: "es-AR").locale == "es-419")
        #expect(Self.sms(nil, locale: "es").locale == "es")
        #expect(Self.sms(nil, locale: "id-ID").locale == "id")
        #expect(
            Self.sms(nil, locale: nil).text == "123456 is your verification code for Demo. It expires in 5 minutes. Do not share this code."
        )
    }

    @Test("a language without texts falls to the scope's default language, then to English")
    func defaults() {
        #expect(Self.sms(NotificationConfig(defaultLocale: "es-419"), locale: "fr-FR").locale == "es-419")
        #expect(Self.sms(nil, locale: "fr-FR").locale == "en")
        #expect(Self.sms(nil, locale: "not a tag").locale == "en")
    }

    @Test("an operator's text wins in its language; the unlocalized one is the default language's")
    func operatorTexts() {
        let config = NotificationConfig(
            defaultLocale: "es",
            sendSms: SMSNotifications(
                smsTemplate: SMSTemplate(content: "{{appName}}: {{code}} ({{minutes}} min)"),
                localizedTemplates: ["pt_BR": SMSTemplate(content: "{{appName}}: seu PIN {{code}}")]
            )
        )
        #expect(Self.sms(config, locale: "pt-BR").text == "Demo: seu PIN 123456")
        #expect(Self.sms(config, locale: "pt").text == "Demo: seu PIN 123456")
        #expect(Self.sms(config, locale: nil).text == "Demo: 123456 (5 min)")
        // A more specific built-in language still wins over the operator's shorter tag.
        #expect(Self.sms(config, locale: "es-MX").locale == "es-419")
        #expect(Self.sms(config, locale: "zh-TW").locale == "zh-Hant")
    }

    @Test("useDeviceLocale false: the SMS is in the default language whatever the client asks")
    func deviceLocaleOff() {
        let config = NotificationConfig(defaultLocale: "id", sendSms: SMSNotifications(useDeviceLocale: false))
        #expect(Self.sms(config, locale: "zh-TW").locale == "id")
    }

    @Test("one minute is written in the singular")
    func singular() {
        let rendered = MessageCatalog(nil).sms(locale: "en", code: "123456", appName: "Demo", lifetime: .seconds(2))
        #expect(rendered.text.contains("It expires in 1 minute."))
    }

    @Test("an email template's body in HTML escapes its values, and goes with the built-in plain text as the alternative")
    func htmlEmail() {
        let config = NotificationConfig(
            sendEmail: EmailNotifications(
                localizedTemplates: [
                    "es": EmailTemplateSet(
                        resetPasswordTemplate: EmailTemplate(
                            body: "<p>{{email}}: <a href=\"{{link}}\">{{appName}}</a></p>", bodyFormat: "HTML")
                    )
                ]
            )
        )
        let email = MessageCatalog(config).email(
            .passwordReset, locale: "es-ES", values: EmailValues(appName: "A<b>", email: "x@example.com", link: "https://l/?a=1&b=2")
        )
        #expect(email.locale == "es")
        #expect(email.html == "<p>x@example.com: <a href=\"https://l/?a=1&amp;b=2\">A&lt;b&gt;</a></p>")
        #expect(email.text.contains("https://l/?a=1&b=2") && email.text.contains("A<b>"))
        #expect(email.subject == BuiltInTexts.spanish.emails[.passwordReset]?.subject.replacing("{{appName}}", with: "A<b>"))
    }

    @Test("the notice of a new factor names it in the email's language, by the number's last four digits")
    func secondFactorNotice() {
        let values = EmailValues(appName: "Demo", email: "x@example.com", link: "https://l", secondFactor: .phone(ending: "4567"))
        let english = MessageCatalog(nil).email(.revertSecondFactorAddition, locale: nil, values: values)
        #expect(english.text.contains("the phone number ending in 4567"))
        let chinese = MessageCatalog(nil).email(.revertSecondFactorAddition, locale: "zh-TW", values: values)
        #expect(chinese.locale == "zh-Hant" && chinese.text.contains("4567") && !chinese.text.contains("phone number"))
    }

    @Test("the notice of a new passkey calls it a passkey in every language, never an authenticator app")
    func passkeyNotice() {
        let values = EmailValues(appName: "Demo", email: "x@example.com", link: "https://l", secondFactor: .passkey)
        for texts in BuiltInTexts.all {
            let email = MessageCatalog(nil).email(.revertSecondFactorAddition, locale: texts.locale, values: values)
            #expect(email.text.contains(texts.passkeyFactor), "\(texts.locale)")
            #expect(!email.text.contains(texts.authenticatorFactor), "\(texts.locale)")
        }
        #expect(MessageCatalog(nil).email(.revertSecondFactorAddition, locale: nil, values: values).text.contains("with a passkey for"))
    }
}
