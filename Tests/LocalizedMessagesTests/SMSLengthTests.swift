import Testing

@testable import LocalizedMessages

@Suite("How long a text is as an SMS")
struct SMSLengthTests {
    @Test("GSM-7 up to 160 septets is one segment, then 153 per segment; the extension table counts twice")
    func gsm7() {
        let full = SMSLength(of: String(repeating: "a", count: 160))
        #expect(full.encoding == .gsm7 && full.units == 160 && full.segments == 1)
        #expect(SMSLength(of: String(repeating: "a", count: 161)).segments == 2)
        #expect(SMSLength(of: String(repeating: "a", count: 307)).segments == 3)
        #expect(SMSLength(of: "{code}").units == 8)
        #expect(SMSLength(of: "clave válida").encoding == .ucs2)
        #expect(SMSLength(of: "é ñ ü à Ç").encoding == .gsm7)
    }

    @Test("anything outside GSM-7 is UCS-2: 70 UTF-16 units in one segment, then 67 per segment")
    func ucs2() {
        let full = SMSLength(of: String(repeating: "码", count: 70))
        #expect(full.encoding == .ucs2 && full.units == 70 && full.segments == 1)
        #expect(SMSLength(of: String(repeating: "码", count: 71)).segments == 2)
        #expect(SMSLength(of: "não").encoding == .ucs2)
        #expect(SMSLength(of: "😀").units == 2)
    }
}
