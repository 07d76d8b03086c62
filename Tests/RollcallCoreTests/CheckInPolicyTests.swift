import Foundation
import Testing

@testable import RollcallCore

@Suite("Check-in policy")
struct CheckInPolicyTests {
    static let opened = Date(timeIntervalSince1970: 1_800_000_000)
    static let room = Geofence(center: GeoPoint(latitude: 52, longitude: 4), radius: 30)
    static let inRoom = LocationReading(point: GeoPoint(latitude: 52.0001, longitude: 4), accuracy: 8)
    static let farAway = LocationReading(point: GeoPoint(latitude: 52.001, longitude: 4), accuracy: 8)

    /// A check-in that passes every check, ten seconds after opening; each test breaks one thing.
    func facts(_ change: (inout CheckInFacts) -> Void = { _ in }) -> CheckInFacts {
        var facts = CheckInFacts(
            code: .fresh(step: 2), now: Self.opened.addingTimeInterval(10), openedAt: Self.opened,
            closesAt: Self.opened.addingTimeInterval(3600), lateAfter: 600, enrolled: true, geofence: Self.room,
            reading: Self.inRoom, allowedNetworks: [NetworkRange(cidr: "10.0.0.0/8")!], clientAddress: "10.1.1.1",
            verificationRequired: true, verification: .verified
        )
        change(&facts)
        return facts
    }

    func refusal(_ facts: CheckInFacts) -> CheckInError? {
        if case .refused(let refusal, _) = CheckInPolicy.decide(facts) { return refusal.error }
        return nil
    }

    @Test func a_student_who_passes_every_check_is_present() {
        #expect(CheckInPolicy.decide(facts()) == .checkedIn(status: .present, at: Self.opened.addingTimeInterval(10)))
    }

    @Test func each_check_refuses_with_its_own_code() {
        #expect(refusal(facts { $0.code = .invalid }) == .invalidCode)
        #expect(refusal(facts { $0.code = .fromFuture(step: 9) }) == .invalidCode)
        #expect(refusal(facts { $0.code = .expired(step: 0) }) == .codeExpired)
        #expect(refusal(facts { $0.openedAt = nil }) == .sessionClosed)
        #expect(refusal(facts { $0.closedAt = Self.opened.addingTimeInterval(5) }) == .sessionClosed)
        #expect(refusal(facts { $0.enrolled = false }) == .notEnrolled)
        #expect(refusal(facts { $0.reading = nil }) == .locationRequired)
        #expect(refusal(facts { $0.reading?.accuracy = 500 }) == .locationInaccurate)
        #expect(refusal(facts { $0.reading = Self.farAway }) == .outOfRange)
        #expect(refusal(facts { $0.clientAddress = "192.168.0.5" }) == .networkNotAllowed)
        #expect(refusal(facts { $0.clientAddress = nil }) == .networkNotAllowed)
        #expect(refusal(facts { $0.verification = .none }) == .verificationRequired)
        #expect(refusal(facts { $0.verification = .failed }) == .verificationFailed)
        #expect(refusal(facts { $0.deviceUsedByOtherStudent = true }) == .deviceAlreadyUsed)
    }

    @Test func checks_that_do_not_apply_are_skipped() {
        let open = facts {
            $0.geofence = nil
            $0.reading = nil
            $0.allowedNetworks = []
            $0.clientAddress = nil
            $0.verificationRequired = false
            $0.verification = .none
            $0.enrolled = false
            $0.autoEnrol = true
        }
        guard case .checkedIn(.present, _) = CheckInPolicy.decide(open) else { _ = Issue.record("should pass"); return }
    }

    @Test func out_of_range_says_how_far() {
        guard case .refused(let refusal, false) = CheckInPolicy.decide(facts { $0.reading = Self.farAway }) else {
            _ = Issue.record("expected a refusal"); return
        }
        #expect(refusal.distance.map { Int($0.rounded()) } == 111)
        #expect(refusal.message == "You are 111 m from the classroom — move closer and try again.")
    }

    @Test func the_late_threshold_is_inclusive() {
        let justBefore = facts { $0.now = Self.opened.addingTimeInterval(599.999) }
        let exactly = facts { $0.now = Self.opened.addingTimeInterval(600) }
        #expect(CheckInPolicy.decide(justBefore) == .checkedIn(status: .present, at: justBefore.now))
        #expect(CheckInPolicy.decide(exactly) == .checkedIn(status: .late, at: exactly.now))
        let never = facts {
            $0.lateAfter = nil
            $0.now = Self.opened.addingTimeInterval(3599)
        }
        #expect(CheckInPolicy.decide(never) == .checkedIn(status: .present, at: never.now))
    }

    @Test func a_session_closing_at_the_instant_of_check_in_refuses_it() {
        let closing = Self.opened.addingTimeInterval(300)
        #expect(refusal(facts { $0.now = closing; $0.closedAt = closing }) == .sessionClosed)
        #expect(refusal(facts { $0.now = closing; $0.closesAt = closing }) == .sessionClosed)
        guard case .checkedIn = CheckInPolicy.decide(facts { $0.now = closing.addingTimeInterval(-0.001); $0.closesAt = closing })
        else { _ = Issue.record("a millisecond before closing is still open"); return }
    }

    @Test func a_repeat_gets_the_same_answer_even_after_the_code_or_session_expired() {
        let first = Self.opened.addingTimeInterval(42)
        let retry = facts {
            $0.existing = (.present, first)
            $0.code = .expired(step: 1)
            $0.closedAt = Self.opened.addingTimeInterval(60)
            $0.now = Self.opened.addingTimeInterval(120)
        }
        #expect(CheckInPolicy.decide(retry) == .alreadyCheckedIn(status: .present, at: first))
        #expect(refusal(facts { $0.existing = (.late, first); $0.code = .invalid }) == .invalidCode)
    }

    @Test func a_shared_device_is_refused_and_flagged() {
        guard case .refused(let refusal, let flag) = CheckInPolicy.decide(facts { $0.deviceUsedByOtherStudent = true })
        else { _ = Issue.record("expected a refusal"); return }
        #expect(refusal.error == .deviceAlreadyUsed)
        #expect(flag)
    }

    @Test func every_refusal_has_a_stable_code_and_a_sentence() {
        for error in CheckInError.allCases {
            let refusal = CheckInRefusal(error, distance: 84)
            #expect(refusal.error.code.allSatisfy { $0.isLowercase || $0 == "_" })
            #expect(refusal.message.hasSuffix(".") && refusal.message.count > 30)
        }
        #expect(CheckInRefusal(.codeExpired).message.contains("scan the code on the screen again"))
    }
}
