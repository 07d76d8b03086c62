import Foundation
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallWords

extension AdminPage {
    /// The grades on their way to learning platforms, and those given up, newest first: the list an admin reads when
    /// a platform's gradebook lags behind Rollcall's.
    func grades(time: TimeText, in reader: Reader) async throws -> [AdminPageModel.Grade] {
        try await jobs.list(kind: ScoreJob.name, statuses: [.pending, .running, .failed], limit: Self.gradesShown)
            .map { Self.grade($0, time: time, in: reader) }
    }

    /// Grades on the page at most: a platform down for a while leaves one waiting per student, not more.
    static let gradesShown = 50

    static func grade(_ listing: JobListing, time: TimeText, in reader: Reader) -> AdminPageModel.Grade {
        let job = listing.job
        // The badges are the outbox's, so that a grade waiting looks like a message waiting.
        let badge =
            switch job.status {
            case .pending: "queued"
            case .running: "sending"
            default: "failed"
            }
        let tries = reader.say(job.attempts, one: "{0} attempt", other: "{0} attempts")
        let when = job.nextAttemptAt.map(time.moment) ?? reader.say("soon")
        let next: String =
            switch job.status {
            case .pending where job.attempts == 0: reader.say("waiting to be sent")
            case .pending: reader.say("next attempt \(when)")
            case .running: reader.say("being sent (\(tries))")
            default: reader.say("given up")
            }
        return AdminPageModel.Grade(
            course: listing.courseName ?? "—", person: listing.personName ?? "—", attempts: job.attempts,
            status: badge, statusText: statusText(badge, in: reader), next: next, lastError: job.lastError ?? "")
    }
}

extension AdminPageModel {
    /// One grade on its way to a learning platform, or given up.
    struct Grade: Sendable {
        var course: String
        var person: String
        var attempts: Int
        /// `queued`, `sending` or `failed`: the outbox's badges.
        var status: String
        /// The status in the reader's words.
        var statusText: String
        /// When it is tried next, or that it was given up, in words.
        var next: String
        /// Why the platform did not take it, as the platform or the network said.
        var lastError: String
    }
}
