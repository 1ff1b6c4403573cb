import Foundation

/// A BCP 47 language tag, as a client sends it (`X-Firebase-Locale`) or an operator writes it, in
/// canonical case (`zh-Hant-TW`, `pt-BR`), and the languages to try for it, most specific first.
public struct MessageLocale: Sendable, Hashable, CustomStringConvertible {
    public let tag: String
    let subtags: [String]

    /// `nil` for text that is not a well-formed tag. A header's list (`es-MX,es;q=0.9`) gives its first.
    public init?(_ text: String) {
        let first = text.split(separator: ",", maxSplits: 1).first.map { $0.split(separator: ";").first ?? "" } ?? ""
        let trimmed = first.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-")
        guard !trimmed.isEmpty, trimmed.utf8.count <= 35 else { return nil }
        let parts = trimmed.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }),
            parts.dropFirst().allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else { return nil }
        subtags = parts.enumerated().map { index, part in
            if index == 0 { return part.lowercased() }
            if part.count == 4, part.allSatisfy(\.isLetter) { return part.prefix(1).uppercased() + part.dropFirst().lowercased() }
            if part.count == 2 || (part.count == 3 && part.allSatisfy(\.isNumber)) { return part.uppercased() }
            return part.lowercased()
        }
        tag = subtags.joined(separator: "-")
    }

    public var description: String { tag }

    /// The tag, then each shorter tag (dropping subtags from the end), each followed by the tag it
    /// means here: `zh-TW` is written in Traditional Chinese (`zh-Hant`), `pt` is Brazilian
    /// Portuguese, `es-MX` is Latin American Spanish (`es-419`), `in` is Indonesian.
    public var fallbacks: [String] {
        var result: [String] = []
        for length in stride(from: subtags.count, through: 1, by: -1) {
            let shorter = subtags.prefix(length).joined(separator: "-")
            for candidate in [shorter] + Self.meaning(of: Array(subtags.prefix(length))) where !result.contains(candidate) {
                result.append(candidate)
            }
        }
        return result
    }

    static let traditionalChineseRegions: Set<String> = ["TW", "HK", "MO"]
    static let europeanPortugueseRegions: Set<String> = ["PT", "AO", "MZ", "CV", "GW", "ST", "TL", "MO", "CH", "LU", "GQ"]
    /// Spanish outside Spain and Equatorial Guinea: Latin America, the Caribbean and the United States.
    static let latinAmericanSpanishRegions: Set<String> = [
        "419", "MX", "GT", "SV", "HN", "NI", "CR", "PA", "CU", "DO", "PR", "CO", "VE", "EC", "PE", "BO", "CL", "AR", "UY", "PY",
        "US", "BZ",
    ]

    static func meaning(of subtags: [String]) -> [String] {
        guard let language = subtags.first else { return [] }
        let region = subtags.dropFirst().first { $0.count == 2 || $0.count == 3 && $0.allSatisfy(\.isNumber) }
        let script = subtags.dropFirst().first { $0.count == 4 }
        switch language {
        case "zh":
            if let script { return ["zh-\(script)"] }
            return [region.map(traditionalChineseRegions.contains) == true ? "zh-Hant" : "zh-Hans"]
        case "pt":
            return [region.map(europeanPortugueseRegions.contains) == true ? "pt-PT" : "pt-BR"]
        case "es":
            return region.map(latinAmericanSpanishRegions.contains) == true ? ["es-419"] : []
        case "in":
            return ["id"]
        default:
            return []
        }
    }
}
