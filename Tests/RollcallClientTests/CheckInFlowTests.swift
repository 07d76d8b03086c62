import ClientTestSupport
import Foundation
import PasskeyTestSupport
import RollcallClient
import ServerTestSupport
import Testing

/// The native app's check-in: scanned link, ticket, the passkey answer the app supplies, the location, check-in.
@Suite("RollcallClient check-in flow", .timeLimit(.minutes(2)))
struct CheckInFlowTests {
    @Test func a_passkey_and_a_location_from_the_app() async throws {
        try await withServer(setup: .live) { api in
            let verified = try await VerifiedClassroom.open(api)
            let room = verified.room
            let phone = Phone(verified.phone)
            let student = try api.rollcall(room.student)
            let link = try #require(try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).url)
            let scan = try await student.scan(link: link)
            let step = try await student.passkeyStep(ticket: scan.ticket, deviceID: "phone-0001")
            let challenge = try #require(
                { if case .answer(let challenge) = step { challenge } else { nil } }(),
                "the course asks for a passkey, the step said \(step)")
            #expect(challenge.challengeBytes.count >= 16)
            let asked = Asked()
            let proof = CheckInProof(
                deviceID: "phone-0001", location: { Location(latitude: 52.0001, longitude: 4.0, accuracy: 8) },
                passkey: { challenge in
                    asked.count()
                    return try phone.answer(challenge)
                })
            let result = try await student.checkIn(scannedLink: link, proof: proof)
            #expect(result.new && result.status == .present && result.sessionId == room.sessionID)
            #expect(asked.times == 1, "the app was asked for the passkey once")
            let again = try await student.checkIn(ticket: scan.ticket, proof: proof)
            #expect(!again.new && again.checkedInAt == result.checkedInAt, "a repeat answers the first result")
        }
    }

    @Test func a_bad_passkey_answer_is_refused_with_its_step() async throws {
        try await withServer(setup: .live) { api in
            let verified = try await VerifiedClassroom.open(api)
            let room = verified.room
            let stranger = Phone(SoftwareAuthenticator.of(room.teacher))
            let student = try api.rollcall(room.student)
            let link = try #require(try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).url)
            let before = try await api.snapshot()
            do {
                _ = try await student.checkIn(
                    scannedLink: link,
                    proof: CheckInProof(deviceID: "phone-0001", passkey: { try stranger.answer($0) }))
                Issue.record("another person's passkey checked the student in")
            } catch let error as RollcallError {
                #expect(error.code == "verification_failed" && error.status == 403, "\(error)")
                #expect(error.details["step"]?.string?.hasPrefix("passkey_") == true, "\(error.details)")
            }
            let after = try await api.snapshot()
            #expect(after["attendance"] == before["attendance"], "no attendance recorded")
            #expect(after["session_events"] == before["session_events"], "no event")
        }
    }
}

/// How often the app was asked for a passkey.
final class Asked: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = 0
    func count() { lock.withLock { stored += 1 } }
    var times: Int { lock.withLock { stored } }
}

/// A typed code, for a student whose camera fails, and a check-in spot, where the location alone counts.
@Suite("RollcallClient typed codes and check-in spots", .timeLimit(.minutes(2)))
struct TypedAndSpotTests {
    @Test func a_typed_code() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api, settings: ["mode": "typed", "period": 60])
            let student = try api.rollcall(room.student)
            let typed = try #require(
                try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).typedCode)
            try await RefusalTests.expectRefused(api, "invalid_code", status: 400) {
                _ = try await student.checkIn(
                    .typed(sessionID: room.sessionID, code: "000000"), proof: CheckInProof(deviceID: "phone-0001"))
            }
            let result = try await student.checkIn(
                .typed(sessionID: room.sessionID, code: typed), proof: CheckInProof(deviceID: "phone-0001"))
            #expect(result.new && result.status == .present)
        }
    }

    @Test func a_check_in_spot() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(
                api, settings: ["mode": "spot", "latitude": 52.0, "longitude": 4.0, "radius": 50])
            let student = try api.rollcall(room.student)
            try await RefusalTests.expectRefused(api, "location_required", status: 400) {
                _ = try await student.checkIn(
                    .spot(sessionID: room.sessionID), proof: CheckInProof(deviceID: "phone-0001"))
            }
            let here = Location(latitude: 52.0001, longitude: 4.0, accuracy: 8)
            let result = try await student.checkIn(
                .spot(sessionID: room.sessionID), proof: CheckInProof(deviceID: "phone-0001", location: { here }))
            #expect(result.new && result.status == .present)
        }
    }
}
