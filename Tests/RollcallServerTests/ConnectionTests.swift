import Foundation
import NIOCore
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Connections that ask nothing, ask half, or ask in garbage: answered or closed, never held; the number open is
/// kept under a limit. Real sockets on loopback.
@Suite("Connections", .timeLimit(.minutes(2)))
struct ConnectionTests {
    static let healthz = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

    @Test func a_silent_connection_is_closed_after_the_idle_timeout() async throws {
        try await withServer(setup: .live, configure: { $0.idleTimeout = .seconds(1) }) { api in
            let connection = try await RawConnection.open(port: try #require(api.client.port))
            #expect(await connection.closed(within: 20), "a connection that never sent anything is still open")
            #expect(connection.received.isEmpty)
            await connection.close()
        }
    }

    @Test func a_request_whose_head_never_ends_is_closed_after_the_head_timeout() async throws {
        try await withServer(
            setup: .live, configure: { $0.requestHeadTimeout = .seconds(1) }  // idle stays at 60 s
        ) { api in
            let connection = try await RawConnection.open(port: try #require(api.client.port))
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(await connection.closed(within: 20), "a half-sent request head is still held open")
            // Closed for its silence: not answered as a request that could not be read.
            #expect(connection.received.isEmpty, "\(connection.received)")
            await connection.close()
        }
    }

    @Test func a_second_request_whose_head_never_ends_is_closed_after_the_head_timeout() async throws {
        try await withServer(
            setup: .live, configure: { $0.requestHeadTimeout = .seconds(1) }  // idle stays at 60 s
        ) { api in
            let connection = try await RawConnection.open(port: try #require(api.client.port))
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let deadline = ContinuousClock.now + .seconds(20)
            while !connection.received.contains("\r\n\r\nok"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(connection.received.hasPrefix("HTTP/1.1 200 "), "\(connection.received)")
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(await connection.closed(within: 20), "a half-sent second request head is still held open")
            await connection.close()
        }
    }

    @Test func garbage_is_answered_400_and_closed() async throws {
        try await withServer(setup: .live) { api in
            let connection = try await RawConnection.open(port: try #require(api.client.port))
            try await connection.send("\u{16}\u{03}\u{01} this is not HTTP at all\r\n\r\n")
            #expect(await connection.closed(within: 20))
            #expect(connection.received.hasPrefix("HTTP/1.1 400 "), "\(connection.received)")
            #expect(connection.received.contains("malformed_request"))
            await connection.close()
        }
    }

    @Test func a_64_kb_header_is_answered_431_and_closed() async throws {
        try await withServer(setup: .live) { api in
            let connection = try await RawConnection.open(port: try #require(api.client.port))
            let big = String(repeating: "a", count: 64 * 1024)
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(big)\r\n\r\n")
            #expect(await connection.closed(within: 20))
            #expect(connection.received.hasPrefix("HTTP/1.1 431 "), "\(connection.received)")
            #expect(connection.received.contains("headers_too_large"))
            await connection.close()
        }
    }

    @Test func healthz_answers_while_hundreds_of_idle_connections_fill_the_limit() async throws {
        let limit = 50
        try await withServer(setup: .live, configure: { $0.maxConnections = limit }) { api in
            let port = try #require(api.client.port)
            var idle: [RawConnection] = []
            for _ in 0..<300 { idle.append(try await RawConnection.open(port: port)) }
            // Beyond the limit, connections that asked nothing are closed: at most `limit` stay open.
            let deadline = ContinuousClock.now + .seconds(20)
            while idle.filter(\.isOpen).count > limit, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(idle.filter(\.isOpen).count <= limit)
            // A real request still gets through, and is answered.
            let probe = try await RawConnection.open(port: port)
            try await probe.send(Self.healthz)
            #expect(await probe.closed(within: 20))
            #expect(probe.received.hasPrefix("HTTP/1.1 200 "), "\(probe.received)")
            await probe.close()
            for connection in idle { await connection.close() }
        }
    }

    @Test func healthz_answers_while_hundreds_of_idle_connections_are_open_under_the_default_limit() async throws {
        try await withServer(setup: .live) { api in
            let port = try #require(api.client.port)
            var idle: [RawConnection] = []
            for _ in 0..<400 { idle.append(try await RawConnection.open(port: port)) }
            let probe = try await RawConnection.open(port: port)
            try await probe.send(Self.healthz)
            #expect(await probe.closed(within: 20))
            #expect(probe.received.hasPrefix("HTTP/1.1 200 "), "\(probe.received)")
            #expect(idle.filter(\.isOpen).count == idle.count)
            for connection in idle { await connection.close() }
        }
    }
}
