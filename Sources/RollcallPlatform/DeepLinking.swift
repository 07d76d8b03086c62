import Foundation
import Hummingbird
import JWTKit
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// Deep Linking 2.0: an instructor places "Rollcall attendance" in the platform's course, and Rollcall answers with
/// a response signed with its own key.
struct DeepLinking: Sendable {
    let keys: ToolKeys
    let linkedCourses: PlatformCourses
    let pages: PageRenderer
    /// Where the placed link launches.
    let launchURL: String

    /// The deep linking answer: an instructor places "Rollcall attendance" in the platform's course, with its line
    /// item; the response is signed with Rollcall's key and posted by the browser to the platform.
    func page(_ launch: LTI.Launch, platform: LearningPlatform, context: AppRequestContext)
        async throws -> Response
    {
        guard let returnURL = launch.deepLinkReturnURL else {
            throw LaunchController.refused("The deep linking request has nowhere to return to.")
        }
        // A course whose grades already have a column asks for no second one.
        var hasColumn = false
        if let course = launch.context {
            hasColumn =
                try await linkedCourses.linkedCourse(platformID: platform.id, contextID: course.id)?.lineItemUrl != nil
        }
        let now = Date()
        let reader = context.reader
        let response = DeepLinkingResponse(
            iss: platform.clientId, aud: platform.issuer, iat: Int(now.timeIntervalSince1970),
            exp: Int(now.timeIntervalSince1970) + 600, nonce: OpaqueToken.make(),
            messageType: "LtiDeepLinkingResponse", version: LTI.version, deploymentID: launch.deploymentID,
            data: launch.deepLinkData,
            contentItems: [
                .init(
                    type: "ltiResourceLink", title: reader.say("Rollcall attendance"), url: launchURL,
                    text: reader.say("Check in to class sessions and see your attendance."),
                    lineItem: hasColumn
                        ? nil
                        : .init(
                            scoreMaximum: 100, label: reader.say("Attendance"), resourceId: LTI.lineItemResourceID,
                            tag: LTI.lineItemTag))
            ])
        let jwt = try await keys.sign(response)
        return try pages.render(
            DeepLinkingPage(returnURL: returnURL, jwt: jwt, platform: platform.name),
            title: "Add Rollcall to the course", context: context, layout: "bare", framing: .launch)
    }
}

/// The instructor's page of a deep linking request.
struct DeepLinkingPage: PageModel {
    static let template = "lti-deep-linking"
    var returnURL: String
    var jwt: String
    var platform: String
}
/// Deep Linking 2.0's response message.
struct DeepLinkingResponse: JWTPayload {
    struct ContentItem: Codable {
        struct LineItem: Codable {
            var scoreMaximum: Int
            var label: String
            var resourceId: String
            var tag: String
        }
        var type: String
        var title: String
        var url: String
        var text: String
        /// Left out where the course has its column already.
        var lineItem: LineItem?
    }
    var iss: String
    var aud: String
    var iat: Int
    var exp: Int
    var nonce: String
    var messageType: String
    var version: String
    var deploymentID: String
    var data: String?
    var contentItems: [ContentItem]

    enum CodingKeys: String, CodingKey {
        case iss, aud, iat, exp, nonce
        case messageType = "https://purl.imsglobal.org/spec/lti/claim/message_type"
        case version = "https://purl.imsglobal.org/spec/lti/claim/version"
        case deploymentID = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
        case data = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
        case contentItems = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
    }

    func verify(using algorithm: some JWTAlgorithm) throws {}
}
