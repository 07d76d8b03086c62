import Foundation
import HTTPTypes
import HummingbirdWSClient
import RollcallModel
import RollcallParts
import RollcallStorage
import ServerTestSupport
import Testing

@testable import RollcallServer

/// PostgreSQL stops under a running server, and comes back: every route says so with 503 and `Retry-After`, live
/// views close with the code that tells them to resume and do, and nothing acknowledged is lost.
@Suite("An outage of PostgreSQL", .timeLimit(.minutes(3)))
struct OutagePostgresTests {
    @Test func a_database_that_stops_answering_gives_503_everywhere_and_live_views_resume_when_it_is_back()
        async throws
    {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url, setup: .live) { api in
            // Setup: a room where one student checked in, another holding a scanned ticket, a teacher signed in
            // to the pages, and the teacher's live view open.
            let room = try await Classroom.open(api)
            let early = try await room.enrol(api, "Ema Early")
            #expect(try await room.checkIn(api, early).status == .created)
            let ticket = try await room.scan(api, as: room.student)
            let web = try await api.call(
                .post, "/api/v1/auth/session", json: ["email": room.teacher.email, "password": API.password])
            let cookie = String(try #require(web.headers[.setCookie]).prefix { $0 != ";" })
            let events = try await Database.postgres(url: postgres.url, logger: .init(label: "test")).closing {
                try await $0.read { sql in try await SessionEvents.after(0, sessionID: room.sessionID, in: sql) }
            }
            let lastEvent = try #require(events.last?.id)
            let (received, receiving) = AsyncStream<Void>.makeStream()
            let view = Task {
                // A view refused or closed before its first message ends the wait below instead of holding it.
                defer { receiving.finish() }
                return try await api.client.ws(
                    "/api/v1/sessions/\(room.sessionID)/live?after=\(lastEvent)",
                    configuration: .init(additionalHeaders: [.authorization: "Bearer \(room.teacher.token)"])
                ) { inbound, _, _ in
                    for try await _ in inbound.messages(maxSize: 1 << 22) { receiving.yield() }
                }
            }
            // Open once its first message (the counts a resumed view gets) has come.
            var opened = false
            for await _ in received {
                opened = true
                break
            }
            if !opened {
                let outcome = await view.result
                Issue.record("the resumed view ended before its first message: \(outcome)")
                return
            }

            // The call under test: the database stops.
            try await postgres.halt()

            // Every route answers 503 `database_unavailable` with `Retry-After`: API and pages alike. The first
            // waits for a connection; the host found silent, the others are refused without waiting.
            let first = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket])
            let refusedFirst = ContinuousClock.now
            let calls: [(String, Reply)] = [
                ("check-in", first),
                (
                    "sign-in",
                    try await api.call(
                        .post, "/api/v1/auth/tokens", json: ["email": early.email, "password": API.password])
                ),
                ("course list", try await api.call(.get, "/api/v1/courses", as: room.teacher)),
                ("projector", try await room.projector(api)),
                (
                    "course page",
                    try await api.call(.get, "/courses", headers: [.cookie: cookie, .accept: "text/html"])
                ),
            ]
            #expect(ContinuousClock.now - refusedFirst < .seconds(5), "the other four waited for connections")
            for (name, reply) in calls {
                #expect(reply.status == .serviceUnavailable, "\(name): \(reply.text)")
                #expect(Int(reply.headers[.retryAfter] ?? "") ?? 0 > 0, "\(name) without Retry-After")
            }
            #expect(calls[0].1.errorCode == "database_unavailable")
            #expect(calls[4].1.headers[.contentType]?.hasPrefix("text/html") == true, "a person gets a page")
            // The live view closes with 1013, "try again later": resume, not a server failure.
            let closed = try await view.value
            #expect(closed?.closeCode == LiveSocket.resumeLater, "\(String(describing: closed))")

            // The database comes back: the same ticket checks in, the view resumes after its last event and
            // receives it, and what was acknowledged before is there.
            try await postgres.resume()
            try await waitUntil("the database answers again", timeout: .seconds(60)) {
                try await api.call(.get, "/healthz").status == .ok
            }
            try await api.watch(room.sessionID, as: room.teacher, after: lastEvent) { view in
                _ = try await view.next("counts")
                let checkedIn = try await api.call(
                    .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket])
                #expect(checkedIn.status == .created, "\(checkedIn.text)")
                let event = try await view.next("event")
                #expect(event.int("data.studentId") == room.student.id)
            }
            let rows = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)/report.csv", as: room.teacher)
            #expect(rows.text.contains("Ema Early"))
        }
    }
}
