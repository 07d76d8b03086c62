import Crypto
import Foundation

/// The rules of LTI 1.3 (1EdTech LTI Core 1.3, Security Framework 1.0, Names and Role Provisioning 2.0, Assignment
/// and Grade Services 2.0, Deep Linking 2.0) as Rollcall applies them: which launches it takes, who a person is in
/// the course, how a roster from the platform changes Rollcall's, and the score it sends back.
public enum LTI {
    public static let version = "1.3.0"

    /// The claims' names.
    public enum Claim {
        public static let messageType = "https://purl.imsglobal.org/spec/lti/claim/message_type"
        public static let version = "https://purl.imsglobal.org/spec/lti/claim/version"
        public static let deploymentID = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
        public static let targetLinkURI = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri"
        public static let resourceLink = "https://purl.imsglobal.org/spec/lti/claim/resource_link"
        public static let roles = "https://purl.imsglobal.org/spec/lti/claim/roles"
        public static let context = "https://purl.imsglobal.org/spec/lti/claim/context"
        public static let lis = "https://purl.imsglobal.org/spec/lti/claim/lis"
        public static let namesRoles = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
        public static let gradeEndpoint = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
        public static let deepLinkingSettings = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
        public static let deepLinkingData = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
        public static let contentItems = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
    }

    /// The scopes of the services Rollcall calls.
    public enum Scope {
        public static let memberships = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
        public static let lineItems = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
        public static let lineItemsReadOnly = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
        public static let scores = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
    }

    /// The calls Rollcall makes to a platform's gradebook (Assignment and Grade Services 2.0).
    public enum GradeCall: Sendable {
        case findLineItem, createLineItem, postScore
    }

    /// The narrowest scope a gradebook call needs, within those the launch offered (`offered` empty: a link made
    /// before Rollcall kept them, asked as before); `nil` when the platform did not offer it.
    public static func scope(for call: GradeCall, offered: [String]) -> String? {
        func allowed(_ scope: String) -> Bool { offered.isEmpty || offered.contains(scope) }
        switch call {
        case .findLineItem:
            if offered.contains(Scope.lineItemsReadOnly) { return Scope.lineItemsReadOnly }
            return allowed(Scope.lineItems) ? Scope.lineItems : nil
        case .createLineItem:
            return allowed(Scope.lineItems) ? Scope.lineItems : nil
        case .postScore:
            return allowed(Scope.scores) ? Scope.scores : nil
        }
    }

    /// The messages a platform launches Rollcall with.
    public enum MessageType: String, Codable, Sendable {
        case resourceLink = "LtiResourceLinkRequest"
        case deepLinking = "LtiDeepLinkingRequest"
    }

    /// A person's part in the platform's course, as Rollcall has it.
    public enum CourseRole: String, Codable, Sendable, Equatable {
        case teacher, assistant, student
    }

    /// What Rollcall knows of a registered platform when it checks a launch.
    public struct Registration: Sendable, Equatable {
        public var issuer: String
        public var clientID: String
        public var deploymentIDs: [String]

        public init(issuer: String, clientID: String, deploymentIDs: [String]) {
            self.issuer = issuer
            self.clientID = clientID
            self.deploymentIDs = deploymentIDs
        }
    }

    /// The platform's course a launch comes from.
    public struct Context: Codable, Sendable, Equatable {
        public var id: String
        public var title: String

        public init(id: String, title: String) {
            self.id = id
            self.title = title
        }
    }

    /// A launch that passed every check: who, from which course, in which role, with which services.
    public struct Launch: Codable, Sendable, Equatable {
        public var messageType: MessageType
        public var issuer: String
        public var subject: String
        public var deploymentID: String
        public var role: CourseRole
        public var name: String?
        public var email: String?
        public var studentNumber: String?
        public var context: Context?
        public var resourceLinkID: String?
        public var targetLinkURI: String?
        /// Names and Role Provisioning: the course's membership URL.
        public var membershipsURL: String?
        /// Assignment and Grade Services: the course's line items, and the launched link's own line item.
        public var lineItemsURL: String?
        public var lineItemURL: String?
        public var gradeScopes: [String]
        /// Deep linking: where the answer goes, and what the platform asked to have echoed.
        public var deepLinkReturnURL: String?
        public var deepLinkData: String?
    }

