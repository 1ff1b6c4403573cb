import Testing

@testable import LocalizedMessages

@Suite("A language tag and the languages tried for it")
struct MessageLocaleTests {
    @Test("tags come back in canonical case; a header's list gives its first; malformed text is no tag")
    func parsing() {
        #expect(MessageLocale("ZH-hant-tw")?.tag == "zh-Hant-TW")
        #expect(MessageLocale("pt_br")?.tag == "pt-BR")
        #expect(MessageLocale("es-419")?.tag == "es-419")
        #expect(MessageLocale("es-MX,es;q=0.9,en;q=0.8")?.tag == "es-MX")
        for bad in ["", "e", "english-language", "zh-", "<script>", "12", String(repeating: "a-", count: 30) + "b"] {
            #expect(MessageLocale(bad) == nil, "\(bad)")
        }
    }

    @Test("regions choose the written variant: zh-TW is Traditional, pt is Brazilian, es-MX Latin American, in Indonesian")
    func fallbacks() {
        #expect(MessageLocale("zh-TW")?.fallbacks == ["zh-TW", "zh-Hant", "zh", "zh-Hans"])
        #expect(MessageLocale("zh-HK")?.fallbacks.prefix(2) == ["zh-HK", "zh-Hant"])
        #expect(MessageLocale("zh-CN")?.fallbacks == ["zh-CN", "zh-Hans", "zh"])
        #expect(MessageLocale("zh-Hant-HK")?.fallbacks == ["zh-Hant-HK", "zh-Hant", "zh", "zh-Hans"])
        #expect(MessageLocale("pt")?.fallbacks == ["pt", "pt-BR"])
        #expect(MessageLocale("pt-PT")?.fallbacks == ["pt-PT", "pt", "pt-BR"])
        #expect(MessageLocale("pt-AO")?.fallbacks == ["pt-AO", "pt-PT", "pt", "pt-BR"])
        #expect(MessageLocale("es-MX")?.fallbacks == ["es-MX", "es-419", "es"])
        #expect(MessageLocale("es-ES")?.fallbacks == ["es-ES", "es"])
        #expect(MessageLocale("in")?.fallbacks == ["in", "id"])
    }
}
