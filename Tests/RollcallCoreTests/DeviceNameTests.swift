import RollcallCore
import Testing

@Suite("Device names", .timeLimit(.minutes(5)))
struct DeviceNameTests {
    @Test(
        arguments: [
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
                "Chrome on Android"
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
                "Safari on iPhone"
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
                "Chrome on iPhone"
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                "Edge on Windows"
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.7; rv:132.0) Gecko/20100101 Firefox/132.0",
                "Firefox on Mac"
            ),
            (
                "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
                "Samsung Internet on Android"
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
                "Chrome on Linux"
            ),
            ("curl/8.5.0", "A browser"),
            ("", "A browser"),
            ("Something (Windows NT 10.0)", "A browser on Windows"),
        ] as [(String, String)])
    func a_user_agent_names_the_browser_and_the_system(agent: String, name: String) {
        #expect(DeviceName.describe(userAgent: agent) == name)
    }

    @Test func no_user_agent_is_a_browser() {
        #expect(DeviceName.describe(userAgent: nil) == "A browser")
    }
}
