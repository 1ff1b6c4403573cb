import Foundation
import JSONRPC

/// How commands print: the API's JSON as it is (`--json`), or lines of text for a person.
enum Output {
    static func json(_ value: JSONValue) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        line(String(decoding: data, as: UTF8.self))
    }

    /// Columns padded to their widest cell; the first row is the header.
    static func table(_ rows: [[String]]) {
        guard let header = rows.first else { return }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            line(cells.joined(separator: "  "))
        }
    }

    /// One line on standard output, written at once (a pipe would otherwise hold it back).
    static func line(_ text: String) { write(text + "\n") }

    /// Writes to standard output. When the reader has gone (`mfa-admin users list | head -5`), the
    /// tool stops quietly with the status a shell gives a process ended by SIGPIPE, as `ls` does:
    /// the networking libraries ignore SIGPIPE, so the write fails with EPIPE instead, and
    /// Foundation's non-throwing `write(_:)` would end the process with a backtrace (issue 40, item 6).
    static func write(_ text: String) {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
        } catch {
            exit(128 + SIGPIPE)
        }
    }

    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)?: text
        case .int(let number)?: String(number)
        case .bool(let flag)?: String(flag)
        case .double(let number)?: String(number)
        case nil, .null?: ""
        case let other?: (try? String(decoding: JSONCoding.encode(other), as: UTF8.self)) ?? ""
        }
    }
}
