import Foundation
import RollcallCore

/// A learning platform an admin registered (Canvas, Moodle, Blackboard, Brightspace): where its LTI 1.3 endpoints
/// are and which of its deployments may launch Rollcall.
package struct LearningPlatform: Codable, Sendable, Equatable {
    package var id: Int64
    package var name: String
    package var issuer: String
    package var clientId: String
    package var deploymentIds: [String]
    package var authorizationUrl: String
    package var tokenUrl: String
    package var jwksUrl: String
    package var createdAt: Date

    package var registration: LTI.Registration {
        LTI.Registration(issuer: issuer, clientID: clientId, deploymentIDs: deploymentIds)
    }
}

/// A platform's course linked to one of Rollcall's, with the services its launches named.
package struct LinkedCourse: Codable, Sendable, Equatable {
    package var id: Int64
    package var platformId: Int64
    package var contextId: String
    package var courseId: Int64
    package var deploymentId: String
    package var title: String
    package var membershipsUrl: String?
    package var lineItemsUrl: String?
    package var lineItemUrl: String?
    /// The placed link whose launch linked the course; the line item Rollcall makes is bound to it.
    package var resourceLinkId: String?
    /// The gradebook scopes the latest instructor's launch offered, by spaces; empty for links kept before.
    package var gradeScopes: String?
    package var gradedThrough: Date?
    package var syncedAt: Date?
    package var createdAt: Date

    /// The gradebook scopes offered, as a list.
    package var offeredScopes: [String] { (gradeScopes ?? "").split(separator: " ").map(String.init) }
}