    /// Why a launch was refused, in words for the page that says so.
    public enum Refusal: Error, Sendable, Equatable {
        /// The token is a JWT but no LTI message at all.
        case notLTI
        case wrongVersion(String)
        case unknownMessageType(String)
        case unknownDeployment(String)
        case missingClaim(String)
        case noRole
        case token(SingleSignOnRefusal)

        public var reason: String {
            switch self {
            case .notLTI: "it is not an LTI launch"
            case .wrongVersion(let version): "it is LTI version “\(version.prefix(20))”, and Rollcall speaks 1.3.0"
            case .unknownMessageType(let type): "it is a “\(type.prefix(40))” message, which Rollcall does not take"
            case .unknownDeployment(let id):
                "it comes from deployment “\(id.prefix(60))”, which is not registered for this platform"
            case .missingClaim(let name): "it lacks the claim \(name)"
            case .noRole: "it gives the person no role Rollcall knows"
            case .token(let refusal): refusal.reason
            }
        }
    }

    /// Checks a launch's verified payload: the ID token's claims (issuer, audience, `azp`, times, nonce, subject),
    /// then LTI's (version, message type, deployment, roles, and what each message type requires).
    public static func launch(
        _ payload: [String: Any], registration: Registration, nonce: String, now: Date
    ) throws(Refusal) -> Launch {
        guard let messageTypeText = payload[Claim.messageType] as? String else {
            throw payload[Claim.version] == nil ? .notLTI : .missingClaim("message_type")
        }
        guard let version = payload[Claim.version] as? String else { throw .missingClaim("version") }
        guard version == LTI.version else { throw .wrongVersion(version) }
        guard let messageType = MessageType(rawValue: messageTypeText) else {
            throw .unknownMessageType(messageTypeText)
        }
        do throws(SingleSignOnRefusal) {
            try SingleSignOn.check(
                idTokenClaims(payload), issuer: registration.issuer, clientID: registration.clientID, nonce: nonce,
                now: now)
        } catch {
            throw .token(error)
        }
        guard let deployment = payload[Claim.deploymentID] as? String else { throw .missingClaim("deployment_id") }
        guard registration.deploymentIDs.contains(deployment) else { throw .unknownDeployment(deployment) }
        guard let roles = payload[Claim.roles] as? [Any] else { throw .missingClaim("roles") }
        guard let role = courseRole(roles.compactMap { $0 as? String }) else { throw .noRole }
        let link = payload[Claim.resourceLink] as? [String: Any]
        let resourceLinkID = link?["id"] as? String
        let settings = payload[Claim.deepLinkingSettings] as? [String: Any]
        switch messageType {
        case .resourceLink:
            guard let resourceLinkID, !resourceLinkID.isEmpty else { throw .missingClaim("resource_link.id") }
        case .deepLinking:
            guard settings?["deep_link_return_url"] is String else {
                throw .missingClaim("deep_linking_settings.deep_link_return_url")
            }
            guard role != .student else { throw .noRole }
        }
        let context = (payload[Claim.context] as? [String: Any]).flatMap { context -> Context? in
            guard let id = context["id"] as? String, !id.isEmpty else { return nil }
            let title = (context["title"] as? String) ?? (context["label"] as? String) ?? id
            return Context(id: id, title: title)
        }
        let names = payload[Claim.namesRoles] as? [String: Any]
        let grades = payload[Claim.gradeEndpoint] as? [String: Any]
        return Launch(
            messageType: messageType, issuer: registration.issuer, subject: payload["sub"] as? String ?? "",
            deploymentID: deployment, role: role, name: personName(payload),
            email: payload["email"] as? String,
            studentNumber: (payload[Claim.lis] as? [String: Any])?["person_sourcedid"] as? String,
            context: context, resourceLinkID: resourceLinkID, targetLinkURI: payload[Claim.targetLinkURI] as? String,
            membershipsURL: names?["context_memberships_url"] as? String,
            lineItemsURL: grades?["lineitems"] as? String, lineItemURL: grades?["lineitem"] as? String,
            gradeScopes: (grades?["scope"] as? [Any])?.compactMap { $0 as? String } ?? [],
            deepLinkReturnURL: settings?["deep_link_return_url"] as? String,
            deepLinkData: settings?["data"] as? String)
    }

