import Foundation
import RollcallCore
import RollcallDelivery
import RollcallModel

/// A student's score for a line item of a platform's gradebook (Assignment and Grade Services), as a job: the newest
/// score of a line item and student replaces one still waiting, and one never reaches the platform after a newer one.
package enum ScoreJob: JobKind {
    /// What a score job holds; the same as the `lti` outbox messages that carried scores before there were jobs.
    package struct Payload: Codable, Sendable, Equatable {
        package var platformId: Int64
        package var lineItem: String
        package var score: LTI.Score
        /// The gradebook scopes the course's launch offered; absent in scores queued before they were kept.
        package var offered: [String]? = nil

        package init(platformId: Int64, lineItem: String, score: LTI.Score, offered: [String]? = nil) {
            self.platformId = platformId
            self.lineItem = lineItem
            self.score = score
            self.offered = offered
        }
    }

    package static let name = "lti_score"

    /// The line item and the platform's subject of the student: a URL holds no space.
    package static func key(_ payload: Payload) -> String {
        payload.lineItem + " " + payload.score.userId
    }
}

/// Posts a score to its platform's line item.
package struct ScoreCourier: JobCourier {
    package typealias Kind = ScoreJob

    package let platforms: PlatformStore
    package let services: PlatformServices

    package init(platforms: PlatformStore, services: PlatformServices) {
        self.platforms = platforms
        self.services = services
    }

    package func perform(_ payload: ScoreJob.Payload, job: Job) async throws {
        guard let platform = try await platforms.find(id: payload.platformId) else {
            throw DeliveryFailure(permanent: true, description: "the platform is no longer registered")
        }
        try await services.post(
            payload.score, lineItem: payload.lineItem, platform: platform, offered: payload.offered ?? [])
    }
}
