import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallWeb
import RollcallWords

/// An admin's registrations of learning platforms, with what to enter on the platform's side; and a linked
/// course's "Sync roster" and "Send grades now".
struct PlatformsController: Sendable {
    let platforms: PlatformStore
    let linkedCourses: PlatformCourses
    let links: CourseLinks
    let keys: ToolKeys
    let access: AccessRule
    let framing: FrameAncestors
    /// Where Rollcall answers, for the addresses a platform's admin copies.
    let publicURL: String

    /// The fields of a registration; on a change, those left out keep their value.
    struct Input: Decodable {
        var name: String?
        var issuer: String?
        var clientId: String?
        var deploymentIds: [String]?
        var authorizationUrl: String?
        var tokenUrl: String?
        var jwksUrl: String?
    }

    /// What a platform's registration form asks of the tool.
    struct ToolURLs: Codable {
        var loginUrl: String
        var launchUrl: String
        var deepLinkingUrl: String
        var jwksUrl: String
    }
    struct ListEnvelope: Codable, ResponseEncodable {
        var platforms: [LearningPlatform]
        var tool: ToolURLs
    }
    struct PlatformEnvelope: Codable, ResponseEncodable {
        var platform: LearningPlatform
    }
    struct KeyEnvelope: Codable, ResponseEncodable {
        var kid: String
    }
    struct LinkEnvelope: Codable, ResponseEncodable {
        struct Link: Codable {
            var platform: String
            var title: String
            var syncedAt: Date?
            var gradedThrough: Date?
            var lineItem: String?
        }
        var link: Link
    }
    struct SyncEnvelope: Codable, ResponseEncodable {
        var sync: CourseLinks.SyncReport
        var message: String
    }
    struct GradesEnvelope: Codable, ResponseEncodable {
        var queued: Int
        var message: String
    }

    func addRoutes(to router: AppRouter) {
        router.get(LearningPlatformRoutes.platforms, use: list)
        router.post(LearningPlatformRoutes.platforms, use: create)
        router.patch(LearningPlatformRoutes.platform, use: update)
        router.delete(LearningPlatformRoutes.platform, use: remove)
        router.post(LearningPlatformRoutes.rotateKey, use: rotateKey)
        router.get(LearningPlatformRoutes.courseLink, use: link)
        router.post(LearningPlatformRoutes.courseSync, use: sync)
        router.post(LearningPlatformRoutes.courseGrades, use: grades)
    }

