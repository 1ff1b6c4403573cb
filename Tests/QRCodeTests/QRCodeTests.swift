import Foundation
import QRCode
import Testing

@Suite struct QRCodeTests {
    let address =
        "otpauth://totp/mfa-backend%20demo-project:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=mfa-backend%20demo-project&algorithm=SHA1&digits=6&period=30"

    @Test func anEnrollmentAddressFitsASymbolOfAStandardSize() throws {
        let symbol = try #require(QRCode(encoding: address))
        // Version v has 17 + 4v modules a side; an address of this length needs about version 8 at level M.
        #expect((symbol.size - 17) % 4 == 0)
        #expect((5...12).contains((symbol.size - 17) / 4))
        #expect(symbol.modules.count == symbol.size * symbol.size)
    }

    @Test func theThreeFinderPatternsSitInTheirCorners() throws {
        let symbol = try #require(QRCode(encoding: address))
        for (left, top) in [(0, 0), (symbol.size - 7, 0), (0, symbol.size - 7)] {
            // A dark 7×7 ring, a light ring inside it, and a dark 3×3 centre.
            for offset in 0..<7 {
                #expect(symbol.isDark(x: left + offset, y: top))
                #expect(symbol.isDark(x: left + offset, y: top + 6))
                #expect(symbol.isDark(x: left, y: top + offset))
                #expect(symbol.isDark(x: left + 6, y: top + offset))
            }
            #expect(!symbol.isDark(x: left + 1, y: top + 1))
            #expect(symbol.isDark(x: left + 3, y: top + 3))
        }
    }

    @Test func theQuietZoneIsLight() throws {
        let symbol = try #require(QRCode(encoding: "otpauth://totp/x?secret=AAAA"))
        #expect(!symbol.isDark(x: -1, y: 0))
        #expect(!symbol.isDark(x: symbol.size, y: symbol.size))
    }

    @Test func theSVGDrawsEveryDarkModuleOnce() throws {
        let symbol = try #require(QRCode(encoding: address))
        let svg = symbol.svg()
        let squares = svg.components(separatedBy: "h1v1h-1z").count - 1
        #expect(squares == symbol.modules.filter { $0 }.count)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
    }

    @Test func theTerminalTextStacksTwoRowsPerLine() throws {
        let symbol = try #require(QRCode(encoding: address))
        let lines = symbol.terminalText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let side = symbol.size + 2 * QRCode.quietZone
        #expect(lines.count == (side + 1) / 2)
        #expect(lines.allSatisfy { $0.count == side })
    }

    @Test func textWithANulByteOrTooLongIsRefused() {
        #expect(QRCode(encoding: "a\u{0}b") == nil)
        #expect(QRCode(encoding: String(repeating: "x", count: 5000)) == nil)
    }
}
