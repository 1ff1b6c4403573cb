extension QRCode {
    /// The symbol as text for a terminal: each character is two modules stacked (upper and lower
    /// half blocks), dark modules drawn as spaces on a light ground so it scans on dark and light
    /// terminal themes alike, quiet zone included. Lines end with "\n".
    public var terminalText: String {
        let zone = Self.quietZone
        let range = -zone..<(size + zone)
        var text = ""
        var y = -zone
        while y < size + zone {
            for x in range {
                // Light is drawn, dark is left blank: "█" both light, "▀" only the upper, "▄" only the lower.
                switch (isDark(x: x, y: y), isDark(x: x, y: y + 1)) {
                case (false, false): text += "█"
                case (false, true): text += "▀"
                case (true, false): text += "▄"
                case (true, true): text += " "
                }
            }
            text += "\n"
            y += 2
        }
        return text
    }
}