    var tool: ToolURLs {
        let base = publicURL
        return ToolURLs(
            loginUrl: base + LearningPlatformRoutes.login.description,
            launchUrl: base + LearningPlatformRoutes.launch.description,
            deepLinkingUrl: base + LearningPlatformRoutes.launch.description,
            jwksUrl: base + LearningPlatformRoutes.jwks.description)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> ListEnvelope {
        _ = try AccessRule.admin(context)
        return ListEnvelope(platforms: try await platforms.list(), tool: tool)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try AccessRule.admin(context)
        let input = try await request.decodeJSON(as: Input.self, context: context)
        let registration = try Self.registration(input, keeping: nil)
        guard let platform = try await platforms.create(registration) else { throw Self.exists }
        try await platforms.allowFraming(framing)
        return try PlatformEnvelope(platform: platform).response(from: request, context: context, status: .created)
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> PlatformEnvelope {
        _ = try AccessRule.admin(context)
        let id = try context.id("platformID", .ltiPlatformNotFound, "learning platform")
        guard let current = try await platforms.find(id: id) else { throw Self.notFound }
        let input = try await request.decodeJSON(as: Input.self, context: context)
        let registration = try Self.registration(input, keeping: current)
        let updated: LearningPlatform?
        do {
            updated = try await platforms.update(id: id, registration)
        } catch is PlatformStore.PlatformExists {
            throw Self.exists
        }
        guard let updated else { throw Self.notFound }
        try await platforms.allowFraming(framing)
        return PlatformEnvelope(platform: updated)
    }

    @Sendable func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try AccessRule.admin(context)
        let id = try context.id("platformID", .ltiPlatformNotFound, "learning platform")
        guard try await platforms.delete(id: id) else { throw Self.notFound }
        try await platforms.allowFraming(framing)
        return Response(status: .noContent)
    }

    /// Puts a new signing key in place; the old one stays published for platforms that cached it.
    @Sendable func rotateKey(_ request: Request, context: AppRequestContext) async throws -> KeyEnvelope {
        _ = try AccessRule.admin(context)
        return KeyEnvelope(kid: try await keys.rotate())
    }

    @Sendable func link(_ request: Request, context: AppRequestContext) async throws -> LinkEnvelope {
        let (linked, platform) = try await linked(context, needing: .assist)
        return LinkEnvelope(
            link: .init(
                platform: platform.name, title: linked.title, syncedAt: linked.syncedAt,
                gradedThrough: linked.gradedThrough, lineItem: linked.lineItemUrl))
    }

    @Sendable func sync(_ request: Request, context: AppRequestContext) async throws -> SyncEnvelope {
        let (linked, platform) = try await linked(context, needing: .manage, changing: true)
        let report = try await links.sync(linked, platform: platform)
        return SyncEnvelope(sync: report, message: Self.sentence(report, platform: platform.name, in: context.reader))
    }

    @Sendable func grades(_ request: Request, context: AppRequestContext) async throws -> GradesEnvelope {
        let (linked, platform) = try await linked(context, needing: .manage)
        let queued = try await links.queueGrades(linked, platform: platform)
        let reader = context.reader
        return GradesEnvelope(
            queued: queued,
            message: queued == 0
                ? reader.say("No student from \(platform.name) is on the roster: no grade to send.")
                : reader.say(
                    queued, one: "{0} grade goes to {1} now.", other: "{0} grades go to {1} now.",
                    .text(platform.name)))
    }

    private func linked(_ context: AppRequestContext, needing: CourseAccess, changing: Bool = false) async throws
        -> (LinkedCourse, LearningPlatform)
    {
        let course = try await access.course(in: context, needing: needing, changing: changing).0
        guard let linked = try await linkedCourses.linkedCourse(courseID: course.id),
            let platform = try await platforms.find(id: linked.platformId)
        else {
            throw AppError(
                .notFound, .ltiNotLinked,
                "This course is not linked to a course of a learning platform. Open Rollcall from the platform's course to link it."
            )
        }
        return (linked, platform)
    }

    /// What a sync did, in one sentence.
    static func sentence(_ report: CourseLinks.SyncReport, platform: String, in reader: Reader) -> String {
        var parts: [String] = []
        if report.enrolled > 0 { parts.append(reader.say(report.enrolled, one: "{0} enrolled", other: "{0} enrolled")) }
        if report.left > 0 {
            parts.append(reader.say(report.left, one: "{0} marked as left", other: "{0} marked as left"))
        }
        if report.updated > 0 { parts.append(reader.say(report.updated, one: "{0} updated", other: "{0} updated")) }
        if report.staff > 0 {
            parts.append(reader.say(report.staff, one: "{0} added to staff", other: "{0} added to staff"))
        }
        guard !parts.isEmpty else { return reader.say("The roster already matches \(platform).") }
        return reader.say("From \(platform): \(parts.joined(separator: ", ")).")
    }

    static let exists = AppError(
        .conflict, .ltiPlatformExists, "A learning platform with this issuer and client id is registered already.")
    static let notFound = AppError(.notFound, .ltiPlatformNotFound, "No such learning platform is registered.")

    /// A registration from an admin's input, each field checked; a change keeps the fields it leaves out.
    static func registration(_ input: Input, keeping current: LearningPlatform?) throws -> PlatformStore.Registration {
        try check { () throws(RuleViolation) in
            func required(_ value: String?, _ kept: String?, field: String) throws(RuleViolation) -> String {
                guard let value = value ?? kept else {
                    throw RuleViolation(field: field, message: "Enter the platform's \(LTI.fieldName(field)).")
                }
                return value
            }
            return PlatformStore.Registration(
                name: try AccountRules.name(try required(input.name, current?.name, field: "name")),
                issuer: try LTI.platformURL(
                    try required(input.issuer, current?.issuer, field: "issuer"), field: "issuer"),
                clientId: try LTI.clientID(try required(input.clientId, current?.clientId, field: "clientId")),
                deploymentIds: try LTI.deploymentIDs(input.deploymentIds ?? current?.deploymentIds),
                authorizationUrl: try LTI.platformURL(
                    try required(input.authorizationUrl, current?.authorizationUrl, field: "authorizationUrl"),
                    field: "authorizationUrl"),
                tokenUrl: try LTI.platformURL(
                    try required(input.tokenUrl, current?.tokenUrl, field: "tokenUrl"), field: "tokenUrl"),
                jwksUrl: try LTI.platformURL(
                    try required(input.jwksUrl, current?.jwksUrl, field: "jwksUrl"), field: "jwksUrl"))
        }
    }
}
