import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// Reading back a report an officer ran, for the API and the pages alike: only its officer may, and only while its
/// window is still within what is kept.
struct ExposureReports: Sendable {
    let exposure: ExposureStore
    /// The phones' own evidence, read beside attendance.
    let proximity: ProximityStore
    /// Days evidence is kept; a report reaching further back is refused.
    let retentionDays: Int

    /// The report named by the path, for the health officer who ran it.
    func own(_ context: AppRequestContext) async throws -> ExposureAuditEntry {
        let officer = try AccessRule.officer(context)
        guard
            let entry = try await exposure.find(
                id: try context.id("reportID", .exposureReportNotFound, "exposure report")),
            entry.requestedBy == officer.id
        else { throw AppError.notFound(.exposureReportNotFound, "exposure report") }
        return entry
    }

    /// The report of an audit entry, refused once its window reaches past what is still kept.
    func report(_ entry: ExposureAuditEntry, now: Date, in reader: Reader) async throws -> ExposureReport {
        // A second's leeway: the stored window is rounded (SQLite keeps microseconds of a float).
        guard entry.windowFrom.addingTimeInterval(1) >= Retention.cutoff(now: now, days: retentionDays)
        else {
            let refusal = ExposureWindow.Refusal.beyondRetention(days: retentionDays)
            throw AppError(.unprocessableContent, refusal.code, refusal.message)
        }
        let facts = try await exposure.sessions(
            of: entry.personId, from: entry.windowFrom, until: entry.windowUntil, now: now)
        let phones = try await proximity.sightings(
            of: entry.personId, from: entry.windowFrom, until: entry.windowUntil)
        return ExposureReport(
            entry: entry, facts: facts, phones: phones, request: try await proximity.request(reportID: entry.id),
            in: reader)
    }
}
