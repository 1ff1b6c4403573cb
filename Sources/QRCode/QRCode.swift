import CQRencode

/// A QR code symbol: the square of dark and light modules an authenticator app scans. Encoded by
/// libqrencode (error correction level M, byte mode, the smallest version that fits), so the
/// symbol follows ISO/IEC 18004 without us implementing Reed–Solomon; drawn here as SVG for a
/// page and as half-block characters for a terminal.
public struct QRCode: Sendable, Equatable {
    /// Modules per side, without the quiet zone.
    public let size: Int
    /// Row-major: `modules[y * size + x]` is dark.
    public let modules: [Bool]

    /// The light margin, in modules, that scanners need around the symbol (the standard's four).
    public static let quietZone = 4

    /// `nil` when the text does not fit a QR code (about 2,300 bytes at level M) or has a NUL byte.
    public init?(encoding text: String) {
        guard !text.utf8.contains(0) else { return nil }
        guard let symbol = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        // Bit 0 of each byte is the module's colour; the other bits say what kind of module it is.
        let buffer = UnsafeBufferPointer(start: symbol.pointee.data, count: width * width)
        size = width
        modules = buffer.map { $0 & 1 == 1 }
    }

    /// Whether the module at column `x`, row `y` is dark; outside the symbol (the quiet zone) is light.
    public func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }
}