    /// The standard claims of an ID token, from an LTI payload.
    static func idTokenClaims(_ payload: [String: Any]) -> IDTokenClaims {
        func date(_ value: Any?) -> Date {
            (value as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) } ?? .distantPast
        }
        let audience: [String] =
            switch payload["aud"] {
            case let text as String: [text]
            case let list as [Any]: list.compactMap { $0 as? String }
            default: []
            }
        return IDTokenClaims(
            issuer: payload["iss"] as? String ?? "", subject: payload["sub"] as? String ?? "", audience: audience,
            authorizedParty: payload["azp"] as? String, expiresAt: date(payload["exp"]),
            issuedAt: date(payload["iat"]), nonce: payload["nonce"] as? String, email: payload["email"] as? String,
            emailVerified: nil, name: payload["name"] as? String, others: [:])
    }

    /// The role a person has in Rollcall's course from the platform's context roles: an instructor or
    /// administrator of the course teaches, a teaching assistant assists (the LIS vocabulary names it a sub-role of
    /// Instructor), a learner is a student. Only the membership vocabulary counts (full URIs, LTI 1.1's context URNs
    /// and the short names NRPS answers may use): an institution or system role (`…/institution/person#Instructor`,
    /// which platforms send for anyone who teaches anywhere) says nothing about this course.
    public static func courseRole(_ roles: [String]) -> CourseRole? {
        let names = roles.compactMap(contextRoleName)
        if names.contains("TeachingAssistant") { return .assistant }
        if names.contains(where: { ["Instructor", "Administrator", "ContentDeveloper"].contains($0) }) {
            return .teacher
        }
        if names.contains("Learner") { return .student }
        return nil
    }

    static let contextVocabularies = [
        "http://purl.imsglobal.org/vocab/lis/v2/membership#", "http://purl.imsglobal.org/vocab/lis/v2/membership/",
        "urn:lti:role:ims/lis/",
    ]

    /// A role's local name when it is a context role (`membership#Instructor` → `Instructor`,
    /// `membership/Instructor#TeachingAssistant` → `TeachingAssistant`); `nil` for any other vocabulary.
    static func contextRoleName(_ role: String) -> String? {
        let rest: Substring
        if let vocabulary = contextVocabularies.first(where: { role.hasPrefix($0) }) {
            rest = role.dropFirst(vocabulary.count)
        } else if !role.contains(":"), !role.contains("/"), !role.isEmpty {
            rest = role[...]
        } else {
            return nil
        }
        let local = rest.split(separator: "#").last ?? rest
        return (local.split(separator: "/").last).map(String.init)
    }

    /// A member of the platform's course, from an NRPS answer.
    public struct Member: Sendable, Equatable {
        public var userID: String
        public var name: String?
        public var email: String?
        public var studentNumber: String?
        public var role: CourseRole?
        /// `Active`, or absent: an inactive or deleted member has left.
        public var active: Bool

        public init(
            userID: String, name: String?, email: String?, studentNumber: String?, role: CourseRole?, active: Bool
        ) {
            self.userID = userID
            self.name = name
            self.email = email
            self.studentNumber = studentNumber
            self.role = role
            self.active = active
        }
    }

    /// A URL's origin (RFC 6454: scheme, host and port, the default port written out), for comparing where two
    /// URLs are served from rather than how their strings begin; `nil` for a URL without a host.
    public static func origin(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
            !host.isEmpty
        else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0)
        return "\(scheme)://\(host):\(port)"
    }

    /// Whether a registration's documents may be believed: the configuration was read from the issuer's origin, and
    /// the endpoint Rollcall registers at is on it too (Dynamic Registration 1.0 §3.5.1).
    public static func sameOrigin(issuer: String, configuration: String, registrationEndpoint: String) -> Bool {
        guard let origin = origin(issuer) else { return false }
        return origin == LTI.origin(configuration) && origin == LTI.origin(registrationEndpoint)
    }

    /// A person's name as a platform gives it: `name`, else `given_name` with `family_name`, else
    /// `preferred_username`; `nil` where the platform's privacy settings share none of them.
    public static func personName(_ claims: [String: Any]) -> String? {
        func text(_ key: String) -> String? {
            (claims[key] as? String).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        if let name = text("name") { return name }
        let given = [text("given_name"), text("family_name")].compactMap { $0 }
        if !given.isEmpty { return given.joined(separator: " ") }
        return text("preferred_username")
    }

    /// A name for a person the platform shares no name of, different for each: "Learner 3F2A9C".
    public static func placeholderName(subject: String) -> String {
        let digest = SHA256.hash(data: Array(subject.utf8)).prefix(3)
        return "Learner " + digest.map { String(format: "%02X", $0) }.joined()
    }

    /// The members of one NRPS page (a `membershipcontainer`); members without a `user_id` are skipped.
    public static func members(_ container: [String: Any]) -> [Member] {
        let members = container["members"] as? [Any] ?? []
        return members.compactMap { item -> Member? in
            guard let member = item as? [String: Any], let userID = member["user_id"] as? String,
                !userID.isEmpty
            else { return nil }
            return Member(
                userID: userID, name: personName(member),
                email: member["email"] as? String, studentNumber: member["lis_person_sourcedid"] as? String,
                role: courseRole((member["roles"] as? [Any])?.compactMap { $0 as? String } ?? []),
                active: (member["status"] as? String ?? "Active") == "Active")
        }
    }

    /// The next page of a paged service answer, from its `Link` headers (RFC 8288): the target of `rel="next"`.
    public static func nextPage(linkHeaders: [String]) -> String? {
        for header in linkHeaders {
            for link in header.split(separator: ",") {
                let parts = link.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let target = parts.first, target.hasPrefix("<"), target.hasSuffix(">") else { continue }
                let relations = parts.dropFirst().compactMap { parameter -> [Substring]? in
                    let pair = parameter.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else {
                        return nil
                    }
                    return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).split(separator: " ")
                }.joined()
                if relations.contains("next") { return String(target.dropFirst().dropLast()) }
            }
        }
        return nil
    }

    /// A student on Rollcall's roster who came from the platform.
    public struct LinkedStudent: Sendable, Equatable {
        public var userID: String
        public var name: String
        public var studentNumber: String?

        public init(userID: String, name: String, studentNumber: String?) {
            self.userID = userID
            self.name = name
            self.studentNumber = studentNumber
        }
    }

    /// What a roster sync changes.
    public struct RosterChange: Sendable, Equatable {
        /// Learners active on the platform and not on Rollcall's roster.
        public var enrolled: [Member]
        /// Students on the roster, brought there by the platform, who are no longer active learners on it.
        public var left: [String]
        /// Students on both whose name or number the platform changed.
        public var updated: [Member]
    }

    /// Compares the platform's members with the students the platform brought to Rollcall's roster. Only learners
    /// are students; a person the platform lists twice counts once, by their last entry.
    public static func rosterChange(roster: [LinkedStudent], members: [Member]) -> RosterChange {
        var latest: [String: Member] = [:]
        var order: [String] = []
        for member in members {
            if latest[member.userID] == nil { order.append(member.userID) }
            latest[member.userID] = member
        }
        let learners = order.compactMap { latest[$0] }.filter { $0.active && $0.role == .student }
        let current = Dictionary(roster.map { ($0.userID, $0) }, uniquingKeysWith: { first, _ in first })
        let learning = Set(learners.map(\.userID))
        return RosterChange(
            enrolled: learners.filter { current[$0.userID] == nil },
            left: roster.map(\.userID).filter { !learning.contains($0) },
            updated: learners.filter { member in
                guard let student = current[member.userID] else { return false }
                return (member.name.map { $0 != student.name } ?? false)
                    || (member.studentNumber.map { $0 != student.studentNumber } ?? false)
            })
    }

    /// A score for Assignment and Grade Services (`application/vnd.ims.lis.v1.score+json`).
    public struct Score: Codable, Sendable, Equatable {
        public var userId: String
        public var scoreGiven: Double?
        public var scoreMaximum: Double?
        public var activityProgress: String
        public var gradingProgress: String
        public var timestamp: String
        public var comment: String?
    }

    /// The attendance score of a student: the course grade out of 100 once anything counts, marked fully graded;
    /// with nothing counted yet, no score and `Pending`, so the platform shows no grade rather than a zero. The
    /// activity is in progress while the course runs: attendance goes on.
    public static func score(
        userID: String, grade: Double?, explanation: String, at timestamp: Date
    ) -> Score {
        Score(
            userId: userID, scoreGiven: grade.map { ($0 * 100).rounded() / 100 },
            scoreMaximum: grade == nil ? nil : 100,
            activityProgress: "InProgress", gradingProgress: grade == nil ? "Pending" : "FullyGraded",
            timestamp: timestamp.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            comment: String(explanation.prefix(1000)))
    }

    /// The line item Rollcall makes for a course, and finds again by its `resourceId`.
    public static let lineItemResourceID = "rollcall-attendance"
    public static let lineItemTag = "attendance"
}

