import Foundation
import RollcallProtocol

/// A student's attendance in one session.
public enum AttendanceStatus: String, CaseIterable, Codable, Sendable {
    case present, late, excused, absent
}

/// Why a check-in was refused; the raw value is the stable code clients see and may switch on.
public enum CheckInError: String, Error, CaseIterable, Sendable {
    /// The code was not made by this session, is malformed, or claims a step that has not begun.
    case invalidCode = "invalid_code"
    /// The session has not opened, was closed, or ran out of time.
    case sessionClosed = "session_closed"
    /// The code is authentic but older than the grace window.
    case codeExpired = "code_expired"
    /// The student is not on the course's roster and the course does not enrol on check-in.
    case notEnrolled = "not_enrolled"
    /// The session needs a location and none (or no possible place) came.
    case locationRequired = "location_required"
    /// A location came, but too imprecise to decide.
    case locationInaccurate = "location_inaccurate"
    /// The student is certainly outside the classroom's reach.
    case outOfRange = "out_of_range"
    /// The check-in came from an address outside the allowed networks.
    case networkNotAllowed = "network_not_allowed"
    /// The course asks for a passkey and none was presented.
    case verificationRequired = "verification_required"
    /// The passkey did not prove the student's identity.
    case verificationFailed = "verification_failed"
    /// This device already checked in another student in this session.
    case deviceAlreadyUsed = "device_already_used"

    /// The stable code, as clients see it (the same as the raw value).
    public var code: ErrorCode {
        switch self {
        case .invalidCode: .invalidCode
        case .sessionClosed: .sessionClosed
        case .codeExpired: .codeExpired
        case .notEnrolled: .notEnrolled
        case .locationRequired: .locationRequired
        case .locationInaccurate: .locationInaccurate
        case .outOfRange: .outOfRange
        case .networkNotAllowed: .networkNotAllowed
        case .verificationRequired: .verificationRequired
        case .verificationFailed: .verificationFailed
        case .deviceAlreadyUsed: .deviceAlreadyUsed
        }
    }

    /// The sentence a student reads: what happened and what to do next, for the way they checked in (`via`: a code
    /// typed by hand is not scanned again). `distance` (metres from the teacher's point) is used by `outOfRange` only.
    public func message(distance: Double? = nil, via: RecordSource? = nil, joinable: Bool? = nil) -> Phrase {
        switch (self, via) {
        case (.invalidCode, .typed):
            "That is not the code on the screen. Check the digits and type the code shown there now."
        case (.codeExpired, .typed):
            "The code has changed since you read it — type the code on the screen now."
        case (.notEnrolled, .typed):
            "You are not on this course's roster. Join the course with its join code, then type the code again."
        case (.notEnrolled, .qr), (.notEnrolled, .api):
            joinable == true
                ? "You are not on this course's roster yet. Join it and check in at once, with this scan."
                : "You are not on this course's roster, and it takes new students only from the teacher. Ask your teacher to add you."
        default: sentence(distance: distance)
        }
    }

    private func sentence(distance: Double?) -> Phrase {
        switch self {
        case .invalidCode:
            "This is not a check-in code for this session. Scan the code on the screen in your classroom."
        case .sessionClosed:
            "This session is not taking check-ins: it has closed, or not opened yet. If you are in class, ask your teacher to mark you present."
        case .codeExpired:
            "The code has changed — scan the code on the screen again."
        case .notEnrolled:
            "You are not on this course's roster. Join the course with its join code, then scan again."
        case .locationRequired:
            "This session needs your location to check you in. Allow location access for this page and try again."
        case .locationInaccurate:
            "Your phone's location is too imprecise to tell if you are in the room. Turn on precise location and try again, or ask your teacher to mark you present."
        case .outOfRange:
            "You are \(Self.spoken(distance ?? 0)) from the classroom — move closer and try again."
        case .networkNotAllowed:
            "Check-in here works only from the school's network. Connect to the classroom Wi-Fi and try again."
        case .verificationRequired:
            "This course asks you to confirm it is you with your passkey. Try again and confirm when asked."
        case .verificationFailed:
            "Your passkey could not confirm it is you. Try again, or ask your teacher to mark you by hand."
        case .deviceAlreadyUsed:
            "This phone already checked in another student in this session. Check in on your own phone; your teacher has been told."
        }
    }

