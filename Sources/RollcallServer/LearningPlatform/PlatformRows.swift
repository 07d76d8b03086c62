import Foundation
import RollcallCore

/// A learning platform an admin registered (Canvas, Moodle, Blackboard, Brightspace): where its LTI 1.3 endpoints
/// are and which of its deployments may launch Rollcall.
struct LearningPlatform: Codable, Sendable, Equatable {
    var id: Int64
    var name: String
    var issuer: String
    var clientId: String
    var deploymentIds: [String]
    var authorizationUrl: String
    var tokenUrl: String
    var jwksUrl: String
    var createdAt: Date

    var registration: LTI.Registration {
        LTI.Registration(issuer: issuer, clientID: clientId, deploymentIDs: deploymentIds)
    }
}

/// A platform's course linked to one of Rollcall's, with the services its launches named.
struct LinkedCourse: Codable, Sendable, Equatable {
    var id: Int64
    var platformId: Int64
    var contextId: String
    var courseId: Int64
    var deploymentId: String
    var title: String
    var membershipsUrl: String?
    var lineItemsUrl: String?
    var lineItemUrl: String?
    /// The placed link whose launch linked the course; the line item Rollcall makes is bound to it.
    var resourceLinkId: String?
    /// The gradebook scopes the latest instructor's launch offered, by spaces; empty for links kept before.
    var gradeScopes: String?
    var gradedThrough: Date?
    var syncedAt: Date?
    var createdAt: Date

    /// The gradebook scopes offered, as a list.
    var offeredScopes: [String] { (gradeScopes ?? "").split(separator: " ").map(String.init) }
}
