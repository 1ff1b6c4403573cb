/// The languages the product writes in without an operator's help. Adding one is adding a file
/// beside these and a line here; `BuiltInTextsTests` checks each against the rules (placeholders,
/// one SMS segment), and docs/operations.md lists their SMS lengths.
enum BuiltInTexts {
    static let all: [LocaleTexts] = [
        english, simplifiedChinese, traditionalChinese, indonesian, brazilianPortuguese, europeanPortuguese, spanish,
        latinAmericanSpanish,
    ]

    static let byTag: [String: LocaleTexts] = Dictionary(uniqueKeysWithValues: all.map { ($0.locale.lowercased(), $0) })

    static func texts(for tag: String) -> LocaleTexts? { byTag[tag.lowercased()] }
}
