import Foundation
import HTTPTypes
import HummingbirdWSClient
import HummingbirdWSTesting
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

@Suite("Live", .timeLimit(.minutes(1)))
struct LiveTests {
    @Test func the_teacher_gets_the_room_then_each_change_as_it_commits() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api, student: "Cass Checkin")
            let borrower = try await room.enrol(api, "Bo Borrower")
            try await api.watch(room.sessionID, as: room.teacher) { view in
                let snapshot = try await view.next("snapshot")
                // A session created open starts its log with `session_opened`.
                let opened = try #require(try await api.events(sessionID: room.sessionID).first)
                #expect(opened.kind == .sessionOpened)
                #expect(snapshot.int("lastEventId") == opened.id)
                #expect(snapshot.int("session.id") == room.sessionID)
                #expect(snapshot.string("session.phase") == "open")
                #expect(snapshot.list("students").map { $0["name"] as? String } == ["Bo Borrower", "Cass Checkin"])
                #expect(snapshot.list("students").allSatisfy { $0["status"] == nil })
                #expect(snapshot.int("counts.enrolled") == 2)
                #expect(snapshot.int("counts.notYet") == 2)
                #expect(snapshot.int("counts.checkedIn") == 0)

                let answer = try await room.checkIn(api, room.student, device: "phone-of-cass")
                #expect(answer.status == .created)
                let checkedIn = try await view.next("event")
                #expect(checkedIn.string("kind") == "checked_in")
                #expect(checkedIn.int("data.studentId") == room.student.id)
                #expect(checkedIn.string("data.status") == "present")
                #expect(checkedIn.string("data.via") == "qr")
                // The API answers whole seconds; the event has milliseconds.
                let at = try Date(checkedIn.string("data.at") ?? "", strategy: .iso8601)
                let answered = try Date(answer.string("checkedInAt") ?? "-", strategy: .iso8601)
                #expect(abs(at.timeIntervalSince(answered)) < 1)
                let first = try #require(checkedIn.int("id"))
                #expect(first > 0)
                let counts = try await view.next("counts")
                #expect(counts.int("lastEventId") == first)
                #expect(counts.int("counts.present") == 1)
                #expect(counts.int("counts.checkedIn") == 1)
                #expect(counts.int("counts.notYet") == 1)

                // The same phone for a second student: refused, and the teacher sees the flag at once.
                let refused = try await room.checkIn(api, borrower, device: "phone-of-cass")
                #expect(refused.errorCode == "device_already_used")
                let flagged = try await view.next("event")
                #expect(flagged.string("kind") == "flagged")
                #expect(flagged.int("data.studentId") == borrower.id)
                #expect(flagged.string("data.kind") == "device_already_used")
                #expect(flagged.string("data.detail")?.contains("Bo Borrower") == true)
                #expect(flagged.int("id")! > first)
                #expect(try await view.next("counts").int("counts.checkedIn") == 1)

                // A retry is the same record: no second event.
                let retry = try await room.checkIn(api, room.student, device: "phone-of-cass")
                #expect(retry.status == .ok)
                _ = try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
                let closed = try await view.next("event")
                #expect(closed.string("kind") == "session_closed")
                #expect(closed.string("data.phase") == "closed")
                #expect(closed.int("id")! == flagged.int("id")! + 1)
            }
            // Every event sent was stored, and nothing else.
            #expect(
                try await api.events(sessionID: room.sessionID).map(\.kind.rawValue) == [
                    "session_opened", "checked_in", "flagged", "session_closed",
                ])

            // A fresh view starts from the room as it is now.
            try await api.watch(room.sessionID, as: room.teacher) { view in
                let snapshot = try await view.next("snapshot")
                #expect(snapshot.string("session.phase") == "closed")
                #expect(snapshot.int("lastEventId") == (try await api.events(sessionID: room.sessionID)).last?.id)
                let cass = snapshot.list("students").first { $0["name"] as? String == "Cass Checkin" }
                #expect(cass?["status"] as? String == "present")
                #expect(cass?["via"] as? String == "qr")
                #expect(cass?["at"] is String)
                #expect(snapshot.list("flags").map { $0["kind"] as? String } == ["device_already_used"])
                #expect(snapshot.int("counts.present") == 1)
                // Bo, on the roster and never recorded, counts as absent once the session has ended.
                #expect(snapshot.int("counts.absent") == 1)
            }
        }
    }

    @Test func a_view_that_reconnects_gets_exactly_what_it_missed() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api, student: "Ann Early")
            let ben = try await room.enrol(api, "Ben Away")
            let cleo = try await room.enrol(api, "Cleo Later")
            let dan = try await room.enrol(api, "Dan Last")
            let seen = LockedIDs()
            try await api.watch(room.sessionID, as: room.teacher) { view in
                _ = try await view.next("snapshot")
                try await room.checkIn(api, room.student)
                let event = try await view.next("event")
                #expect(event.int("data.studentId") == room.student.id)
                seen.set(event.int("id")!)
            }
            let last = seen.value
            // While the teacher's laptop is offline: two check-ins and a flag.
            #expect(try await room.checkIn(api, ben, device: "phone-of-ben").status == .created)
            #expect(try await room.checkIn(api, cleo, device: "phone-of-ben").errorCode == "device_already_used")
            let cleoIn = try await room.checkIn(api, cleo, device: "phone-of-cleo")
            #expect(cleoIn.status == .created, "\(cleoIn.text)")

            try await api.watch(room.sessionID, as: room.teacher, after: last) { view in
                let missed = [try await view.next("event"), try await view.next("event"), try await view.next("event")]
                #expect(missed.map { $0.string("kind") } == ["checked_in", "flagged", "checked_in"])
                #expect(missed.map { $0.int("data.studentId") } == [ben.id, cleo.id, cleo.id])
                let ids = missed.compactMap { $0.int("id") }
                #expect(ids.first! > last && ids == ids.sorted() && Set(ids).count == 3)
                let counts = try await view.next("counts")
                #expect(counts.int("counts.checkedIn") == 3)
                #expect(counts.int("lastEventId") == ids.last)
                // Then live again: the next message is the next event, nothing repeated before it.
                try await room.checkIn(api, dan)
                let live = try await view.next("event")
                #expect(live.int("data.studentId") == dan.id)
                #expect(live.int("id")! > ids.last!)
            }

            // Resuming from the very start replays the whole log, once each.
            let stored = try await api.events(sessionID: room.sessionID)
            try await api.watch(room.sessionID, as: room.teacher, after: 0) { view in
                var replayed: [Int64] = []
                for _ in stored { replayed.append(try #require(try await view.next("event").int("id"))) }
                #expect(replayed == stored.map(\.id))
                #expect(try await view.next("counts").int("counts.checkedIn") == 4)
            }
        }
    }

    @Test func a_room_checking_in_at_once_reaches_the_view_once_each_in_order() async throws {
        try await withServer(setup: .live) { api in
            let (room, tickets) = try await Self.roomOfThirty(api)
            let everyone = Set(tickets.map(\.student.id))
            try await api.watch(room.sessionID, as: room.teacher) { view in
                #expect(try await view.next("snapshot").int("counts.notYet") == 30)
                let released = ContinuousClock.now
                try await Self.checkInAtOnce(api, tickets)
                var events: [Reply] = []
                var lastCounts: Reply?
                var countsSent = 0
                while events.count < 30 || lastCounts?.int("lastEventId") != events.last?.int("id") {
                    let message = try await view.next()
                    if message.string("type") == "event" {
                        events.append(message)
                    } else {
                        lastCounts = message
                        countsSent += 1
                    }
                }
                // The counts follow the runs of events at most once a second, however many runs commit: a
                // message arrives after it is sent, so the time since the release bounds the gaps between them.
                let spent = ContinuousClock.now - released
                #expect(countsSent <= Int(spent / LiveSocket.summaryInterval) + 1, "\(countsSent) in \(spent)")
                let ids = events.compactMap { $0.int("id") }
                #expect(ids == ids.sorted() && Set(ids).count == 30)
                #expect(Set(events.compactMap { $0.int("data.studentId") }) == everyone)
                #expect(lastCounts?.int("counts.checkedIn") == 30)
                #expect(lastCounts?.int("counts.notYet") == 0)
            }
        }
    }

    @Test func resuming_needs_an_event_of_this_session() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api)
            let other = try await Classroom.open(api, teacher: "Otto Other", student: "Oli Other")
            try await other.checkIn(api, other.student)
            let foreign = try #require(try await api.events(sessionID: other.sessionID).first?.id)
            for after in ["abc", "-1", "1.5", "", "99999", "\(foreign)"] {
                try await api.expectRefused(
                    .get, "/api/v1/sessions/\(room.sessionID)/live?after=\(after)", as: room.teacher,
                    status: .badRequest, code: "invalid_after"
                )
            }
            await #expect(throws: WebSocketClientError.webSocketUpgradeFailed) {
                try await api.watch(room.sessionID, as: room.teacher, after: foreign) { _ in }
            }
        }
    }

    @Test func a_refused_upgrade_is_answered_with_its_status_and_the_json_error() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api)
            let (otherTeacher, _, _) = try await api.teacherWithCourse("Otto Other")
            let port = try #require(api.client.port)
            let live = "/api/v1/sessions/\(room.sessionID)/live"
            let projector = "/api/v1/sessions/\(room.sessionID)/projector/live"
            let refusals: [(path: String, account: Account?, status: String, code: String)] = [
                (live, nil, "401", "not_signed_in"),
                (live, otherTeacher, "403", "forbidden"),
                (live, room.student, "403", "forbidden"),
                ("/api/v1/sessions/999999/live", room.teacher, "404", "session_not_found"),
                (live + "?after=abc", room.teacher, "400", "invalid_after"),
                (projector, nil, "401", "not_signed_in"),
                (projector, room.student, "403", "forbidden"),
            ]
            for refusal in refusals {
                let headers = refusal.account.map { ["Authorization: Bearer \($0.token)"] } ?? []
                let answer = try await RawConnection.refusedUpgrade(port: port, path: refusal.path, headers: headers)
                let parts = answer.split(separator: "\r\n\r\n", maxSplits: 1).map(String.init)
                try #require(parts.count == 2, "\(refusal.path): \(answer)")
                let (head, body) = (parts[0], parts[1])
                #expect(head.hasPrefix("HTTP/1.1 \(refusal.status) "), "\(refusal.path): \(answer)")
                #expect(head.lowercased().contains("content-type: application/json"), "\(answer)")
                #expect(head.lowercased().contains("content-length: \(body.utf8.count)"), "\(answer)")
                let error = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: [String: String]]
                #expect(error?["error"]?["code"] == refusal.code, "\(refusal.path): \(body)")
                #expect(error?["error"]?["message"]?.isEmpty == false)
            }
            // Nothing was opened or used up: the teacher's view still opens.
            try await api.watch(room.sessionID, as: room.teacher) { view in
                let snapshot = try await view.next("snapshot")
                #expect(snapshot.int("counts.enrolled") == 1)
            }
        }
    }

    @Test func only_the_courses_teacher_watches_the_room() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api)
            let (otherTeacher, _, _) = try await api.teacherWithCourse("Otto Other")
            let path = "/api/v1/sessions/\(room.sessionID)/live"
            try await api.expectRefused(.get, path, as: otherTeacher, status: .forbidden, code: "forbidden")
            try await api.expectRefused(.get, path, as: room.student, status: .forbidden, code: "forbidden")
            try await api.expectRefused(.get, path, status: .unauthorized, code: "not_signed_in")
            try await api.expectRefused(
                .get, "/api/v1/sessions/999999/live", as: room.teacher, status: .notFound, code: "session_not_found")
            for account in [otherTeacher, room.student, nil] as [Account?] {
                await #expect(throws: WebSocketClientError.webSocketUpgradeFailed) {
                    try await api.watch(room.sessionID, as: account) { view in
                        Issue.record("the live view opened: \(try await view.next().text)")
                    }
                }
            }
            // The teacher's own browser, signed in with the cookie: only from Rollcall's own pages.
            let signIn = try await api.call(
                .post, "/api/v1/auth/session", json: ["email": room.teacher.email, "password": API.password])
            let cookie = try #require(signIn.headers[.setCookie]?.firstMatch(of: /rollcall_session=([^;]+)/)?.1)
            let crossSite = try await api.call(
                .get, path, headers: [.cookie: "rollcall_session=\(cookie)", .origin: "https://evil.test"])
            #expect(crossSite.status == .forbidden)
            #expect(crossSite.errorCode == "forbidden")
            #expect(crossSite.errorMessage == "The live view opens only from Rollcall's own pages.")
            // The public URL's origin (the test server's default, http://localhost:8080).
            let sameSite = try await api.call(
                .get, path, headers: [.cookie: "rollcall_session=\(cookie)", .origin: "http://localhost:8080"])
            // Let through every check, a plain GET is told to upgrade.
            #expect(sameSite.status == .upgradeRequired, "\(sameSite.text)")
            #expect(sameSite.errorCode == "websocket_required")
            await #expect(throws: WebSocketClientError.webSocketUpgradeFailed) {
                try await api.watch(room.sessionID, as: nil, headers: [.cookie: "rollcall_session=\(cookie)"]) { _ in
                    Issue.record("a cookie-borne live view opened from another origin")
                }
            }
            // The teacher's app, with its bearer token, is let in.
            try await api.watch(room.sessionID, as: room.teacher) { view in
                let snapshot = try await view.next("snapshot")
                #expect(snapshot.int("counts.enrolled") == 1)
            }
        }
    }

    @Test func the_session_page_draws_the_room_for_its_teacher_only() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, student: "Cass Checkin")
            let later = try await room.enrol(api, "Lou Later")
            #expect(try await room.checkIn(api, room.student).status == .created)
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(page.status == .ok)
            #expect(
                page.text.contains(
                    #"<li class="room-row" data-student="\#(room.student.id)" data-status="present" data-via="qr">"#))
            #expect(
                page.text.contains(#"<li class="room-row" data-student="\#(later.id)" data-status="none" data-via="">"#)
            )
            #expect(page.text.contains(#"<strong data-count="checkedIn">1</strong>"#))
            #expect(page.text.contains("/assets/live.js"))
            let studentsPage = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.student)
            #expect(studentsPage.status == .ok)
            #expect(!studentsPage.text.contains("room-row"))
            #expect(!studentsPage.text.contains("Lou Later"))
            #expect(!studentsPage.text.contains("/assets/live.js"))
        }
    }

    @Test func a_student_sees_their_own_standing_and_never_where_the_fence_is() async throws {
        try await withServer { api in
            let fence: [String: Any] = [
                "latitude": 52.12345, "longitude": 4.54321, "radius": 30, "grace": 2,
                "allowedNetworks": ["127.0.0.0/8", "::1/128"],
            ]
            let room = try await Classroom.open(api, settings: fence)
            let path = "/sessions/\(room.sessionID)"
            let before = try await api.call(.get, path, as: room.student)
            #expect(before.status == .ok)
            #expect(before.text.contains(#"<span class="status pending" id="my-status">not checked in</span>"#))
            #expect(before.text.contains("You have not checked in yet."))
            for secret in ["52.12345", "4.54321", "30 m", "grace", "127.0.0.0/8"] {
                #expect(!before.text.contains(secret), "a student's page shows \(secret)")
            }
            #expect(before.text.contains("your phone&#39;s location must be in the classroom"), "\(before.text)")
            let teachers = try await api.call(.get, path, as: room.teacher)
            #expect(teachers.text.contains("within 30 m of 52.12345, 4.54321"))
            #expect(teachers.text.contains("127.0.0.0/8"))

            let excused = try await api.call(
                .put, "/api/v1/sessions/\(room.sessionID)/attendance/\(room.student.id)", as: room.teacher,
                json: ["status": "excused", "reason": "Doctor's note"])
            #expect(excused.status == .ok, "\(excused.text)")
            let after = try await api.call(.get, path, as: room.student)
            #expect(after.text.contains(#"<span class="status excused" id="my-status">excused</span>"#))
            #expect(after.text.contains("Your teacher set this by hand"))
            #expect(after.text.contains("Doctor&#39;s note"), "\(after.text)")
            #expect(after.text.contains("opened "))

            _ = try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
            let closed = try await api.call(.get, path, as: room.student)
            #expect(closed.text.contains(#"id="session-timing">opened "#))
            #expect(closed.text.contains(" · closed "))
            #expect(!closed.text.contains("closes "))
        }
    }

    @Test func the_projectors_count_follows_each_check_in() async throws {
        try await withServer(setup: .live) { api in
            // A one-minute code: the projector's next frame comes from the check-in, not from a new code.
            let room = try await Classroom.open(api, settings: ["period": 60])
            let headers: HTTPFields = [.authorization: "Bearer \(room.teacher.token)"]
            try await api.client.ws(
                "/api/v1/sessions/\(room.sessionID)/projector/live", configuration: .init(additionalHeaders: headers)
            ) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
                func frame() async throws -> Reply {
                    guard case .text(let text) = try await messages.next() else { throw LiveView.Closed() }
                    return Reply(status: .ok, headers: [:], text: text)
                }
                #expect(try await frame().int("checkedIn") == 0)
                try await room.checkIn(api, room.student)
                #expect(try await frame().int("checkedIn") == 1)
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    @Test func a_room_checking_in_at_once_moves_the_projectors_count_at_most_once_a_second() async throws {
        try await withServer(setup: .live) { api in
            let (room, tickets) = try await Self.roomOfThirty(api, settings: ["period": 60])
            let headers: HTTPFields = [.authorization: "Bearer \(room.teacher.token)"]
            try await api.client.ws(
                "/api/v1/sessions/\(room.sessionID)/projector/live", configuration: .init(additionalHeaders: headers)
            ) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
                func checkedIn() async throws -> Int64? {
                    guard case .text(let text) = try await messages.next() else { throw LiveView.Closed() }
                    return Reply(status: .ok, headers: [:], text: text).int("checkedIn")
                }
                #expect(try await checkedIn() == 0)
                let released = ContinuousClock.now
                try await Self.checkInAtOnce(api, tickets)
                var frames = 1
                while try await checkedIn() != 30 { frames += 1 }
                // A frame arrives after it is sent, so the time since the release bounds the gaps between them.
                let spent = ContinuousClock.now - released
                #expect(frames <= Int(spent / LiveSocket.summaryInterval) + 1, "\(frames) in \(spent)")
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    @Test func an_event_is_kept_only_with_the_change_it_describes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-events-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Database.sqlite(path: "\(directory)/events.sqlite", logger: .init(label: "test"))
        do {
            try await Migrations.apply(to: database)
            let session = try await database.openSessionOfNewCourse()
            let opened = try await database.read { try await SessionEvents.lastID(sessionID: session.id, in: $0) }
            #expect(opened > 0, "a session created open starts its log with session_opened")
            struct Abandoned: Error {}
            let change = SessionChange.flagged(
                .init(flagId: nil, studentId: nil, kind: .deviceAlreadyUsed, detail: "A note."))
            await #expect(throws: Abandoned.self) {
                try await database.transaction { sql in
                    try await SessionEvents.append(change, sessionID: session.id, in: sql)
                    throw Abandoned()
                }
            }
            #expect(try await database.read { try await SessionEvents.lastID(sessionID: session.id, in: $0) } == opened)
            let id = try await database.transaction { sql in
                try await SessionEvents.append(change, sessionID: session.id, in: sql)
            }
            let stored = try await database.read {
                try await SessionEvents.after(opened, sessionID: session.id, in: $0)
            }
            #expect(stored.map(\.id) == [id])
            #expect(stored.first?.kind == .flagged)
            #expect(stored.first?.payload == #"{"detail":"A note.","kind":"device_already_used"}"#)
            try await database.shutdown()
        } catch {
            try? await database.shutdown()
            throw error
        }
    }

    @Test func the_hub_folds_a_burst_of_wake_ups_into_one() async throws {
        let hub = LiveHub()
        try await hub.subscribe(7) { subscription in
            #expect(hub.subscriberCount(7) == 1)
            for _ in 0..<5 { hub.published(7) }
            hub.published(8)
            #expect(await subscription.next(timeout: .seconds(5)))
            #expect(await subscription.next(timeout: .milliseconds(50)) == false)
        }
        #expect(hub.subscriberCount(7) == 0)
    }

    @Test func a_wake_up_ends_a_wait_long_before_its_timeout() async throws {
        let hub = LiveHub()
        try await hub.subscribe(7) { subscription in
            // A child task, so that the suite's time limit ends the wait if the wake-up never does.
            async let woken = subscription.next(timeout: .seconds(3600))
            try await waitUntil("the view waits") { subscription.isWaiting }
            hub.published(7)
            #expect(await woken)
            #expect(!subscription.isWaiting)
        }
    }

    @Test func a_cancelled_wait_ends_at_once_as_not_woken() async throws {
        let hub = LiveHub()
        try await hub.subscribe(7) { subscription in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask { await subscription.next(timeout: .seconds(3600)) }
                try await waitUntil("the view waits") { subscription.isWaiting }
                group.cancelAll()
                #expect(try await group.next() == false)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await subscription.next() }
                try await waitUntil("the view waits") { subscription.isWaiting }
                group.cancelAll()
                try await group.waitForAll()
            }
            // The wake-up that came while nobody waited is kept for the next wait.
            hub.published(7)
            #expect(await subscription.next(timeout: .seconds(3600)))
        }
    }
}

extension LiveTests {
    /// A room of 30 enrolled students, "Student 00" to "Student 29", each holding the ticket of a scan.
    static func roomOfThirty(
        _ api: API, settings: [String: Any] = [:]
    ) async throws -> (Classroom, [(student: Account, ticket: String)]) {
        let room = try await Classroom.open(api, settings: settings, student: "Student 00")
        var students = [room.student]
        for number in 1..<30 { students.append(try await room.enrol(api, "Student \(number)")) }
        let tickets = try await withThrowingTaskGroup(of: (Account, String).self) { group in
            for student in students { group.addTask { (student, try await room.scan(api, as: student)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        return (room, tickets)
    }

    /// Releases every ticket's check-in at once; each must be admitted.
    static func checkInAtOnce(_ api: API, _ tickets: [(student: Account, ticket: String)]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (student, ticket) in tickets {
                group.addTask {
                    let reply = try await api.call(.post, "/api/v1/check-ins", as: student, json: ["ticket": ticket])
                    #expect(reply.status == .created, "\(reply.text)")
                }
            }
            try await group.waitForAll()
        }
    }
}
