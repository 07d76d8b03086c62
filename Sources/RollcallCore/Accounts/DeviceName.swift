/// How a remembered browser is named on the Devices page: the browser and the system, read from its User-Agent.
public enum DeviceName {
    /// "Chrome on Android", "Safari on iPhone", or "A browser" when the User-Agent says nothing recognisable.
    public static func describe(userAgent: String?) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return "A browser" }
        let browser = Self.browser(agent)
        let system = Self.system(agent)
        switch (browser, system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return "A browser on \(system)"
        case (nil, nil): return "A browser"
        }
    }

    // Order matters: Edge and Opera say "Chrome" too, Chrome says "Safari", and every iPhone browser is Safari's
    // engine under its own name.
    static func browser(_ agent: String) -> String? {
        let marks: [(mark: String, name: String)] = [
            ("Edg/", "Edge"), ("EdgA/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"),
            ("SamsungBrowser/", "Samsung Internet"), ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"),
            ("CriOS/", "Chrome"), ("Chromium/", "Chromium"), ("Chrome/", "Chrome"), ("Safari/", "Safari"),
        ]
        return marks.first { agent.contains($0.mark) }?.name
    }

    static func system(_ agent: String) -> String? {
        let marks: [(mark: String, name: String)] = [
            ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"),
            ("Windows", "Windows"), ("Macintosh", "Mac"), ("Linux", "Linux"),
        ]
        return marks.first { agent.contains($0.mark) }?.name
    }
}
