import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallProtocol
import RollcallStorage
import RollcallWeb
import RollcallWords

/// The app's side of proximity: turning it on and off, fetching pseudo-IDs, uploading what the phone heard; and a
/// health officer asking the person of a report to upload.
struct ProximityController: Sendable {
    let proximity: ProximityStore
    let counters: AttemptCounters
    let reports: ExposureReports
    let retentionDays: Int
    let now: @Sendable () -> Date
    let turns = UploadTurns()

    /// Requests for pseudo-IDs one person may make in a day: a phone asks once every few days, or after a reinstall.
    static let requestsPerDay = 24
    static let requestLimit = RateLimit(limit: requestsPerDay, window: 86_400)
    /// Uploads one person may make in an hour: a month of full lecture halls is a few uploads of 5,000, and each
    /// upload holds the database's write lock while it merges, so one phone must not hold it back to back.
    static let uploadLimit = RateLimit(limit: 10, window: 3_600)
    /// An upload's most bytes: `Proximity.uploadLimit` encounters of about 150 bytes each.
    static let uploadBytes = 1024 * 1024

    struct Switch: Decodable {
        var on: Bool?
    }
    struct IDsRequest: Decodable {
        /// Read as a number so that `2.5` is refused as days, not as JSON.
        var days: Double?
    }
    struct Upload: Decodable {
        var encounters: [Proximity.Encounter]?
        var requestId: Int64?
    }
    struct StandingEnvelope: Codable, ResponseEncodable {
        var proximity: ProximityStanding
    }
    struct IDsAnswer: Codable, ResponseEncodable {
        var windowSeconds: Int
        var ids: [IssuedPseudoID]
        /// The end of the last window issued: the phone asks again before then.
        var until: Date
    }
    struct UploadEnvelope: Codable, ResponseEncodable {
        var upload: ProximityUpload
    }
    struct RequestEnvelope: Codable, ResponseEncodable {
        var request: ProximityRequest
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(ProximityRoutes.me, use: standing)
        router.put(ProximityRoutes.me, use: turn)
        router.post(ProximityRoutes.ids, use: ids)
        router.post(ProximityRoutes.encounters, use: upload)
        router.post(ProximityRoutes.request, use: request)
    }

    @Sendable func standing(_ request: Request, context: AppRequestContext) async throws -> StandingEnvelope {
        let user = try context.requireUser()
        return StandingEnvelope(proximity: try await proximity.standing(of: user.id))
    }

    @Sendable func turn(_ request: Request, context: AppRequestContext) async throws -> StandingEnvelope {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(as: Switch.self, context: context)
        guard let on = input.on else {
            throw AppError(.badRequest, .missingField, "Say whether proximity is on: {\"on\": true} or false.")
        }
        try await proximity.set(on: on, userID: user.id, now: now())
        return StandingEnvelope(proximity: try await proximity.standing(of: user.id))
    }

    @Sendable func ids(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(as: IDsRequest.self, context: context)
        let days = try check { () throws(RuleViolation) in try Self.days(input.days) }
        let now = self.now()
        // Off is refused before the day's count moves: only requests that could be taken count.
        guard try await proximity.isOn(user.id) else { throw Self.error(.off) }
        // A day's count starts again a day after its first request.
        try await admit(.proximityIDs, user: user.id, under: Self.requestLimit, now: now) { retryAfter in
            AppError(
                .tooManyRequests, .tooManyProximityRequests,
                "This phone has asked for pseudo-IDs \(Self.requestsPerDay) times today; the ones it has last for days.",
                retryAfter: retryAfter)
        }
        do {
            let issued = try await proximity.issue(userID: user.id, days: days, now: now)
            let until = (issued.last?.windowStart ?? now).addingTimeInterval(Double(Proximity.windowSeconds))
            return try IDsAnswer(windowSeconds: Proximity.windowSeconds, ids: issued, until: until)
                .response(from: request, context: context, status: .created)
        } catch let refusal as ProximityRefusal {
            throw Self.error(refusal)
        }
    }

    @Sendable func upload(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let upload = try await turns.take { try await uploaded(request, context: context, user: user) }
        return try UploadEnvelope(upload: upload).response(from: request, context: context, status: .created)
    }

    /// One upload, in its turn: checked, counted against the hour, kept.
    private func uploaded(_ request: Request, context: AppRequestContext, user: User) async throws -> ProximityUpload {
        let input = try await request.decodeJSON(as: Upload.self, context: context, limit: Self.uploadBytes)
        let now = self.now()
        let encounters = try check { () throws(RuleViolation) in
            try Proximity.checkedUpload(input.encounters ?? [], now: now, retentionDays: retentionDays)
        }
        // Off and bad requests are refused before the hour's count moves: only uploads that could be taken count.
        guard try await proximity.isOn(user.id) else { throw Self.error(.off) }
        if let requestID = input.requestId, try await !proximity.isRequest(requestID, of: user.id) {
            throw Self.error(.requestNotFound)
        }
        try await admit(.proximityUploads, user: user.id, under: Self.uploadLimit, now: now) { retryAfter in
            AppError(
                .tooManyRequests, .tooManyProximityUploads,
                "This phone has uploaded \(Self.uploadLimit.limit) times this hour; what it heard stays on it until it can upload again.",
                retryAfter: retryAfter)
        }
        do {
            return try await proximity.upload(encounters, userID: user.id, requestID: input.requestId, now: now)
        } catch let refusal as ProximityRefusal {
            throw Self.error(refusal)
        }
    }

    /// Asks the person of the officer's report to upload their phone's encounters for it.
    @Sendable func request(_ request: Request, context: AppRequestContext) async throws -> Response {
        // The report's own officer, as `own` makes sure.
        let entry = try await reports.own(context)
        let asked = try await proximity.request(
            reportID: entry.id, personID: entry.personId, by: entry.requestedBy, now: now())
        return try RequestEnvelope(request: asked).response(from: request, context: context, status: .created)
    }

    /// Counts one request of `user` under `limit`, or refuses it with the error `refusal` makes of the seconds
    /// left; a refusal leaves the count as it was.
    private func admit(
        _ scope: AttemptCounters.Scope, user: Int64, under limit: RateLimit, now: Date,
        refusal: @Sendable (Int) -> AppError
    ) async throws {
        let retryAfter = try await counters.update(scope, key: String(user)) { current in
            let (count, retryAfter) = limit.admit(
                current.map { RateLimit.Count(count: $0.count, since: $0.since) }, now: now)
            guard retryAfter == nil else { return (current, retryAfter) }
            return (AttemptCounters.Counter(count: count.count, since: count.since, last: now), nil)
        }
        if let retryAfter { throw refusal(Int(retryAfter)) }
    }

    static func days(_ number: Double?) throws(RuleViolation) -> Int {
        guard let number else { return Proximity.defaultIssueDays }
        guard let days = Int(exactly: number), Proximity.issueDays.contains(days) else {
            throw RuleViolation(
                field: "days",
                message:
                    "Ask for \(Proximity.issueDays.lowerBound) to \(Proximity.issueDays.upperBound) whole days of pseudo-IDs."
            )
        }
        return days
    }

    static func error(_ refusal: ProximityRefusal) -> AppError {
        switch refusal {
        case .off:
            AppError(
                .conflict, .proximityOff,
                "Proximity is off for you: turn it on in the app before it fetches pseudo-IDs or uploads.")
        case .requestNotFound:
            AppError(
                .notFound, .proximityRequestNotFound,
                "No health officer's request with this id is waiting for you; upload without it, or check the app.")
        }
    }
}
