import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore

/// The key sets (JWKS) that signers publish, the school's provider and the learning platforms alike: fetched at
/// first use, kept as long as the signer's cache headers say, and fetched again once when a token names a `kid` not
/// seen yet, so that a rotation is followed without a restart.
actor PublishedKeys {
    private let http: HTTPClient
    private let timeout: Duration
    private var sets: [String: (byID: [String: JWK], until: Date)] = [:]

    init(http: HTTPClient = .shared, timeout: Duration) {
        self.http = http
        self.timeout = timeout
    }

    /// Verifies a token's signature with the key named `kid` in the set at `url`. A token without a `kid` is taken
    /// only when the set holds a single key.
    func verifySignature(_ token: String, kid: String?, at url: String, now: Date) async throws {
        let key = try await key(named: kid, at: url, now: now)
        // Only the named key is in the collection: jwt-kit would otherwise fall back to a default key.
        let collection = JWTKeyCollection()
        do {
            try await collection.add(jwk: key)
            _ = try await collection.verify(token, as: SignatureOnly.self)
        } catch {
            throw SingleSignOnFailure.badSignature
        }
    }

    /// The published key with this `kid`; a `kid` not seen yet fetches the set again, once.
    func key(named kid: String?, at url: String, now: Date) async throws -> JWK {
        if let set = sets[url], set.until > now, let found = Self.pick(kid, from: set.byID) { return found }
        let fresh = try await fetchKeys(url, now: now)
        guard let found = Self.pick(kid, from: fresh) else { throw SingleSignOnFailure.unknownKey }
        return found
    }

    private static func pick(_ kid: String?, from keys: [String: JWK]) -> JWK? {
        guard let kid else { return keys.count == 1 ? keys.values.first : nil }
        return keys[kid]
    }

    private func fetchKeys(_ url: String, now: Date) async throws -> [String: JWK] {
        let (body, lifetime) = try await Self.fetch(url, http: http, timeout: timeout)
        guard let set = try? JSONDecoder().decode(JWKS.self, from: body) else {
            throw SingleSignOnFailure.providerUnavailable("its key set is not one")
        }
        var byID: [String: JWK] = [:]
        for key in set.keys {
            byID[key.keyIdentifier?.string ?? ""] = key
        }
        sets[url] = (byID, now.addingTimeInterval(lifetime))
        return byID
    }

    /// GETs a JSON document; answers its body and how long it may be kept (`Cache-Control: max-age`).
    static func fetch(_ url: String, http: HTTPClient, timeout: Duration) async throws -> (Data, TimeInterval) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        do {
            let response = try await http.execute(request, timeout: .init(timeout))
            let body = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else {
                throw SingleSignOnFailure.providerUnavailable("\(url) answered HTTP \(response.status.code)")
            }
            return (Data(buffer: body), OpenIDProvider.lifetime(cacheControl: response.headers["Cache-Control"].first))
        } catch let failure as SingleSignOnFailure {
            throw failure
        } catch {
            throw SingleSignOnFailure.providerUnavailable("\(url) did not answer")
        }
    }
}

/// A token whose signature is all jwt-kit checks here: its claims are checked by the rules of the protocol.
struct SignatureOnly: JWTPayload {
    func verify(using algorithm: some JWTAlgorithm) async throws {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
}
