import Foundation
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallProtocol
import RollcallStorage
import RollcallWeb
import RollcallWords

/// Takes a check-in from start to finish, for the API and the check-in page alike: gathers the facts (code or
/// ticket, standing, location, network, device, passkey), asks `CheckInPolicy`, records, and answers. It is the one
/// place that decides what a refused check-in may leave behind.
struct CheckInDesk: Sendable {
    let sessions: SessionStore
    let tickets: ScanTickets
    let checkIns: CheckInStore
    let verification: CheckInVerification
    /// Where wrong typed codes are counted, so that every process counts the same tries.
    let counters: AttemptCounters
    /// Where a check-in's heard pseudo-IDs go, in sessions that count classmates' phones.
    let proximity: ProximityStore
    /// The clock pseudo-IDs are issued by, which says which of them are current.
    var proximityClock: @Sendable () -> Date = { Date() }

    /// Wrong typed codes a student may make in one session: six digits can be guessed, so after this only the QR
    /// code (or the teacher) checks them in.
    static let typedCodeTries = 10

    /// One way to prove presence: a ticket from a scan, the code itself, a typed code, or (spot) the session alone.
    struct Attempt: Decodable, Sendable {
        var ticket: String?
        var code: String?
        var sessionId: Int64?
        var typedCode: String?
        var location: LocationInput?
        var deviceId: String?
        /// A passkey assertion, where the course asks for one.
        var passkey: CredentialInput?
        /// Join the course with this scan when not on its roster yet, where the course allows it.
        var join: Bool?
        /// Pseudo-IDs the phone heard in the last few minutes (the app, in sessions that ask for them).
        var heard: [String]?
    }

    struct LocationInput: Codable, Sendable {
        var latitude: Double
        var longitude: Double
        var accuracy: Double
    }

    /// A check-in taken: the record as it stands, and whether this attempt wrote it.
    struct Receipt: Sendable {
        var status: AttendanceStatus
        var at: Date
        var session: ClassSession
        /// `false` when this repeats an earlier answer.
        var new: Bool
    }

    /// The session a check-in is for and how fresh its proof is; each session mode accepts only its own proof.
    struct Presented: Sendable {
        var session: ClassSession
        var code: Proof
        var via: RecordSource
        /// The ticket, when it was scanned signed out: the first student to check in with it owns it.
        var unboundTicket: String?
    }

    /// The proof presented, checked once the session's times are read with the standing: a session's code turns
    /// from the moment it opened, which the memory of its fixed parts may not know yet.
    enum Proof: Sendable {
        case checked(RotatingCode.CodeCheck)
        case code(String)
        case spot

        func check(_ session: ClassSession, at now: Date) -> RotatingCode.CodeCheck {
            switch self {
            case .checked(let check): check
            case .code(let code): session.rotatingCode.validate(code, at: now)
            case .spot: .fresh(step: session.rotatingCode.step(at: now))
            }
        }
    }

    /// A ticket belongs to the student who scanned it signed in, or else to the first who checked in with it.
    static let ticketTaken = AppError(
        .badRequest, CheckInError.invalidCode.code,
        "This check-in link was opened by another student. Scan the code on the screen yourself."
    )

    /// A scan pinned in a ticket, with the session it is for.
    struct Scan: Sendable {
        var ticket: String
        var expiresAt: Date
        var session: ClassSession
    }

    /// Records a scan: a fresh code becomes a ticket, so the rest of the flow has two minutes whatever the code does.
    func scan(code: String, studentID: Int64?, now: Date) async throws -> Scan {
        guard let ref = RotatingCode.sessionRef(of: code), let session = try await sessions.recent(id: ref, now: now)
        else {
            throw CheckInRefusal(.invalidCode)
        }
        switch session.rotatingCode.validate(code, at: now) {
        case .fresh(let step):
            return Scan(
                ticket: tickets.issue(session: session, step: step, scannedAt: now, studentID: studentID),
                expiresAt: now.addingTimeInterval(ScanTickets.lifetime), session: session)
        // A code of a session that has closed since is not merely old: scanning again cannot help.
        case .expired: throw CheckInRefusal(session.phase(at: now) == .open ? .codeExpired : .sessionClosed)
        case .fromFuture, .invalid: throw CheckInRefusal(.invalidCode)
        }
    }

