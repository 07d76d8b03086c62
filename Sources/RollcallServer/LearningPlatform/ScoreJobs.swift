import Foundation
import RollcallCore

/// A student's score for a line item of a platform's gradebook (Assignment and Grade Services), as a job: the newest
/// score of a line item and student replaces one still waiting, and one never reaches the platform after a newer one.
enum ScoreJob: JobKind {
    /// What a score job holds; the same as the `lti` outbox messages that carried scores before there were jobs.
    struct Payload: Codable, Sendable, Equatable {
        var platformId: Int64
        var lineItem: String
        var score: LTI.Score
        /// The gradebook scopes the course's launch offered; absent in scores queued before they were kept.
        var offered: [String]? = nil
    }

    static let name = "lti_score"

    /// The line item and the platform's subject of the student: a URL holds no space.
    static func key(_ payload: Payload) -> String {
        payload.lineItem + " " + payload.score.userId
    }
}

/// Posts a score to its platform's line item.
struct ScoreCourier: JobCourier {
    typealias Kind = ScoreJob

    let platforms: PlatformStore
    let services: PlatformServices

    func perform(_ payload: ScoreJob.Payload, job: Job) async throws {
        guard let platform = try await platforms.find(id: payload.platformId) else {
            throw DeliveryFailure(permanent: true, description: "the platform is no longer registered")
        }
        try await services.post(
            payload.score, lineItem: payload.lineItem, platform: platform, offered: payload.offered ?? [])
    }
}
