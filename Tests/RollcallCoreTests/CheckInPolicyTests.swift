import Foundation
import Testing

@testable import RollcallCore

@Suite("Check-in policy", .timeLimit(.minutes(5)))
struct CheckInPolicyTests {
    static let opened = Date(timeIntervalSince1970: 1_800_000_000)
    static let room = Geofence(center: GeoPoint(latitude: 52, longitude: 4), radius: 30)
    static let metresPerDegree = GeoPoint.earthRadius * .pi / 180

    static func reading(north metres: Double, accuracy: Double = 8) -> LocationReading {
        LocationReading(point: GeoPoint(latitude: 52 + metres / metresPerDegree, longitude: 4), accuracy: accuracy)
    }

    /// A check-in that passes every check, ten seconds after opening; each test breaks something.
    static func facts(_ change: (inout CheckInFacts) -> Void = { _ in }) -> CheckInFacts {
        var facts = CheckInFacts(
            code: .fresh(step: 2), now: opened.addingTimeInterval(10), openedAt: opened,
            closesAt: opened.addingTimeInterval(3600), lateAfter: 600, enrolled: true, geofence: room,
            reading: reading(north: 10), allowedNetworks: [NetworkRange(cidr: "10.0.0.0/8")!],
            clientAddress: "10.1.1.1", verificationRequired: true, verification: .verified
        )
        change(&facts)
        return facts
    }

    static func refusal(_ facts: CheckInFacts) -> CheckInError? {
        if case .refused(let refusal, _) = CheckInPolicy.decide(facts) { return refusal.error }
        return nil
    }

    /// One way to fail one check, named for the test log, in the policy's order.
    enum Fault: String, CaseIterable, Sendable {
        case forgedCode, futureCode, closedByTeacher, timedOut, notYetOpen, neverOpened, expiredCode, notEnrolled,
            noReading, impossiblePoint, poorAccuracy, straddlingCircle, farAway, foreignNetwork, unknownAddress,
            noPasskey, failedPasskey, sharedPhone

        var error: CheckInError {
            switch self {
            case .forgedCode, .futureCode: .invalidCode
            case .closedByTeacher, .timedOut, .notYetOpen, .neverOpened: .sessionClosed
            case .expiredCode: .codeExpired
            case .notEnrolled: .notEnrolled
            case .noReading, .impossiblePoint: .locationRequired
            case .poorAccuracy, .straddlingCircle: .locationInaccurate
            case .farAway: .outOfRange
            case .foreignNetwork, .unknownAddress: .networkNotAllowed
            case .noPasskey: .verificationRequired
            case .failedPasskey: .verificationFailed
            case .sharedPhone: .deviceAlreadyUsed
            }
        }

        /// Faults in one group change the same fact, so only one of them applies at a time.
        var group: Int {
            switch self {
            case .forgedCode, .futureCode, .expiredCode: 0
            case .closedByTeacher, .timedOut, .notYetOpen, .neverOpened: 1
            case .notEnrolled: 2
            case .noReading, .impossiblePoint, .poorAccuracy, .straddlingCircle, .farAway: 3
            case .foreignNetwork, .unknownAddress: 4
            case .noPasskey, .failedPasskey: 5
            case .sharedPhone: 6
            }
        }

        func apply(to facts: inout CheckInFacts) {
            switch self {
            case .forgedCode: facts.code = .invalid
            case .futureCode: facts.code = .fromFuture(step: 3)
            case .closedByTeacher: facts.closedAt = CheckInPolicyTests.opened.addingTimeInterval(5)
            case .timedOut: facts.closesAt = CheckInPolicyTests.opened.addingTimeInterval(10)
            case .notYetOpen: facts.openedAt = CheckInPolicyTests.opened.addingTimeInterval(60)
            case .neverOpened: facts.openedAt = nil
            case .expiredCode: facts.code = .expired(step: 0)
            case .notEnrolled: facts.enrolled = false
            case .noReading: facts.reading = nil
            case .impossiblePoint:
                facts.reading = LocationReading(point: GeoPoint(latitude: 91, longitude: 4), accuracy: 5)
            case .poorAccuracy: facts.reading = CheckInPolicyTests.reading(north: 10, accuracy: 150)
            case .straddlingCircle: facts.reading = CheckInPolicyTests.reading(north: 50, accuracy: 20)
            case .farAway: facts.reading = CheckInPolicyTests.reading(north: 84, accuracy: 20)
            case .foreignNetwork: facts.clientAddress = "192.168.0.5"
            case .unknownAddress: facts.clientAddress = nil
            case .noPasskey: facts.verification = .none
            case .failedPasskey: facts.verification = .failed
            case .sharedPhone: facts.deviceUsedByOtherStudent = true
            }
        }
    }