    /// Decides one attempt and records it when the policy admits it.
    func checkIn(_ attempt: Attempt, student: User, clientAddress: String?, now: Date) async throws -> Receipt {
        let presented = try await presented(attempt, studentID: student.id, now: now)
        let reading = try Self.reading(attempt.location)
        let deviceID = try Self.deviceID(attempt.deviceId)
        let heard = try Self.heard(attempt.heard)
        let found = try await checkIns.standing(
            sessionID: presented.session.id, studentID: student.id, deviceID: deviceID,
            ticketHash: presented.unboundTicket)
        guard let standing = found else { throw CheckInRefusal(.invalidCode) }
        var session = presented.session
        standing.moment.apply(to: &session)
        if standing.ticketUsedByOther { throw Self.ticketTaken }
        try AccessRule.requireActive(archived: standing.archived)
        let identity = try await verification.check(
            attempt.passkey, session: session, student: student, ticket: attempt.ticket, deviceID: deviceID, now: now
        )
        // Only a scan in the room proves presence enough to join: not a typed code, not a spot.
        let scanned = presented.via == .qr || presented.via == .api
        let joinable = scanned && standing.joinFromScan
        let code = presented.code.check(session, at: now)
        var facts = Self.facts(
            code, session: session, standing: standing, reading: reading, clientAddress: clientAddress,
            identity: identity, now: now)
        facts.autoEnrol = joinable && attempt.join == true
        // Kept only with an accepted check-in, new or repeated: a check-in refused at the last step (another's
        // phone) joins nobody and leaves the challenge usable.
        let followUp = CheckInFollowUp(
            studentName: student.name, deviceID: deviceID, joins: standing.enrolled ? nil : session.courseId,
            identity: identity.evidence, now: now)
        let seat = AttendanceLedger.Seat(sessionID: session.id, studentID: student.id)
        let receipt: Receipt
        switch CheckInPolicy.decide(facts) {
        case .refused(var refusal, let flagDevice):
            try await flag(
                refusal, sharedDevice: flagDevice, seat: seat, enrolled: standing.enrolled, reading: reading,
                followUp: followUp)
            if refusal.error == .verificationFailed { refusal.step = identity.failedStep }
            if refusal.error == .notEnrolled, scanned { refusal.joinable = joinable }
            refusal.via = presented.via
            throw refusal
        case .alreadyCheckedIn(let status, let at):
            if followUp.keepsAnything {
                try await checkIns.database.transaction { sql in try await followUp.accepted(seat, in: sql) }
            }
            receipt = Receipt(status: status, at: at, session: session, new: false)
        case .checkedIn(let status, let at):
            let distance = reading.flatMap { reading in session.settings.geofence?.center.distance(to: reading.point) }
            let evidence = CheckInEvidence(
                reading: reading, distance: distance, deviceID: deviceID, clientAddress: clientAddress,
                via: presented.via)
            receipt = try await record(
                PendingCheckIn(
                    sessionID: session.id, studentID: student.id, status: status, at: at, evidence: evidence,
                    unboundTicket: presented.unboundTicket, followUp: followUp),
                session: session)
        }
        // What the phone heard goes with an accepted check-in, new or repeated, never with a refused one.
        try await keep(heard, student: student, session: session, new: receipt.new)
        return receipt
    }

    /// The flags a refusal raises: a phone another student used, and the refusal itself, once per student and kind.
    private func flag(
        _ refusal: CheckInRefusal, sharedDevice: Bool, seat: AttendanceLedger.Seat, enrolled: Bool,
        reading: LocationReading?, followUp: CheckInFollowUp
    ) async throws {
        if sharedDevice {
            try await checkIns.database.transaction { sql in try await followUp.sharedDevice(seat, in: sql) }
        }
        guard enrolled, let kind = Self.refusedKind(refusal.error),
            try await !checkIns.hasFlag(sessionID: seat.sessionID, studentID: seat.studentID, kind: kind)
        else { return }
        try await checkIns.database.transaction { sql in
            try await followUp.refused(seat, kind: kind, refusal: refusal, reading: reading, in: sql)
        }
    }

