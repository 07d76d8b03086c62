import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1
import RollcallCore
import RollcallDelivery
import RollcallModel

/// A platform's LTI Advantage services as Rollcall calls them: service tokens (OAuth 2 client credentials with a
/// JWT assertion signed by Rollcall's key, the scopes asked exactly as needed, kept until they expire), Names and Role
/// Provisioning, and Assignment and Grade Services. Every request has a time limit.
package actor PlatformServices {
    private let keys: ToolKeys
    private let http: HTTPClient
    private let timeout: Duration
    private var tokens: [String: (token: String, until: Date)] = [:]

    package init(keys: ToolKeys, http: HTTPClient = .shared, timeout: Duration = .seconds(15)) {
        self.keys = keys
        self.http = http
        self.timeout = timeout
    }

    /// The client assertion (RFC 7523), as the Security Framework §4.1 asks for it.
    package struct ClientAssertion: JWTPayload {
        package var iss: String
        package var sub: String
        package var aud: String
        package var iat: Int
        package var exp: Int
        package var jti: String

        package func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// A token for `scopes` at `platform`, from the cache while it has a minute left.
    package func token(_ platform: LearningPlatform, scopes: [String], now: Date = Date()) async throws -> String {
        let scope = scopes.sorted().joined(separator: " ")
        let key = "\(platform.id) \(platform.tokenUrl) \(scope)"
        if let cached = tokens[key], cached.until > now.addingTimeInterval(60) { return cached.token }
        let assertion = try await keys.sign(
            ClientAssertion(
                iss: platform.clientId, sub: platform.clientId, aud: platform.tokenUrl,
                iat: Int(now.timeIntervalSince1970), exp: Int(now.timeIntervalSince1970) + 300, jti: OpaqueToken.make())
        )
        let form = [
            ("grant_type", "client_credentials"),
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", assertion), ("scope", scope),
        ].map { "\($0)=\(OpenIDProvider.formEncoded($1))" }.joined(separator: "&")
        let (status, _, body) = try await call(
            .POST, platform.tokenUrl, contentType: "application/x-www-form-urlencoded", accept: "application/json",
            body: Data(form.utf8), bearer: nil)
        let answer = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        guard status == 200, let token = answer?["access_token"] as? String else {
            let error = answer?["error"] as? String ?? "HTTP \(status)"
            throw DeliveryFailure(
                permanent: Self.permanent(status), description: "the token endpoint refused: \(error)")
        }
        let lifetime = (answer?["expires_in"] as? NSNumber)?.doubleValue ?? 3600
        tokens[key] = (token, now.addingTimeInterval(lifetime))
        return token
    }

    /// Members asked for in one page of the roster.
    package static let pageSize = 100

    /// Every member of the course, following `rel="next"` through at most 1,000 pages.
    package func members(_ platform: LearningPlatform, url: String) async throws -> [LTI.Member] {
        let token = try await token(platform, scopes: [LTI.Scope.memberships])
        var members: [LTI.Member] = []
        // Pages of a size Rollcall chooses: a platform's default may be the whole course in one answer.
        var first = URLComponents(string: url)
        let items = first?.queryItems ?? []
        if !items.contains(where: { $0.name == "limit" }) {
            first?.queryItems = items + [URLQueryItem(name: "limit", value: String(Self.pageSize))]
        }
        var next: String? = first?.string ?? url
        var pages = 0
        while let page = next, pages < 1000 {
            let (status, headers, body) = try await call(
                .GET, page, contentType: nil, accept: "application/vnd.ims.lti-nrps.v2.membershipcontainer+json",
                body: nil, bearer: token)
            guard status == 200, let container = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
            else {
                throw DeliveryFailure(
                    permanent: Self.permanent(status), description: "the roster answered HTTP \(status)")
            }
            members += LTI.members(container)
            next = LTI.nextPage(linkHeaders: headers["Link"])
            pages += 1
        }
        return members
    }

    /// The course's "Attendance" line item: the one found by Rollcall's resource id, or a new one bound to the
    /// placed link (`resourceLinkId`), each call with the narrowest scope the launch offered.
    package func lineItem(_ platform: LearningPlatform, linked: LinkedCourse, lineItemsURL: String, label: String)
        async throws -> String
    {
        if let scope = LTI.scope(for: .findLineItem, offered: linked.offeredScopes),
            let found = try await findLineItem(platform, lineItemsURL: lineItemsURL, scope: scope)
        {
            return found
        }
        guard let scope = LTI.scope(for: .createLineItem, offered: linked.offeredScopes) else {
            throw DeliveryFailure(
                permanent: true, description: "the platform offers no scope to make a line item, and has none")
        }
        let token = try await token(platform, scopes: [scope])
        var item: [String: Any] = [
            "scoreMaximum": 100, "label": label, "resourceId": LTI.lineItemResourceID, "tag": LTI.lineItemTag,
        ]
        if let link = linked.resourceLinkId { item["resourceLinkId"] = link }
        let (made, _, answer) = try await call(
            .POST, lineItemsURL, contentType: "application/vnd.ims.lis.v2.lineitem+json",
            accept: "application/vnd.ims.lis.v2.lineitem+json", body: try JSONSerialization.data(withJSONObject: item),
            bearer: token)
        guard (200..<300).contains(made),
            let created = (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any],
            let id = created["id"] as? String
        else {
            throw DeliveryFailure(
                permanent: Self.permanent(made), description: "the line item was not made: HTTP \(made)")
        }
        return id
    }

    private func findLineItem(_ platform: LearningPlatform, lineItemsURL: String, scope: String) async throws
        -> String?
    {
        let token = try await token(platform, scopes: [scope])
        var search = URLComponents(string: lineItemsURL)
        let query = search?.queryItems ?? []
        search?.queryItems = query + [URLQueryItem(name: "resource_id", value: LTI.lineItemResourceID)]
        let (status, _, body) = try await call(
            .GET, search?.string ?? lineItemsURL, contentType: nil,
            accept: "application/vnd.ims.lis.v2.lineitemcontainer+json", body: nil, bearer: token)
        guard status == 200, let items = (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] else {
            return nil
        }
        return items.first(where: { $0["resourceId"] as? String == LTI.lineItemResourceID })?["id"] as? String
    }

    /// Posts one score to a line item's `/scores`.
    package func post(_ score: LTI.Score, lineItem: String, platform: LearningPlatform, offered: [String]) async throws
    {
        guard let scope = LTI.scope(for: .postScore, offered: offered) else {
            throw DeliveryFailure(permanent: true, description: "the platform offers no scope to post scores")
        }
        let token = try await token(platform, scopes: [scope])
        var url = URLComponents(string: lineItem)
        let path = url?.path ?? ""
        url?.path = path + "/scores"
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let (status, _, body) = try await call(
            .POST, url?.string ?? lineItem + "/scores", contentType: "application/vnd.ims.lis.v1.score+json",
            accept: "application/json", body: try encoder.encode(score), bearer: token)
        guard (200..<300).contains(status) else {
            if status == 401 { tokens = tokens.filter { !$0.key.hasPrefix("\(platform.id) ") } }
            let detail = String(decoding: body.prefix(200), as: UTF8.self)
            throw DeliveryFailure(
                permanent: Self.permanent(status), description: "the score was refused: HTTP \(status) \(detail)")
        }
    }

    /// A refusal that asking again will not change; a 401 is asked again with a new token.
    package static func permanent(_ status: Int) -> Bool {
        (400..<500).contains(status) && ![401, 408, 429].contains(status)
    }

    private func call(
        _ method: HTTPMethod, _ url: String, contentType: String?, accept: String, body: Data?, bearer: String?
    ) async throws -> (Int, HTTPHeaders, Data) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Accept", value: accept)
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await http.execute(request, timeout: .init(timeout))
            let answer = try await response.body.collect(upTo: 8 << 20)
            return (Int(response.status.code), response.headers, Data(buffer: answer))
        } catch {
            throw DeliveryFailure(permanent: false, description: "\(url) did not answer: \(error)")
        }
    }
}
