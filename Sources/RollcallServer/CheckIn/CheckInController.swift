import Foundation
import Hummingbird
import RollcallCore

/// Check-in: scanning the projected code, and the check-in itself for the web page and native clients.
struct CheckInController: Sendable {
    let stores: Stores
    let configuration: Configuration
    let typedAttempts = TypedCodeAttempts()

    struct LocationInput: Codable, Sendable {
        var latitude: Double
        var longitude: Double
        var accuracy: Double
    }

    /// One way to prove presence: a ticket from a scan, the code itself, a typed code, or (spot) the session alone.
    struct CheckInRequest: Decodable {
        var ticket: String?
        var code: String?
        var sessionId: Int64?
        var typedCode: String?
        var location: LocationInput?
        var deviceId: String?
        /// A passkey assertion, where the course asks for one.
        var passkey: CredentialInput?
    }

    struct CheckInAnswer: Codable, ResponseEncodable {
        var status: AttendanceStatus
        var checkedInAt: Date
        var sessionId: Int64
        var sessionTitle: String
        var courseName: String
        /// `false` when this repeats an earlier answer.
        var new: Bool
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>) {
        api.post("check-ins", use: checkIn)
    }

    /// HTTP statuses for the policy's refusals.
    static func status(for error: CheckInError) -> HTTPResponse.Status {
        switch error {
        case .invalidCode, .locationRequired: .badRequest
        case .sessionClosed, .codeExpired, .deviceAlreadyUsed: .conflict
        case .locationInaccurate: .unprocessableContent
        case .notEnrolled, .outOfRange, .networkNotAllowed, .verificationRequired, .verificationFailed: .forbidden
        }
    }

    static func appError(_ refusal: CheckInRefusal) -> AppError {
        AppError(status(for: refusal.error), refusal.error.code, refusal.message)
    }

    /// Records a scan: a fresh code becomes a ticket, so the rest of the flow has two minutes whatever the code does.
    func scan(code: String, studentID: Int64?, now: Date) async throws -> String {
        guard let ref = RotatingCode.sessionRef(of: code), let session = try await stores.sessions.find(id: ref) else {
            throw Self.appError(CheckInRefusal(.invalidCode))
        }
        switch session.rotatingCode.validate(code, at: now) {
        case .fresh(let step):
            return stores.checkIns.issueTicket(session: session, step: step, scannedAt: now, studentID: studentID)
        case .expired: throw Self.appError(CheckInRefusal(.codeExpired))
        case .fromFuture, .invalid: throw Self.appError(CheckInRefusal(.invalidCode))
        }
    }

