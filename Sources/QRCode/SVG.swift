extension QRCode {
    /// The symbol as a compact SVG: one path of dark runs on a light background with the quiet zone, scalable to any
    /// size through its viewBox.
    public func svg(moduleSize: Int = 8, quietZone: Int = 4, darkColor: String = "#000", lightColor: String = "#fff")
        -> String
    {
        let side = size + 2 * quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else {
                    x += 1
                    continue
                }
                var run = 1
                while x + run < size && self[x + run, y] { run += 1 }
                path += "M\(x + quietZone) \(y + quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        let pixels = side * moduleSize
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(pixels)" height="\(pixels)" \
            shape-rendering="crispEdges"><rect width="\(side)" height="\(side)" fill="\(lightColor)"/>\
            <path d="\(path)" fill="\(darkColor)"/></svg>
            """
    }
}
