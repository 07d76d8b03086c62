import Foundation
import HTTPTypes
import HummingbirdTesting
import RollcallCore
import RollcallParts
import RollcallWords
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Rollcall behind a reverse proxy: the WebSocket origin check, the client's address, and who may read `/metrics`.
@Suite("Behind a reverse proxy", .timeLimit(.minutes(2)))
struct ProxyTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    /// What the test client connects from: `localhost`, whichever family it resolves to.
    static let loopback = ["127.0.0.1/32", "::1/128"].map { NetworkRange(cidr: $0)! }

    // MARK: WebSocket origin

    @Test func a_websocket_from_the_public_urls_origin_opens_behind_a_proxy_and_no_other_does() async throws {
        try await withServer(setup: .live, configure: { $0.publicURL = "https://rollcall.example" }) { api in
            let room = try await Classroom.open(api)
            let cookie = try await api.webCookie(room.teacher)
            for path in [
                "/api/v1/sessions/\(room.sessionID)/live", "/api/v1/sessions/\(room.sessionID)/projector/live",
            ] {
                // nginx as the README shows it: Host is the upstream's, the browser's Origin is the public URL's.
                let proxied = try await api.call(
                    host: "127.0.0.1:8080", .get, path,
                    headers: [.cookie: cookie, .origin: "https://rollcall.example"])
                #expect(proxied.status == .upgradeRequired, "\(path): \(proxied.text)")
                let defaultPort = try await api.call(
                    host: "127.0.0.1:8080", .get, path,
                    headers: [.cookie: cookie, .origin: "https://ROLLCALL.example:443"])
                #expect(defaultPort.status == .upgradeRequired, "\(path): \(defaultPort.text)")
                // The same host over plain http is another origin, even when Host names it.
                for host in ["127.0.0.1:8080", "rollcall.example"] {
                    try await api.expectRefusedWebSocket(
                        host: host, path, headers: [.cookie: cookie, .origin: "http://rollcall.example"])
                }
                for origin in [
                    "https://evil.example", "https://rollcall.example:8443", "null", "https://127.0.0.1:8080",
                ] {
                    try await api.expectRefusedWebSocket(
                        host: "127.0.0.1:8080", path, headers: [.cookie: cookie, .origin: origin])
                }
                // A native client with its bearer token may come from anywhere, as before.
                let native = try await api.call(
                    host: "127.0.0.1:8080", .get, path,
                    headers: [.authorization: "Bearer \(room.teacher.token)", .origin: "https://evil.example"])
                #expect(native.status == .upgradeRequired, "\(path): \(native.text)")
            }
        }
    }

    // MARK: Client address

    @Test func a_trusted_proxy_names_the_client_for_an_allowed_network() async throws {
        try await withServer(setup: .live, configure: { $0.trustedProxies = Self.loopback }) { api in
            let room = try await Classroom.open(api, settings: ["allowedNetworks": ["192.0.2.0/24"]])
            // The client made up an address in the range; the proxy appended the real one, which is not.
            let spoofed = try await room.scan(api, as: room.student)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": spoofed],
                headers: [Self.forwardedFor: "192.0.2.66, 198.51.100.9"], status: .forbidden,
                code: "network_not_allowed")
            // The proxy saw the student on the campus network.
            let ticket = try await room.scan(api, as: room.student)
            let reply = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket],
                headers: [Self.forwardedFor: "198.51.100.9, 192.0.2.7"])
            #expect(reply.status == .created, "\(reply.text)")
            // RFC 7239's header does the same.
            let other = try await room.enrol(api, "Fran Forwarded")
            let forwarded = try await api.call(
                .post, "/api/v1/check-ins", as: other, json: ["ticket": try await room.scan(api, as: other)],
                headers: [HTTPField.Name("Forwarded")!: "for=192.0.2.8;proto=https"])
            #expect(forwarded.status == .created, "\(forwarded.text)")
        }
    }

    @Test func a_forwarding_header_from_anyone_but_a_trusted_proxy_is_ignored() async throws {
        // No proxy trusted, or one that is not the peer: the header is the client's own claim.
        for trusted in [[], [NetworkRange(cidr: "10.0.0.0/8")!]] {
            try await withServer(setup: .live, configure: { $0.trustedProxies = trusted }) { api in
                let room = try await Classroom.open(api, settings: ["allowedNetworks": ["192.0.2.0/24"]])
                let ticket = try await room.scan(api, as: room.student)
                for headers: HTTPFields in [
                    [Self.forwardedFor: "192.0.2.7"], [HTTPField.Name("Forwarded")!: "for=192.0.2.7"],
                ] {
                    try await api.expectRefused(
                        .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket], headers: headers,
                        status: .forbidden, code: "network_not_allowed")
                }
            }
        }
    }

    // MARK: Metrics

    @Test func metrics_with_a_token_need_it() async throws {
        try await withServer(configure: { $0.metricsToken = "s3cret-metrics" }) { api in
            let missing = try await api.call(.get, "/metrics")
            #expect(missing.status == .unauthorized)
            #expect(missing.errorCode == "metrics_token_required")
            #expect(missing.headers[.wwwAuthenticate] == "Bearer")
            for wrong in ["Bearer s3cret", "Bearer s3cret-metrics-", "Basic czNjcmV0LW1ldHJpY3M=", "s3cret-metrics"] {
                let reply = try await api.call(.get, "/metrics", headers: [.authorization: wrong])
                #expect(reply.status == .unauthorized, "\(wrong)")
            }
            // A person's API token is not the metrics token.
            let person = try await api.register("Pat Person")
            #expect(try await api.call(.get, "/metrics", as: person).status == .unauthorized)
            let reply = try await api.call(.get, "/metrics", headers: [.authorization: "Bearer s3cret-metrics"])
            #expect(reply.status == .ok)
            #expect(reply.text.contains("# TYPE"))
        }
        // Without a token, metrics stay open as before.
        try await withServer { api in
            let reply = try await api.call(.get, "/metrics")
            #expect(reply.status == .ok)
        }
    }

    @Test func metrics_with_networks_answer_only_those() async throws {
        let elsewhere = [NetworkRange(cidr: "198.51.100.0/24")!]
        try await withServer(setup: .live, configure: { $0.metricsNetworks = elsewhere }) { api in
            let refused = try await api.call(.get, "/metrics")
            #expect(refused.status == .forbidden)
            #expect(refused.errorCode == "metrics_forbidden")
            // A made-up forwarding header does not help.
            let spoofed = try await api.call(.get, "/metrics", headers: [Self.forwardedFor: "198.51.100.1"])
            #expect(spoofed.status == .forbidden)
        }
        try await withServer(setup: .live, configure: { $0.metricsNetworks = Self.loopback }) { api in
            let reply = try await api.call(.get, "/metrics")
            #expect(reply.status == .ok)
        }
        // Behind a trusted proxy, the client the proxy names is what counts.
        try await withServer(
            setup: .live,
            configure: {
                $0.metricsNetworks = elsewhere
                $0.trustedProxies = Self.loopback
            }
        ) { api in
            let named = try await api.call(.get, "/metrics", headers: [Self.forwardedFor: "198.51.100.1"])
            #expect(named.status == .ok)
            let other = try await api.call(.get, "/metrics", headers: [Self.forwardedFor: "192.0.2.1"])
            #expect(other.status == .forbidden)
        }
        // Both: the network first, then the token.
        try await withServer(
            setup: .live,
            configure: {
                $0.metricsNetworks = Self.loopback
                $0.metricsToken = "s3cret-metrics"
            }
        ) { api in
            #expect(try await api.call(.get, "/metrics").status == .unauthorized)
            let reply = try await api.call(.get, "/metrics", headers: [.authorization: "Bearer s3cret-metrics"])
            #expect(reply.status == .ok)
        }
    }

    // MARK: Settings

    @Test func proxy_and_metrics_settings_are_read_and_checked_at_start() throws {
        let configuration = try Configuration.fromEnvironment([
            "ROLLCALL_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7 ::1/128",
            "ROLLCALL_METRICS_NETWORKS": "127.0.0.1/32",
            "ROLLCALL_METRICS_TOKEN": "abc",
        ])
        #expect(configuration.trustedProxies.map(\.description) == ["10.0.0.0/8", "192.168.1.7/32", "::1/128"])
        #expect(configuration.metricsNetworks.map(\.description) == ["127.0.0.1/32"])
        #expect(configuration.metricsToken == "abc")
        let plain = try Configuration.fromEnvironment([:])
        #expect(plain.trustedProxies.isEmpty && plain.metricsNetworks.isEmpty && plain.metricsToken == nil)
        #expect(plain.tls == nil)
        for variable in ["ROLLCALL_TRUSTED_PROXIES", "ROLLCALL_METRICS_NETWORKS"] {
            for bad in ["10.0.0.0/33", "10.0.0.0/8, everyone", "10.0.0.0/8,,nope", "*"] {
                let error = #expect(throws: ConfigurationError.self) {
                    try Configuration.fromEnvironment([variable: bad])
                }
                #expect(error?.variable == variable)
                #expect(error?.description.contains(variable) == true)
            }
        }
    }

    @Test func tls_settings_that_cannot_be_used_stop_the_server_naming_the_variable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-tls-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let garbage = "\(directory)/garbage.pem"
        try Data("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n".utf8)
            .write(to: URL(fileURLWithPath: garbage))
        let empty = "\(directory)/empty.pem"
        try Data().write(to: URL(fileURLWithPath: empty))
        let missing = "\(directory)/missing.pem"
        let cases: [([String: String], String)] = [
            (["ROLLCALL_TLS_CERT": garbage], "ROLLCALL_TLS_KEY"),
            (["ROLLCALL_TLS_KEY": garbage], "ROLLCALL_TLS_CERT"),
            (["ROLLCALL_TLS_CERT": missing, "ROLLCALL_TLS_KEY": garbage], "ROLLCALL_TLS_CERT"),
            (["ROLLCALL_TLS_CERT": garbage, "ROLLCALL_TLS_KEY": garbage], "ROLLCALL_TLS_CERT"),
            (["ROLLCALL_TLS_CERT": empty, "ROLLCALL_TLS_KEY": garbage], "ROLLCALL_TLS_CERT"),
            (["ROLLCALL_TLS_CERT": directory, "ROLLCALL_TLS_KEY": garbage], "ROLLCALL_TLS_CERT"),
        ]
        for (environment, variable) in cases {
            let error = #expect(throws: ConfigurationError.self, "\(environment)") {
                try Configuration.fromEnvironment(environment)
            }
            #expect(error?.variable == variable, "\(environment): \(String(describing: error))")
        }
    }
}

