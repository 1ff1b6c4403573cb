extension QRCode {
    /// An SVG image: one path of unit squares on a white square, quiet zone included, scaled by the
    /// page (`width`/`height` in CSS pixels). Crisp edges, so no scaler blurs the modules together.
    public func svg(pixelsPerModule: Int = 6) -> String {
        let side = size + 2 * Self.quietZone
        var path = ""
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) {
                path += "M\(x + Self.quietZone) \(y + Self.quietZone)h1v1h-1z"
            }
        }
        let pixels = side * pixelsPerModule
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(pixels)" height="\(pixels)" \
            shape-rendering="crispEdges" role="img" aria-label="QR code"><rect width="\(side)" height="\(side)" fill="#fff"/>\
            <path d="\(path)" fill="#000"/></svg>
            """
    }
}
