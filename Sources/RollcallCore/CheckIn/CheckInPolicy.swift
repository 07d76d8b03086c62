import Foundation

/// A student's attendance in one session.
public enum AttendanceStatus: String, CaseIterable, Codable, Sendable {
    case present, late, excused, absent
}

/// Why a check-in was refused; the raw value is the stable code clients see.
public enum CheckInError: String, Error, CaseIterable, Sendable {
    /// The code was not made by this session (or is malformed).
    case invalidCode = "invalid_code"
    /// The session has not opened or has closed.
    case sessionClosed = "session_closed"
    /// The code is older than the grace window.
    case codeExpired = "code_expired"
    /// The student is not on the course's roster.
    case notEnrolled = "not_enrolled"
    /// The session needs a location and none came.
    case locationRequired = "location_required"
    /// The location came, but too imprecise to decide.
    case locationInaccurate = "location_inaccurate"
    /// The student is outside the classroom's radius.
    case outOfRange = "out_of_range"
    /// The check-in came from an address outside the allowed networks.
    case networkNotAllowed = "network_not_allowed"
    /// The course asks for a passkey and none was presented.
    case verificationRequired = "verification_required"
    /// The passkey did not prove the student's identity.
    case verificationFailed = "verification_failed"
    /// This device already checked in another student in this session.
    case deviceAlreadyUsed = "device_already_used"

    public var code: String { rawValue }
}

/// A refusal as the student reads it: the stable code and a sentence saying what to do next.
public struct CheckInRefusal: Equatable, Sendable {
    public var error: CheckInError
    public var message: String
    /// Metres from the classroom, for `out_of_range`.
    public var distance: Double?

    public init(_ error: CheckInError, distance: Double? = nil) {
        self.error = error
        self.distance = distance
        self.message = Self.message(for: error, distance: distance)
    }

    static func message(for error: CheckInError, distance: Double?) -> String {
        switch error {
        case .invalidCode:
            "This is not a check-in code of this session. Scan the code on the screen in your classroom."
        case .sessionClosed: "This session is not open for check-in. Ask your teacher if you think it should be."
        case .codeExpired: "The code has changed — scan the code on the screen again."
        case .notEnrolled: "You are not on this course's roster. Join the course with its join code, then scan again."
        case .locationRequired:
            "This session needs your location to check you in. Allow location access for this page and try again."
        case .locationInaccurate:
            "Your phone's location is not precise enough to tell if you are in the room. Turn on precise location, "
                + "step away from thick walls, and try again."
        case .outOfRange:
            "You are \(Int((distance ?? 0).rounded())) m from the classroom — move closer and try again."
        case .networkNotAllowed:
            "Check-in works only from the school's network here. Connect to the classroom Wi-Fi and try again."
        case .verificationRequired: "This course asks you to confirm it is you with your passkey. Try again and confirm."
        case .verificationFailed:
            "Your passkey could not confirm it is you. Try again, or ask your teacher to mark you by hand."
        case .deviceAlreadyUsed:
            "This phone already checked in another student in this session. Check in on your own phone; your "
                + "teacher has been told."
        }
    }
}

/// The outcome of a passkey check at check-in.
public enum Verification: Equatable, Sendable {
    case none, verified, failed
}

/// Everything the server gathered about one check-in attempt; the policy needs nothing else.
public struct CheckInFacts: Sendable {
    public var code: RotatingCode.CodeCheck
    public var now: Date
    public var openedAt: Date?
    public var closesAt: Date?
    public var closedAt: Date?
    /// Seconds after opening from which a check-in is late; `nil`: never late.
    public var lateAfter: TimeInterval?
    public var enrolled: Bool
    public var autoEnrol: Bool
    public var geofence: Geofence?
    public var reading: LocationReading?
    public var allowedNetworks: [NetworkRange]
    public var clientAddress: String?
    public var verificationRequired: Bool
    public var verification: Verification
    public var deviceUsedByOtherStudent: Bool
    public var existing: (status: AttendanceStatus, at: Date)?

    public init(
        code: RotatingCode.CodeCheck, now: Date, openedAt: Date?, closesAt: Date? = nil, closedAt: Date? = nil,
        lateAfter: TimeInterval? = nil, enrolled: Bool = true, autoEnrol: Bool = false, geofence: Geofence? = nil,
        reading: LocationReading? = nil, allowedNetworks: [NetworkRange] = [], clientAddress: String? = nil,
        verificationRequired: Bool = false, verification: Verification = .none, deviceUsedByOtherStudent: Bool = false,
        existing: (status: AttendanceStatus, at: Date)? = nil
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

/// What the policy decided.
public enum CheckInDecision: Equatable, Sendable {
    /// Record this status at this time.
    case checkedIn(status: AttendanceStatus, at: Date)
    /// A record exists: answer with it again, unchanged (retries are idempotent).
    case alreadyCheckedIn(status: AttendanceStatus, at: Date)
    /// Refuse; `flagDevice` asks the server to tell the teacher about a shared phone.
    case refused(CheckInRefusal, flagDevice: Bool)
}

/// The one rule that decides a check-in.
public enum CheckInPolicy {
    /// Checks, in order: authentic code; an existing record (answered again, so a retry after the code or the
    /// session expired still gets the same answer); open session; fresh code; enrolment; location; network;
    /// identity; device. A check-in after the late threshold is recorded as late.
    public static func decide(_ facts: CheckInFacts) -> CheckInDecision {
        if case .invalid = facts.code { return refuse(.invalidCode) }
        if let existing = facts.existing { return .alreadyCheckedIn(status: existing.status, at: existing.at) }
        let phase = SessionPhase.at(
            facts.now, openedAt: facts.openedAt, closesAt: facts.closesAt, closedAt: facts.closedAt
        )
        guard phase == .open, let openedAt = facts.openedAt else { return refuse(.sessionClosed) }
        switch facts.code {
        case .fresh: break
        case .expired: return refuse(.codeExpired)
        case .fromFuture, .invalid: return refuse(.invalidCode)
        }
        guard facts.enrolled || facts.autoEnrol else { return refuse(.notEnrolled) }
        if let geofence = facts.geofence {
            switch geofence.check(facts.reading) {
            case .inside: break
            case .noReading: return refuse(.locationRequired)
            case .tooInaccurate: return refuse(.locationInaccurate)
            case .outside(let distance): return .refused(CheckInRefusal(.outOfRange, distance: distance), flagDevice: false)
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
        if facts.deviceUsedByOtherStudent {
            return .refused(CheckInRefusal(.deviceAlreadyUsed), flagDevice: true)
        }
        let late = facts.lateAfter.map { facts.now.timeIntervalSince(openedAt) >= $0 } ?? false
        return .checkedIn(status: late ? .late : .present, at: facts.now)
    }

    private static func refuse(_ error: CheckInError) -> CheckInDecision {
        .refused(CheckInRefusal(error), flagDevice: false)
    }
}