extension API {
    /// A request with the `Host` of one's choosing, as a reverse proxy sends it; `.live` servers only.
    func call(
        host: String, _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:]
    ) async throws -> Reply {
        let port = try #require(client.port)
        return try await TestClient.withClient(host: "localhost", port: port) { client in
            let response = try await client.execute(
                TestClient.Request(path, method: method, authority: host, headers: headers))
            return Reply(
                status: response.status, headers: response.headers, text: response.body.map { String(buffer: $0) } ?? ""
            )
        }
    }

    /// A cookie-borne WebSocket request that must be refused as cross-site, changing nothing.
    func expectRefusedWebSocket(
        host: String, _ path: String, headers: HTTPFields, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = try await snapshot()
        let reply = try await call(host: host, .get, path, headers: headers)
        #expect(reply.status == .forbidden, "\(headers[.origin] ?? "")", sourceLocation: sourceLocation)
        #expect(reply.errorCode == "forbidden", sourceLocation: sourceLocation)
        #expect(try await snapshot() == before, sourceLocation: sourceLocation)
    }

    /// The teacher's browser session cookie, as `Cookie` sends it.
    func webCookie(_ account: Account) async throws -> String {
        let signIn = try await call(
            .post, "/api/v1/auth/session", json: ["email": account.email, "password": API.password])
        let value = try #require(signIn.headers[.setCookie]?.firstMatch(of: /rollcall_session=([^;]+)/)?.1)
        return "rollcall_session=\(value)"
    }
}
