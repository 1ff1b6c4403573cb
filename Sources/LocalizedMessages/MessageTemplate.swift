import Foundation
import Mustache

/// A Mustache template limited to the values its message has: plain names, sections and inverted
/// sections over them, comments. Partials, blocks, delimiter changes and pragmas are refused, so a
/// template can read nothing but its own values, and in an HTML body every value is escaped.
struct MessageTemplate: Sendable {
    enum Format: Sendable {
        case text
        case html
    }

    /// Why a template was refused, in words an operator can act on.
    struct Refusal: Error, Sendable {
        let reason: String
    }

    let mustache: MustacheTemplate

    init(_ source: String, format: Format, placeholders: Set<String>) throws(Refusal) {
        if let legacy = Self.identityPlatformPlaceholder(in: source) {
            throw Refusal(reason: "uses \(legacy); write Mustache placeholders such as {{appName}}")
        }
        guard let tags = Self.tags(in: source) else { throw Refusal(reason: "has a {{ without its closing }}") }
        for tag in tags {
            guard let sigil = tag.first else { throw Refusal(reason: "has an empty {{}} tag") }
            if sigil == "!" { continue }
            if "><$=%".contains(sigil) {
                throw Refusal(reason: "uses {{\(sigil)…}}: partials, blocks, delimiter changes and pragmas are not allowed")
            }
            let name = ("#^/&{".contains(sigil) ? tag.dropFirst() : tag[...]).trimmingCharacters(in: .whitespaces)
            guard placeholders.contains(name) else {
                let known = placeholders.sorted().map { "{{\($0)}}" }.joined(separator: ", ")
                throw Refusal(reason: "has an unknown placeholder {{\(name)}} (known: \(known))")
            }
        }
        let pragma = format == .html ? "{{% CONTENT_TYPE: HTML}}" : "{{% CONTENT_TYPE: TEXT}}"
        do {
            mustache = try MustacheTemplate(string: pragma + source)
        } catch {
            throw Refusal(reason: "is not a well-formed Mustache template (\(error))")
        }
    }

    func render(_ values: [String: String]) -> String {
        mustache.render(values)
    }

    /// The inside of every `{{…}}` tag (a `{{{…}}}` one as `&…`); `nil` when one is not closed.
    static func tags(in source: String) -> [String]? {
        var found: [String] = []
        var rest = source[...]
        while let open = rest.range(of: "{{") {
            let triple = rest[open.upperBound...].hasPrefix("{")
            let close = triple ? "}}}" : "}}"
            let start = triple ? rest.index(after: open.upperBound) : open.upperBound
            guard let end = rest[start...].range(of: close) else { return nil }
            found.append(triple ? "&" + rest[start..<end.lowerBound] : String(rest[start..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// `%LINK%`, `%APP_NAME%`, …: the placeholders of Identity Platform's console templates.
    static func identityPlatformPlaceholder(in source: String) -> String? {
        for name in ["%LOGIN_CODE%", "%APP_NAME%", "%LINK%", "%EMAIL%", "%NEW_EMAIL%", "%SECOND_FACTOR%", "%DISPLAY_NAME%"]
        where source.contains(name) {
            return name
        }
        return nil
    }
}