    /// An admitted check-in through the group commit, which writes the row and everything decided beside it at once.
    private func record(_ pending: PendingCheckIn, session: ClassSession) async throws -> Receipt {
        switch try await checkIns.batcher.record(pending) {
        case .recorded(let status, let at): return Receipt(status: status, at: at, session: session, new: true)
        case .existing(let status, let at): return Receipt(status: status, at: at, session: session, new: false)
        case .deviceTaken: throw CheckInRefusal(.deviceAlreadyUsed)
        case .ticketTaken: throw Self.ticketTaken
        case .joinRefused(let refusal): throw refusal.error
        }
    }

    /// Keeps what an accepted check-in's phone heard, where the session counts classmates' phones; elsewhere it is
    /// not kept at all. A new check-in first lets count the classmates' phones that heard this student's before.
    private func keep(_ heard: [String], student: User, session: ClassSession, new: Bool) async throws {
        guard session.settings.countsProximity else { return }
        if new { try await proximity.announce(student.id, sessionID: session.id) }
        guard !heard.isEmpty else { return }
        _ = try await proximity.heard(heard, by: student.id, sessionID: session.id, now: proximityClock())
    }

    /// The flag a refused check-in leaves for the teacher: only the refusals a phone may not be able to mend.
    static func refusedKind(_ error: CheckInError) -> FlagKind? {
        switch error {
        case .outOfRange: .triedOutOfRange
        case .locationInaccurate: .triedImpreciseLocation
        default: nil
        }
    }

    /// Everything the policy decides from, as gathered.
    private static func facts(
        _ code: RotatingCode.CodeCheck, session: ClassSession, standing: CheckInStore.Standing,
        reading: LocationReading?, clientAddress: String?, identity: CheckInVerification.Outcome, now: Date
    ) -> CheckInFacts {
        let settings = session.settings
        return CheckInFacts(
            code: code, now: now, openedAt: session.openedAt, closesAt: session.closesAt,
            closedAt: session.closedAt, lateAfter: settings.lateAfterMinutes.map { Double($0) * 60 },
            enrolled: standing.enrolled, geofence: settings.geofence, reading: reading,
            allowedNetworks: settings.allowedNetworks, clientAddress: clientAddress,
            verificationRequired: identity.required, verification: identity.verification,
            deviceUsedByOtherStudent: standing.deviceUsedByOther, existing: standing.existing
        )
    }

    /// Finds the session and the proof presented. The session comes from memory, with times that may be stale: the
    /// check-in reads them with the standing, in the same statement, and checks the proof then. A typed code is
    /// checked here, as its wrong tries are counted.
    func presented(_ attempt: Attempt, studentID: Int64, now: Date) async throws -> Presented {
        if let token = attempt.ticket { return try await presented(ticket: token, studentID: studentID, now: now) }
        if let code = attempt.code {
            guard let ref = RotatingCode.sessionRef(of: code), let session = try await sessions.fixedParts(id: ref)
            else { throw CheckInRefusal(.invalidCode) }
            return Presented(session: session, code: .code(code), via: .api)
        }
        guard let sessionID = attempt.sessionId else {
            throw AppError(.badRequest, .missingField, "Send a ticket, a code, or a session id with a typed code.")
        }
        if let typed = attempt.typedCode {
            guard let session = try await sessions.find(id: sessionID) else {
                throw AppError.notFound(.sessionNotFound, "session")
            }
            return try await typedCode(typed, session: session, studentID: studentID, now: now)
        }
        guard let session = try await sessions.fixedParts(id: sessionID) else {
            throw AppError.notFound(.sessionNotFound, "session")
        }
        guard session.settings.mode == .spot else {
            throw AppError(
                .badRequest, CheckInError.invalidCode.code,
                "This session needs the code on the screen: scan it to check in.")
        }
        return Presented(session: session, code: .spot, via: .spot)
    }