    @Sendable func checkIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let student = try context.requireRole(.student, message: "Only students check in; teachers mark by hand.")
        let input = try await request.decodeJSON(as: CheckInRequest.self, context: context)
        let now = Date()
        let (found, code, via, ticketHash) = try await presented(input, studentID: student.id, now: now)
        var session = found
        let reading = try input.location.map { location in
            let reading = LocationReading(
                point: GeoPoint(latitude: location.latitude, longitude: location.longitude), accuracy: location.accuracy
            )
            guard reading.point.isValid, location.accuracy.isFinite, location.accuracy >= 0 else {
                throw AppError(.badRequest, "invalid_location", "The location sent is not a place on Earth.")
            }
            return reading
        }
        let deviceID = try input.deviceId.map { id in
            guard (8...128).contains(id.count),
                id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else {
                throw AppError(
                    .badRequest, "invalid_device_id", "The device id must be 8 to 128 letters, digits or dashes.")
            }
            return id
        }
        guard
            let standing = try await stores.checkIns.standing(
                sessionID: session.id, studentID: student.id, deviceID: deviceID, ticketHash: ticketHash
            )
        else { throw Self.appError(CheckInRefusal(.invalidCode)) }
        standing.moment.apply(to: &session)
        if standing.ticketUsedByOther { throw Self.ticketTaken }
        let identity = try await CheckInVerification(stores: stores, configuration: configuration).verify(
            input.passkey, session: session, student: student, ticket: input.ticket, deviceID: deviceID, now: now
        )
        let settings = session.settings
        let facts = CheckInFacts(
            code: code, now: now, openedAt: session.openedAt, closesAt: session.closesAt, closedAt: session.closedAt,
            lateAfter: settings.lateAfterMinutes.map { Double($0) * 60 }, enrolled: standing.enrolled,
            geofence: settings.geofence, reading: reading, allowedNetworks: settings.allowedNetworks,
            clientAddress: context.remoteAddress, verificationRequired: identity.required,
            verification: identity.verification, deviceUsedByOtherStudent: standing.deviceUsedByOther,
            existing: standing.existing
        )
        let answer: (AttendanceStatus, Date, Bool)
        switch CheckInPolicy.decide(facts) {
        case .refused(let refusal, let flagDevice):
            if flagDevice { try await flagSharedDevice(session: session, student: student) }
            throw Self.appError(refusal)
        case .alreadyCheckedIn(let status, let at):
            answer = (status, at, false)
        case .checkedIn(let status, let at):
            let distance = reading.flatMap { reading in settings.geofence.map { $0.center.distance(to: reading.point) }
            }
            let evidence = CheckInEvidence(
                reading: reading, distance: distance, deviceID: deviceID, clientAddress: context.remoteAddress, via: via
            )
            switch try await stores.checkIns.record(
                sessionID: session.id, studentID: student.id, status: status, at: at, evidence: evidence,
                unboundTicket: ticketHash
            ) {
            case .recorded(let status, let at): answer = (status, at, true)
            case .existing(let status, let at): answer = (status, at, false)
            case .deviceTaken:
                try await flagSharedDevice(session: session, student: student)
                throw Self.appError(CheckInRefusal(.deviceAlreadyUsed))
            case .ticketTaken: throw Self.ticketTaken
            }
        }
        return try CheckInAnswer(
            status: answer.0, checkedInAt: answer.1, sessionId: session.id, sessionTitle: session.title,
            courseName: session.courseName, new: answer.2
        ).response(from: request, context: context, status: answer.2 ? .created : .ok)
    }

    func flagSharedDevice(session: ClassSession, student: User) async throws {
        try await stores.checkIns.flag(
            sessionID: session.id, studentID: student.id, kind: "device_already_used",
            detail: "\(student.name) tried to check in from a phone another student already used in this session."
        )
    }

    /// A ticket belongs to the student who scanned it signed in, or else to the first who checked in with it.
    static let ticketTaken = AppError(
        .badRequest, CheckInError.invalidCode.code,
        "This check-in link was opened by another student. Scan the code on the screen yourself."
    )

    /// Finds the session and how fresh the presented proof is; each session mode accepts only its own proof. A
    /// ticket's session comes from memory with times that may be stale: the check-in reads them with the standing.
    func presented(
        _ input: CheckInRequest, studentID: Int64, now: Date
    ) async throws -> (ClassSession, RotatingCode.CodeCheck, String, String?) {
        if let token = input.ticket {
            guard let ticket = try await stores.checkIns.ticket(token),
                let session = try await stores.sessions.fixedParts(id: ticket.sessionId)
            else { throw Self.appError(CheckInRefusal(.invalidCode)) }
            if let owner = ticket.studentId, owner != studentID { throw Self.ticketTaken }
            let check: RotatingCode.CodeCheck =
                now < ticket.expiresAt ? .fresh(step: ticket.step) : .expired(step: ticket.step)
            return (session, check, "qr", ticket.studentId == nil ? ticket.tokenHash : nil)
        }
        if let code = input.code {
            guard let ref = RotatingCode.sessionRef(of: code), let session = try await stores.sessions.find(id: ref)
            else {
                throw Self.appError(CheckInRefusal(.invalidCode))
            }
            return (session, session.rotatingCode.validate(code, at: now), "api", nil)
        }
        guard let sessionID = input.sessionId else {
            throw AppError(
                .badRequest, "missing_field", "Send a ticket, a code, or a session id with a typed code."
            )
        }
        guard let session = try await stores.sessions.find(id: sessionID) else { throw AppError.notFound("session") }
        if let typed = input.typedCode {
            guard session.settings.allowTyping else {
                throw AppError(
                    .badRequest, CheckInError.invalidCode.code,
                    "This session does not take typed codes. Scan the QR code.")
            }
            guard !typedAttempts.exhausted(session: session.id, student: studentID) else {
                throw AppError(
                    .tooManyRequests, "too_many_attempts",
                    "Too many wrong codes for this session. Scan the QR code, or ask your teacher to mark you by hand."
                )
            }
            let check = session.rotatingCode.validateTyped(typed, at: now)
            if case .invalid = check { typedAttempts.recordWrong(session: session.id, student: studentID) }
            return (session, check, "typed", nil)
        }
        guard session.settings.mode == .spot else {
            throw AppError(
                .badRequest, CheckInError.invalidCode.code,
                "This session needs the code on the screen: scan it to check in."
            )
        }
        return (session, .fresh(step: session.rotatingCode.step(at: now)), "spot", nil)
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
}