    static let order: [CheckInError] = [
        .invalidCode, .sessionClosed, .codeExpired, .notEnrolled, .locationRequired, .locationInaccurate, .outOfRange,
        .networkNotAllowed, .verificationRequired, .verificationFailed, .deviceAlreadyUsed,
    ]

    // MARK: Each check

    @Test func a_student_who_passes_every_check_is_present() {
        #expect(
            CheckInPolicy.decide(Self.facts()) == .checkedIn(status: .present, at: Self.opened.addingTimeInterval(10)))
    }

    @Test(arguments: Fault.allCases)
    func each_fault_refuses_with_its_own_code(fault: Fault) {
        let decision = CheckInPolicy.decide(Self.facts(fault.apply))
        guard case .refused(let refusal, let flagDevice) = decision else {
            Issue.record("\(fault) was not refused: \(decision)")
            return
        }
        #expect(refusal.error == fault.error)
        #expect(flagDevice == (fault == .sharedPhone), "only a shared phone is flagged to the teacher")
    }

    @Test func the_first_failing_check_in_order_decides() {
        var generator = SeededRandom(seed: 29)
        let groups = Dictionary(grouping: Fault.allCases, by: \.group)
        for _ in 0..<500 {
            var facts = Self.facts()
            var expected: CheckInError?
            for group in groups.keys.sorted() where Bool.random(using: &generator) {
                let fault = groups[group]!.randomElement(using: &generator)!
                fault.apply(to: &facts)
                if expected.map({ Self.order.firstIndex(of: fault.error)! < Self.order.firstIndex(of: $0)! }) ?? true {
                    expected = fault.error
                }
            }
            let decision = CheckInPolicy.decide(facts)
            switch (decision, expected) {
            case (.refused(let refusal, let flag), let expected?):
                #expect(refusal.error == expected)
                #expect(flag == (expected == .deviceAlreadyUsed))
            case (.checkedIn(.present, _), nil): break
            default: Issue.record("expected \(String(describing: expected)), got \(decision)")
            }
        }
    }

    @Test func checks_that_do_not_apply_are_skipped() {
        let open = Self.facts {
            $0.geofence = nil
            $0.reading = nil
            $0.allowedNetworks = []
            $0.clientAddress = nil
            $0.verificationRequired = false
            $0.verification = .failed
        }
        #expect(CheckInPolicy.decide(open) == .checkedIn(status: .present, at: open.now))
    }

    @Test func a_course_that_enrols_on_check_in_takes_students_not_on_the_roster() {
        let walkIn = Self.facts {
            $0.enrolled = false
            $0.autoEnrol = true
        }
        #expect(CheckInPolicy.decide(walkIn) == .checkedIn(status: .present, at: walkIn.now))
    }

    @Test func any_allowed_network_will_do_and_mapped_addresses_count_as_ipv4() {
        let networks = ["192.0.2.0/24", "10.0.0.0/8", "2001:db8::/32"].map { NetworkRange(cidr: $0)! }
        for address in ["10.1.1.1", "::ffff:10.1.1.1", "192.0.2.200", "2001:db8::42"] {
            let facts = Self.facts {
                $0.allowedNetworks = networks
                $0.clientAddress = address
            }
            #expect(CheckInPolicy.decide(facts) == .checkedIn(status: .present, at: facts.now), "\(address)")
        }
        #expect(
            Self.refusal(
                Self.facts {
                    $0.allowedNetworks = networks; $0.clientAddress = "198.51.100.1"
                }) == .networkNotAllowed)
    }

    // MARK: Location

    @Test func out_of_range_says_how_far_in_rounded_metres() {
        guard case .refused(let refusal, false) = CheckInPolicy.decide(Self.facts(Fault.farAway.apply)) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(refusal.error == .outOfRange)
        #expect(refusal.distance.map { $0.rounded() } == 84)
        #expect(refusal.message == "You are 84 m from the classroom — move closer and try again.")
    }

    @Test func at_the_edge_of_reach_the_student_is_in() {
        let atEdge = Self.facts { $0.reading = Self.reading(north: 41.999, accuracy: 30) }
        #expect(CheckInPolicy.decide(atEdge) == .checkedIn(status: .present, at: atEdge.now))
        #expect(Self.refusal(Self.facts { $0.reading = Self.reading(north: 42.01, accuracy: 0) }) == .outOfRange)
        #expect(
            Self.refusal(Self.facts { $0.reading = Self.reading(north: 42.01, accuracy: 1) }) == .locationInaccurate)
    }

    @Test(arguments: [
        (0.0, "0 m"), (84.4, "84 m"), (84.5, "85 m"), (999.4, "999 m"), (999.5, "1.0 km"), (1249, "1.2 km"),
        (1250, "1.3 km"), (9949, "9.9 km"), (9950, "10 km"), (412_345, "412 km"), (.infinity, "far"), (.nan, "far"),
    ])
    func distances_are_spoken_plainly(metres: Double, spoken: String) {
        #expect(CheckInError.spoken(metres) == spoken)
    }

    // MARK: Time

    @Test func the_late_threshold_instant_itself_is_still_on_time() {
        let justBefore = Self.facts { $0.now = Self.opened.addingTimeInterval(599.999) }
        let exactly = Self.facts { $0.now = Self.opened.addingTimeInterval(600) }
        let justAfter = Self.facts { $0.now = Self.opened.addingTimeInterval(600.001) }
        #expect(CheckInPolicy.decide(justBefore) == .checkedIn(status: .present, at: justBefore.now))
        #expect(CheckInPolicy.decide(exactly) == .checkedIn(status: .present, at: exactly.now))
        #expect(CheckInPolicy.decide(justAfter) == .checkedIn(status: .late, at: justAfter.now))
    }

    @Test func without_a_threshold_no_one_is_late_and_at_zero_everyone_after_opening_is() {
        let never = Self.facts {
            $0.lateAfter = nil
            $0.now = Self.opened.addingTimeInterval(3599)
        }
        #expect(CheckInPolicy.decide(never) == .checkedIn(status: .present, at: never.now))
        let atOpening = Self.facts {
            $0.lateAfter = 0
            $0.now = Self.opened
        }
        #expect(CheckInPolicy.decide(atOpening) == .checkedIn(status: .present, at: Self.opened))
        let second = Self.facts { $0.lateAfter = 0 }
        #expect(CheckInPolicy.decide(second) == .checkedIn(status: .late, at: second.now))
    }

    @Test func the_session_is_open_from_its_opening_instant() {
        let atOpening = Self.facts { $0.now = Self.opened }
        #expect(CheckInPolicy.decide(atOpening) == .checkedIn(status: .present, at: Self.opened))
        #expect(Self.refusal(Self.facts { $0.now = Self.opened.addingTimeInterval(-0.001) }) == .sessionClosed)
    }

    @Test func a_session_closing_at_the_instant_of_check_in_refuses_it() {
        let closing = Self.opened.addingTimeInterval(300)
        #expect(
            Self.refusal(
                Self.facts {
                    $0.now = closing; $0.closedAt = closing
                }) == .sessionClosed)
        #expect(
            Self.refusal(
                Self.facts {
                    $0.now = closing; $0.closesAt = closing
                }) == .sessionClosed)
        let instantBefore = Self.facts {
            $0.now = closing.addingTimeInterval(-0.001)
            $0.closesAt = closing
        }
        #expect(CheckInPolicy.decide(instantBefore) == .checkedIn(status: .present, at: instantBefore.now))
        let closedAfterDecision = Self.facts {
            $0.now = closing.addingTimeInterval(-0.001)
            $0.closedAt = closing
        }
        #expect(
            CheckInPolicy.decide(closedAfterDecision) == .checkedIn(status: .present, at: closedAfterDecision.now),
            "a close recorded after the decision instant does not reach back"
        )
    }

    // MARK: Repeats

    @Test func a_repeat_gets_the_same_answer_even_after_the_code_or_session_expired() {
        let first = Self.opened.addingTimeInterval(42)
        let retry = Self.facts {
            $0.existing = (.present, first)
            $0.code = .expired(step: 1)
            $0.closedAt = Self.opened.addingTimeInterval(60)
            $0.now = Self.opened.addingTimeInterval(120)
            $0.reading = nil
        }
        #expect(CheckInPolicy.decide(retry) == .alreadyCheckedIn(status: .present, at: first))
        #expect(CheckInPolicy.decide(retry) == CheckInPolicy.decide(retry))
        let lateRetry = Self.facts { $0.existing = (.late, first) }
        #expect(CheckInPolicy.decide(lateRetry) == .alreadyCheckedIn(status: .late, at: first))
    }

    @Test func a_repeat_is_not_flagged_and_keeps_a_teachers_mark() {
        let first = Self.opened.addingTimeInterval(42)
        let shared = Self.facts {
            $0.existing = (.present, first)
            $0.deviceUsedByOtherStudent = true
        }
        #expect(CheckInPolicy.decide(shared) == .alreadyCheckedIn(status: .present, at: first))
        for status in AttendanceStatus.allCases {
            let marked = Self.facts { $0.existing = (status, first) }
            #expect(CheckInPolicy.decide(marked) == .alreadyCheckedIn(status: status, at: first))
        }
    }

    @Test func a_repeat_with_a_code_that_is_not_authentic_is_still_refused() {
        let first = Self.opened.addingTimeInterval(42)
        #expect(
            Self.refusal(
                Self.facts {
                    $0.existing = (.present, first); $0.code = .invalid
                }) == .invalidCode)
        #expect(
            Self.refusal(
                Self.facts {
                    $0.existing = (.present, first); $0.code = .fromFuture(step: 9)
                }) == .invalidCode)
    }

    // MARK: Messages

    @Test func the_error_codes_are_the_published_ones() {
        #expect(
            CheckInError.allCases.map(\.code.rawValue) == [
                "invalid_code", "session_closed", "code_expired", "not_enrolled", "location_required",
                "location_inaccurate", "out_of_range", "network_not_allowed", "verification_required",
                "verification_failed", "device_already_used",
            ])
        #expect(Set(Self.order) == Set(CheckInError.allCases) && Self.order.count == CheckInError.allCases.count)
        #expect(CheckInError.allCases.allSatisfy { $0.code.rawValue == $0.rawValue })
    }

    @Test(arguments: CheckInError.allCases)
    func every_refusal_has_a_sentence_saying_what_to_do(error: CheckInError) {
        let refusal = CheckInRefusal(error, distance: 84)
        #expect(refusal.code.rawValue == error.rawValue)
        #expect(refusal.message == error.message(distance: 84))
        #expect(refusal.message.description.hasSuffix("."))
        #expect(refusal.message.description.count > 40 && refusal.message.description.count < 200)
        #expect(refusal.message.description.first?.isUppercase == true)
        #expect(!refusal.message.description.contains(error.code.rawValue), "students read sentences, not codes")
    }

    @Test(arguments: CheckInError.allCases, RecordSource.allCases)
    func a_refusal_speaks_of_the_way_the_student_checked_in(error: CheckInError, via: RecordSource) {
        var refusal = CheckInRefusal(error, distance: 84)
        refusal.via = via
        #expect(refusal.message.description.hasSuffix(".") && refusal.message.description.first?.isUppercase == true)
        if via == .typed {
            #expect(
                !refusal.message.description.lowercased().contains("scan"),
                "a typed code is not scanned: \(refusal.message)")
        }
        let ownSentence: Bool =
            switch (error, via) {
            case (.invalidCode, .typed), (.codeExpired, .typed), (.notEnrolled, .typed), (.notEnrolled, .qr),
                (.notEnrolled, .api):
                true
            default: false
            }
        if !ownSentence { #expect(refusal.message == CheckInRefusal(error, distance: 84).message) }
    }

    @Test func a_student_not_on_the_roster_is_told_whether_the_scan_can_join_the_course() {
        var refusal = CheckInRefusal(.notEnrolled)
        refusal.via = .qr
        refusal.joinable = true
        #expect(
            refusal.message == "You are not on this course's roster yet. Join it and check in at once, with this scan.")
        refusal.joinable = false
        #expect(refusal.message.description.hasSuffix("Ask your teacher to add you."))
        refusal.via = .spot
        #expect(refusal.message == CheckInRefusal(.notEnrolled).message, "a spot has no scan to join with")
    }

    @Test func the_expired_code_message_is_the_agreed_sentence() {
        #expect(CheckInRefusal(.codeExpired).message == "The code has changed — scan the code on the screen again.")
        #expect(
            CheckInError.outOfRange.message(distance: 1530)
                == "You are 1.5 km from the classroom — move closer and try again.")
    }
}
