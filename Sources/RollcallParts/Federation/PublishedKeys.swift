import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import RollcallCore
import RollcallProtocol

/// The one verifier of signed tokens, for the school's provider and the learning platforms alike: one algorithm
/// rule (`SingleSignOn.checkAlgorithm`), and one cache of the key sets (JWKS) that issuers publish, kept as long as
/// their cache headers say (a minute at least), fetched again when a token names a `kid` not seen yet (a rotation,
/// followed at once; after that at most once per `refetchInterval`, so that made-up key ids cost no fetch each), and
/// fetched once for callers who ask at the same moment.
package actor PublishedKeys {
    private struct KeySet {
        package var byID: [String: JWK]
        package var until: Date
        package var fetchedAt: Date
        /// Fetched again for a `kid` it lacked: the next unknown `kid` waits for `refetchInterval`.
        package var refetched = false
    }

    private struct Header: Decodable {
        package var alg: String?
        package var kid: String?
    }

    private let http: HTTPClient
    private let timeout: Duration
    private var sets: [String: KeySet] = [:]
    private var fetching: [String: Task<KeySet, any Error>] = [:]
    /// How soon after a fetch a token naming an unknown `kid` may fetch the set again: a rotation is followed within
    /// it, and anonymous tokens with made-up key ids cost one fetch per interval, not one each.
    package let refetchInterval: TimeInterval

    package init(http: HTTPClient = .shared, timeout: Duration, refetchInterval: TimeInterval = 10) {
        self.http = http
        self.timeout = timeout
        self.refetchInterval = refetchInterval
    }

    /// Verifies a signed token and answers its payload's bytes: its algorithm must be one the issuer `announced`
    /// (an HMAC only where a `secret` keys it), and its signature must check out with the key its `kid` names in the
    /// set at `url`, or with the secret. A token without a `kid` is taken only from a set of one key, and not at all
    /// where the protocol asks for one (`requiresKeyID`, as LTI does).
    package func verify(
        _ token: String, keySet url: String, announced: [String], secret: String?, requiresKeyID: Bool = false,
        now: Date
    ) async throws -> Data {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
            let payload = Base64URL.decode(String(parts[1])).map({ Data($0) })
        else { throw SingleSignOnFailure.tokenRefused(.unreadable) }
        let algorithm = header.alg ?? ""
        do throws(SingleSignOnRefusal) {
            try SingleSignOn.checkAlgorithm(algorithm, announced: announced, secretBytes: secret?.utf8.count)
        } catch {
            throw SingleSignOnFailure.tokenRefused(error)
        }
        // Only the one key is in the collection: jwt-kit would otherwise fall back to a default key.
        let collection = JWTKeyCollection()
        if let secret, let digest = Self.digests[algorithm] {
            await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: digest)
        } else {
            guard header.kid?.isEmpty == false || !requiresKeyID else { throw SingleSignOnFailure.unknownKey }
            let key = try await key(named: header.kid, at: url, now: now)
            do {
                try await collection.add(jwk: key)
            } catch {
                throw SingleSignOnFailure.badSignature
            }
        }
        do {
            _ = try await collection.verify(token, as: SignatureOnly.self)
        } catch {
            throw SingleSignOnFailure.badSignature
        }
        return payload
    }

    private static let digests: [String: DigestAlgorithm] = ["HS256": .sha256, "HS384": .sha384, "HS512": .sha512]

    /// The published key with this `kid`. A `kid` not in the set fetches it again at once (a rotation), but a
    /// set fetched again for that reason is fetched again only after `refetchInterval`.
    package func key(named kid: String?, at url: String, now: Date) async throws -> JWK {
        var refetch = false
        if let set = sets[url], set.until > now {
            if let found = Self.pick(kid, from: set.byID) { return found }
            guard !set.refetched || now.timeIntervalSince(set.fetchedAt) >= refetchInterval else {
                throw SingleSignOnFailure.unknownKey
            }
            refetch = true
        }
        var fresh = try await fetchOnce(url, now: now)
        if refetch {
            fresh.refetched = true
            sets[url] = fresh
        }
        guard let found = Self.pick(kid, from: fresh.byID) else { throw SingleSignOnFailure.unknownKey }
        return found
    }

    private static func pick(_ kid: String?, from keys: [String: JWK]) -> JWK? {
        guard let kid else { return keys.count == 1 ? keys.values.first : nil }
        return keys[kid]
    }

    /// Fetches the set at `url`, or waits for the fetch already under way.
    private func fetchOnce(_ url: String, now: Date) async throws -> KeySet {
        if let running = fetching[url] { return try await running.value }
        let (http, timeout) = (http, timeout)
        let task = Task { try await Self.fetchKeys(url, http: http, timeout: timeout, now: now) }
        fetching[url] = task
        defer { fetching[url] = nil }
        let set = try await task.value
        sets[url] = set
        return set
    }

    private static func fetchKeys(_ url: String, http: HTTPClient, timeout: Duration, now: Date) async throws -> KeySet
    {
        let (body, lifetime) = try await fetch(url, http: http, timeout: timeout)
        let set: JWKS
        do {
            set = try JSONDecoder().decode(JWKS.self, from: body)
        } catch {
            throw SingleSignOnFailure.providerUnavailable("its key set is not one")
        }
        var byID: [String: JWK] = [:]
        for key in set.keys {
            byID[key.keyIdentifier?.string ?? ""] = key
        }
        return KeySet(byID: byID, until: now.addingTimeInterval(lifetime), fetchedAt: now)
    }

    /// GETs a JSON document; answers its body and how long it may be kept: its `Cache-Control: max-age`, a minute
    /// at least, so that a provider that says `no-store` is not asked again for every sign-in.
    package static func fetch(_ url: String, http: HTTPClient, timeout: Duration) async throws -> (Data, TimeInterval) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        do {
            let response = try await http.execute(request, timeout: .init(timeout))
            let body = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else {
                throw SingleSignOnFailure.providerUnavailable("\(url) answered HTTP \(response.status.code)")
            }
            let lifetime = OpenIDProvider.lifetime(cacheControl: response.headers["Cache-Control"].first)
            return (Data(buffer: body), max(minimumLifetime, lifetime))
        } catch let failure as SingleSignOnFailure {
            throw failure
        } catch {
            throw SingleSignOnFailure.providerUnavailable("\(url) did not answer")
        }
    }

    /// The least time a fetched document or key set is kept.
    package static let minimumLifetime: TimeInterval = 60
}

/// A token whose signature is all jwt-kit checks here: its claims are checked by the rules of the protocol.
package struct SignatureOnly: JWTPayload {
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
    package init(from decoder: any Decoder) throws {}
    package func encode(to encoder: any Encoder) throws {}
}