extension LTI {
    /// How a registration's field is named in a sentence.
    public static func fieldName(_ field: String) -> String {
        switch field {
        case "issuer": "issuer"
        case "clientId": "client id"
        case "deploymentIds": "deployment ids"
        case "authorizationUrl": "OIDC authorization URL"
        case "tokenUrl": "token URL"
        case "jwksUrl": "key set (JWKS) URL"
        default: field
        }
    }

    /// A platform's URL as a registration takes it: http or https with a host, at most 500 characters, no
    /// fragment. Plain http is for a platform on the same machine or network only; the README says so.
    public static func platformURL(_ raw: String, field: String) throws(RuleViolation) -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count <= 500, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = url.host, !host.isEmpty, url.fragment == nil
        else {
            throw RuleViolation(
                field: field,
                message:
                    "Enter the platform's \(fieldName(field)) as a full web address, such as https://school.instructure.com."
            )
        }
        return text
    }

    /// A client id: what the platform issued when Rollcall was added, 1 to 255 characters without spaces at the
    /// ends.
    public static func clientID(_ raw: String) throws(RuleViolation) -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...255).contains(text.count), !text.contains(where: \.isNewline) else {
            throw RuleViolation(
                field: "clientId", message: "Enter the client id the platform gave Rollcall, 1 to 255 characters.")
        }
        return text
    }

    /// The deployments that may launch Rollcall: 1 to 50 ids of 1 to 255 characters, each once.
    public static func deploymentIDs(_ raw: [String]?) throws(RuleViolation) -> [String] {
        let ids = (raw ?? []).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard (1...50).contains(ids.count), ids.allSatisfy({ (1...255).contains($0.count) }),
            Set(ids).count == ids.count
        else {
            throw RuleViolation(
                field: "deploymentIds",
                message: "Enter the platform's deployment ids: 1 to 50 different ids, each 1 to 255 characters.")
        }
        return ids
    }
}
