import Foundation
import HTTPTypes
import PasskeyTestSupport
import ServerTestSupport
import Testing

@testable import RollcallServer

/// A check-in writes everything it decides in the group commit's one transaction: when any part fails (here a
/// trigger stands in for a crash or a full disk at that statement), nothing of it is left.
@Suite("The check-in as one unit of work", .timeLimit(.minutes(2)))
struct CheckInUnitOfWorkTests {
    /// Makes every insert into `table` fail until the trigger is dropped.
    static func failInserts(into table: String, _ api: API) async throws {
        try await api.execute(
            "CREATE TRIGGER refuse_\(table) BEFORE INSERT ON \(table) BEGIN SELECT RAISE(ABORT, 'refused by test'); END"
        )
    }

    @Test func a_walk_in_whose_enrolment_fails_is_not_checked_in() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let newcomer = try await api.register("Nia Newcomer")
            let ticket = try await room.scan(api, as: newcomer)
            try await Self.failInserts(into: "enrollments", api)

            let failed = try await api.call(
                .post, "/api/v1/check-ins", as: newcomer, json: ["ticket": ticket, "join": true])

            #expect(failed.status == .internalServerError, "\(failed.text)")
            let left = try await api.rows(
                "SELECT student_id FROM attendance WHERE student_id = \(newcomer.id) UNION ALL "
                    + "SELECT student_id FROM check_in_evidence WHERE student_id = \(newcomer.id)")
            #expect(left.isEmpty, "a check-in without its enrolment was kept: \(left)")

            // Once the database takes it again, the same ticket joins and checks in.
            try await api.execute("DROP TRIGGER refuse_enrollments")
            let joined = try await api.call(
                .post, "/api/v1/check-ins", as: newcomer, json: ["ticket": ticket, "join": true])
            #expect(joined.status == .created, "\(joined.text)")
        }
    }

    @Test func a_passkey_check_in_whose_verification_fails_is_not_checked_in_and_its_challenge_still_serves()
        async throws
    {
        try await withServer { api in
            var verified = try await VerifiedClassroom.open(api)
            let body = try await verified.body(api)
            let room = verified.room
            try await Self.failInserts(into: "passkey_verifications", api)

            let failed = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)

            #expect(failed.status == .internalServerError, "\(failed.text)")
            #expect(try await api.attendanceRows(session: room.sessionID).isEmpty, "checked in without the evidence")
            #expect(try await api.rows("SELECT challenge_hash FROM passkey_challenges").count == 1, "challenge used")
            let counter = try await api.rows("SELECT last_used_at FROM passkeys")
            #expect(counter.first?["last_used_at"] == .some(nil), "the counter moved for a check-in not kept")

            try await api.execute("DROP TRIGGER refuse_passkey_verifications")
            let checkedIn = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(checkedIn.status == .created, "\(checkedIn.text)")
            #expect(try await api.rows("SELECT id FROM passkey_verifications").count == 1)
        }
    }

    @Test func a_shared_phone_whose_flag_fails_leaves_nothing_and_is_refused_again() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let lender = try await room.enrol(api, "Lee Lender")
            #expect(try await room.checkIn(api, lender, device: "shared-phone-1").status == .created)
            try await Self.failInserts(into: "flags", api)

            // The refusal's one trace is its flag: a flag that cannot be written fails the request, and nothing else
            // of it is stored either.
            let failed = try await room.checkIn(api, room.student, device: "shared-phone-1")
            #expect(failed.status == .internalServerError, "\(failed.text)")
            #expect(try await api.attendanceRows(session: room.sessionID).count == 1)

            try await api.execute("DROP TRIGGER refuse_flags")
            let refused = try await room.checkIn(api, room.student, device: "shared-phone-1")
            #expect(refused.errorCode == "device_already_used", "\(refused.text)")
            #expect(try await api.rows("SELECT id FROM flags").count == 1)
        }
    }
}