    private func presented(ticket token: String, studentID: Int64, now: Date) async throws -> Presented {
        guard let ticket = try await tickets.read(token),
            let session = try await sessions.fixedParts(id: ticket.sessionId)
        else { throw CheckInRefusal(.invalidCode) }
        if let owner = ticket.studentId, owner != studentID { throw Self.ticketTaken }
        let check: RotatingCode.CodeCheck =
            now < ticket.expiresAt ? .fresh(step: ticket.step) : .expired(step: ticket.step)
        return Presented(
            session: session, code: .checked(check), via: .qr,
            unboundTicket: ticket.studentId == nil ? ticket.tokenHash : nil)
    }

    private func typedCode(_ typed: String, session: ClassSession, studentID: Int64, now: Date) async throws
        -> Presented
    {
        guard session.settings.allowTyping else {
            throw AppError(
                .badRequest, CheckInError.invalidCode.code, "This session does not take typed codes. Scan the QR code.")
        }
        let rotating = session.typedRotatingCode
        // Checked and counted in one step, so that tries sent at once cannot all pass the limit.
        let check = try await counters.update(.typedCode, key: "\(session.id) \(studentID)") { current in
            let wrong = current?.count ?? 0
            guard wrong < Self.typedCodeTries else { return (current, RotatingCode.CodeCheck?.none) }
            let check = rotating.validateTyped(typed, at: now)
            guard case .invalid = check else { return (current, check) }
            return (AttemptCounters.Counter(count: wrong + 1, since: current?.since ?? now, last: now), check)
        }
        guard let check else {
            throw AppError(
                .tooManyRequests, .tooManyAttempts,
                "Too many wrong codes for this session. Scan the QR code, or ask your teacher to mark you by hand."
            )
        }
        return Presented(session: session, code: .checked(check), via: .typed)
    }

    static func reading(_ location: LocationInput?) throws -> LocationReading? {
        try location.map { location in
            let reading = LocationReading(
                point: GeoPoint(latitude: location.latitude, longitude: location.longitude), accuracy: location.accuracy
            )
            guard reading.point.isValid, location.accuracy.isFinite, location.accuracy >= 0 else {
                throw AppError(.badRequest, .invalidLocation, "The location sent is not a place on Earth.")
            }
            return reading
        }
    }

    /// The heard pseudo-IDs, each read as one, at most `Proximity.heardLimit`, repeats dropped.
    static func heard(_ values: [String]?) throws -> [String] {
        guard let values else { return [] }
        guard values.count <= Proximity.heardLimit else {
            throw AppError(
                .badRequest, .invalidHeard,
                "A check-in brings at most \(Proximity.heardLimit) heard pseudo-IDs: those of the last few minutes.")
        }
        var seen: Set<String> = []
        return try values.compactMap { value in
            guard let id = Proximity.pseudoID(value) else {
                throw AppError(.badRequest, .invalidHeard, "A heard pseudo-ID is 32 hexadecimal digits.")
            }
            return seen.insert(id).inserted ? id : nil
        }
    }

    static func deviceID(_ id: String?) throws -> String? {
        try id.map { id in
            guard (8...128).contains(id.count),
                id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else {
                throw AppError(
                    .badRequest, .invalidDeviceID, "The device id must be 8 to 128 letters, digits or dashes.")
            }
            return id
        }
    }
}

extension ClassSession {
    /// The session's rotating code, counted from its opening (or creation, before it opens).
    var rotatingCode: RotatingCode {
        RotatingCode(
            secret: secret, sessionRef: id, openedAt: openedAt ?? createdAt, period: settings.period,
            grace: settings.grace
        )
    }

    /// The typed codes' rotation: the same secret and grace, on the typed codes' own period.
    var typedRotatingCode: RotatingCode {
        RotatingCode(
            secret: secret, sessionRef: id, openedAt: openedAt ?? createdAt, period: settings.typedCodePeriod,
            grace: settings.grace
        )
    }
}