    /// Whole metres below a kilometre ("84 m"); then tenths of a kilometre below 10 km ("1.3 km"); then whole
    /// kilometres ("412 km"). Rounded half up, with no locale, so the sentence is the same on every server.
    static func spoken(_ metres: Double) -> String {
        guard metres.isFinite, metres >= 0 else { return "far" }
        let whole = Int(min(metres, 1e9).rounded())
        if whole < 1000 { return "\(whole) m" }
        let tenths = Int((metres / 100).rounded())
        if tenths < 100 { return "\(tenths / 10).\(tenths % 10) km" }
        return "\(Int((min(metres, 1e9) / 1000).rounded())) km"
    }
}

/// A refusal as the student reads it: the stable code, a sentence saying what to do next, and the distance for
/// `out_of_range`.
public struct CheckInRefusal: Error, Equatable, Sendable {
    public var error: CheckInError
    /// Metres from the teacher's point, for `out_of_range`.
    public var distance: Double?
    /// The classroom's reach in metres, for `out_of_range`.
    public var radius: Double?
    /// For `verification_failed`: which step of the passkey check failed, for clients and logs; the student's
    /// sentence stays the same whatever the step.
    public var step: String?
    /// How the student presented the code, when known: the sentence fits the path they used.
    public var via: RecordSource?
    /// For `not_enrolled` from a scan: whether the course lets the student join with this very scan.
    public var joinable: Bool?

    public init(_ error: CheckInError, distance: Double? = nil, radius: Double? = nil) {
        self.error = error
        self.distance = distance
        self.radius = radius
    }

    /// The stable code, as clients see it.
    public var code: ErrorCode { error.code }
    /// The sentence for the student.
    public var message: Phrase { error.message(distance: distance, via: via, joinable: joinable) }
}

/// The outcome of the passkey step at check-in, as the server found it.
public enum Verification: Equatable, Sendable {
    /// No passkey assertion came with the request.
    case none
    /// An assertion came and verified for this student's registered passkey.
    case verified
    /// An assertion came and did not verify, or verified for someone else.
    case failed
}

/// Everything the server gathered about one check-in attempt; the policy needs nothing else and reads no clock.
public struct CheckInFacts: Sendable {
    /// The presented code checked against the session (`.fresh` for a spot check-in, which has no code).
    public var code: CodeCheck
    /// The decision instant: take it as late as possible, just before deciding, so a session closed meanwhile is
    /// seen as closed.
    public var now: Date
    /// When the session opened; `nil` while it has not.
    public var openedAt: Date?
    /// When its open time runs out, if it does.
    public var closesAt: Date?
    /// When the teacher closed it, if they did.
    public var closedAt: Date?
    /// Seconds after opening after which a check-in is late; `nil` means never late.
    public var lateAfter: TimeInterval?
    /// Whether the student is on the course's roster.
    public var enrolled: Bool
    /// Whether the course puts a student on the roster by checking in.
    public var autoEnrol: Bool
    /// Where students must be, if anywhere.
    public var geofence: Geofence?
    /// Where the phone says it is, if it said.
    public var reading: LocationReading?
    /// Address ranges check-ins must come from; empty means any.
    public var allowedNetworks: [NetworkRange]
    /// The client's address as the server's socket saw it.
    public var clientAddress: String?
    /// Whether the course asks for a passkey at check-in.
    public var verificationRequired: Bool
    public var verification: Verification
    /// Whether the device already checked in a different student in this session.
    public var deviceUsedByOtherStudent: Bool
    /// This student's record in this session, if there is one.
    public var existing: (status: AttendanceStatus, at: Date)?

    public init(
        code: CodeCheck, now: Date, openedAt: Date?, closesAt: Date? = nil, closedAt: Date? = nil,
        lateAfter: TimeInterval? = nil, enrolled: Bool = true, autoEnrol: Bool = false, geofence: Geofence? = nil,
        reading: LocationReading? = nil, allowedNetworks: [NetworkRange] = [], clientAddress: String? = nil,
        verificationRequired: Bool = false, verification: Verification = .none,
        deviceUsedByOtherStudent: Bool = false, existing: (status: AttendanceStatus, at: Date)? = nil
    ) {
        self.code = code
        self.now = now
        self.openedAt = openedAt
        self.closesAt = closesAt
        self.closedAt = closedAt
        self.lateAfter = lateAfter
        self.enrolled = enrolled
        self.autoEnrol = autoEnrol
        self.geofence = geofence
        self.reading = reading
        self.allowedNetworks = allowedNetworks
        self.clientAddress = clientAddress
        self.verificationRequired = verificationRequired
        self.verification = verification
        self.deviceUsedByOtherStudent = deviceUsedByOtherStudent
        self.existing = existing
    }
}

/// What the policy decided about one check-in.
public enum CheckInDecision: Equatable, Sendable {
    /// Record this status at this instant.
    case checkedIn(status: AttendanceStatus, at: Date)
    /// A record exists: answer with it again, unchanged, as a success.
    case alreadyCheckedIn(status: AttendanceStatus, at: Date)
    /// Refuse; `flagDevice` asks the server to tell the teacher about a shared phone.
    case refused(CheckInRefusal, flagDevice: Bool)
}

/// The one rule that decides a check-in from the facts the server gathered.
public enum CheckInPolicy {
    /// Checks in this order; the first that fails decides:
    /// 1. the code is authentic (`.fresh` or `.expired`) — else `invalid_code`; a code from the future is refused
    ///    here too, since only a leaked secret or a clock set back can make one;
    /// 2. an existing record is answered again, unchanged — before the session and freshness checks, so a retry of a
    ///    check-in that was recorded (say the phone lost the answer, and by now the code has changed or the session
    ///    closed) gets the same answer, not an error: the request is idempotent. Any status counts, including a
    ///    teacher's mark, which a scan never overwrites;
    /// 3. the session is open at `now` (opened, not closed at or before `now`, `now < closesAt`) — `session_closed`;
    /// 4. the code is fresh — `code_expired`;
    /// 5. the student is enrolled, or the course enrols on check-in — `not_enrolled`;
    /// 6. location, where there is a geofence — `location_required`, `location_inaccurate`, `out_of_range`;
    /// 7. network, where ranges are set — `network_not_allowed` (also when the address is unknown);
    /// 8. identity, where a passkey is required — `verification_required`, `verification_failed`;
    /// 9. device, so one phone checks in one student — `device_already_used`, flagged to the teacher.
    ///
    /// Cheap facts about the session come before facts about the student, and the device check comes last so a
    /// phone is flagged only for an attempt that would otherwise have succeeded. A check-in more than `lateAfter`
    /// seconds after opening is `late`; at the threshold instant itself it is still `present`.
    public static func decide(_ facts: CheckInFacts) -> CheckInDecision {
        switch facts.code {
        case .fresh, .expired: break
        case .fromFuture, .invalid: return refuse(.invalidCode)
        }
        if let existing = facts.existing { return .alreadyCheckedIn(status: existing.status, at: existing.at) }
        let phase = SessionPhase.at(
            facts.now, openedAt: facts.openedAt, closesAt: facts.closesAt, closedAt: facts.closedAt
        )
        guard phase == .open, let openedAt = facts.openedAt else { return refuse(.sessionClosed) }
        guard case .fresh = facts.code else { return refuse(.codeExpired) }
        guard facts.enrolled || facts.autoEnrol else { return refuse(.notEnrolled) }
        if let geofence = facts.geofence {
            switch geofence.check(facts.reading) {
            case .inside: break
            case .noReading: return refuse(.locationRequired)
            case .tooInaccurate: return refuse(.locationInaccurate)
            case .outside(let distance):
                return .refused(
                    CheckInRefusal(.outOfRange, distance: distance, radius: geofence.radius), flagDevice: false)
            }
        }
        if !facts.allowedNetworks.isEmpty {
            guard let address = facts.clientAddress, facts.allowedNetworks.contains(where: { $0.contains(address) })
            else { return refuse(.networkNotAllowed) }
        }
        if facts.verificationRequired {
            switch facts.verification {
            case .verified: break
            case .none: return refuse(.verificationRequired)
            case .failed: return refuse(.verificationFailed)
            }
        }
        if facts.deviceUsedByOtherStudent { return .refused(CheckInRefusal(.deviceAlreadyUsed), flagDevice: true) }
        let late = facts.lateAfter.map { facts.now.timeIntervalSince(openedAt) > $0 } ?? false
        return .checkedIn(status: late ? .late : .present, at: facts.now)
    }

    private static func refuse(_ error: CheckInError) -> CheckInDecision {
        .refused(CheckInRefusal(error), flagDevice: false)
    }
}
