import Foundation
import RollcallCore
import Testing

@Suite("Single sign-on rules", .timeLimit(.minutes(5)))
struct SingleSignOnTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let issuer = "https://login.school.test"
    static let client = "rollcall"

    /// A token that passes every check; each case below breaks one thing.
    static func claims(_ change: (inout IDTokenClaims) -> Void = { _ in }) -> IDTokenClaims {
        var claims = IDTokenClaims(
            issuer: issuer, subject: "248289761001", audience: [client], expiresAt: now.addingTimeInterval(300),
            issuedAt: now.addingTimeInterval(-5), nonce: "n-0S6_WzA2Mj", email: "Ada@School.test", emailVerified: true,
            name: "Ada Lovelace")
        change(&claims)
        return claims
    }

    static func check(_ claims: IDTokenClaims) -> SingleSignOnRefusal? {
        do throws(SingleSignOnRefusal) {
            try SingleSignOn.check(claims, issuer: issuer, clientID: client, nonce: "n-0S6_WzA2Mj", now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func a_token_for_this_sign_in_passes() {
        #expect(Self.check(Self.claims()) == nil)
        #expect(
            Self.check(
                Self.claims {
                    $0.audience = [Self.client, "other"]; $0.authorizedParty = Self.client
                }) == nil)
        #expect(Self.check(Self.claims { $0.authorizedParty = Self.client }) == nil)
        // Within the allowed skew on both sides.
        #expect(Self.check(Self.claims { $0.expiresAt = Self.now.addingTimeInterval(-60) }) == nil)
        #expect(Self.check(Self.claims { $0.issuedAt = Self.now.addingTimeInterval(60) }) == nil)
    }

    @Test(
        arguments: [
            ("another issuer", claims { $0.issuer = "https://evil.test" }, SingleSignOnRefusal.wrongIssuer),
            ("issuer with a trailing slash", claims { $0.issuer = issuer + "/" }, .wrongIssuer),
            ("another audience", claims { $0.audience = ["someone-else"] }, .wrongAudience),
            ("no audience", claims { $0.audience = [] }, .wrongAudience),
            ("several audiences, no azp", claims { $0.audience = [client, "other"] }, .wrongAuthorizedParty),
            (
                "several audiences, azp another",
                claims {
                    $0.audience = [client, "other"]; $0.authorizedParty = "other"
                },
                .wrongAuthorizedParty
            ),
            ("azp another", claims { $0.authorizedParty = "other" }, .wrongAuthorizedParty),
            ("expired", claims { $0.expiresAt = now.addingTimeInterval(-121) }, .expired),
            ("issued in the future", claims { $0.issuedAt = now.addingTimeInterval(121) }, .issuedInFuture),
            ("no nonce", claims { $0.nonce = nil }, .wrongNonce),
            ("another sign-in's nonce", claims { $0.nonce = "replayed" }, .wrongNonce),
            ("no subject", claims { $0.subject = "" }, .missingSubject),
        ])
    func a_token_that_breaks_a_rule_is_refused_for_that_rule(
        _ what: String, _ claims: IDTokenClaims, _ refusal: SingleSignOnRefusal
    ) {
        #expect(Self.check(claims) == refusal, "\(what)")
        #expect(refusal.reason.count > 10)
        #expect(refusal.code == .ssoTokenRefused)
    }

    @Test func only_the_announced_algorithms_are_accepted() throws {
        try SingleSignOn.checkAlgorithm("RS256", announced: ["RS256", "ES256"], secretBytes: nil)
        try SingleSignOn.checkAlgorithm("ES256", announced: ["RS256", "ES256"], secretBytes: nil)
        try SingleSignOn.checkAlgorithm("RS256", announced: [], secretBytes: nil)  // the default
        for (algorithm, announced) in [
            ("none", ["RS256", "none"]), ("HS256", ["RS256", "HS256"]), ("hs512", ["hs512"]), ("ES256", ["RS256"]),
            ("PS256", []), ("", ["RS256"]),
        ] {
            #expect(throws: SingleSignOnRefusal.algorithmNotAllowed(algorithm), "\(algorithm)") {
                try SingleSignOn.checkAlgorithm(algorithm, announced: announced, secretBytes: nil)
            }
        }
    }

    @Test func an_hmac_is_accepted_only_keyed_with_the_client_secret_and_announced() throws {
        for algorithm in ["HS256", "HS384", "HS512"] {
            try SingleSignOn.checkAlgorithm(algorithm, announced: ["RS256", algorithm], secretBytes: 64)
            // Never keyed with a public key, whatever the provider announces.
            #expect(throws: SingleSignOnRefusal.algorithmNotAllowed(algorithm)) {
                try SingleSignOn.checkAlgorithm(algorithm, announced: ["RS256", algorithm], secretBytes: nil)
            }
            #expect(throws: SingleSignOnRefusal.algorithmNotAllowed(algorithm)) {
                try SingleSignOn.checkAlgorithm(algorithm, announced: ["RS256"], secretBytes: 64)
            }
        }
        // RFC 7518 §3.2: the key is at least as long as the hash's output.
        #expect(throws: SingleSignOnRefusal.secretTooShort(algorithm: "HS512", bytes: 64)) {
            try SingleSignOn.checkAlgorithm("HS512", announced: ["HS512"], secretBytes: 63)
        }
        try SingleSignOn.checkAlgorithm("HS256", announced: ["HS256"], secretBytes: 32)
        #expect(throws: SingleSignOnRefusal.algorithmNotAllowed("hs512")) {
            try SingleSignOn.checkAlgorithm("hs512", announced: ["hs512"], secretBytes: 64)
        }
    }

    @Test func userinfo_fills_what_the_token_lacks_for_the_same_subject_only() throws {
        let bare = Self.claims {
            $0.email = nil
            $0.emailVerified = nil
            $0.name = nil
        }
        let info: [String: [String]] = [
            "sub": [bare.subject], "email": ["ada@school.test"], "name": ["Ada Lovelace"],
            "eduPersonAffiliation": ["faculty"],
        ]
        let merged = try #require(SingleSignOn.merged(bare, userInfo: info))
        #expect(merged.email == "ada@school.test" && merged.name == "Ada Lovelace")
        #expect(merged.emailVerified == nil)
        #expect(merged.others["eduPersonAffiliation"] == ["faculty"])
        // The token's own claims win over UserInfo's.
        #expect(
            SingleSignOn.merged(Self.claims(), userInfo: info.merging(["name": ["Eve"]]) { $1 })?.name == "Ada Lovelace"
        )
        // An answer about someone else is refused.
        #expect(SingleSignOn.merged(bare, userInfo: info.merging(["sub": ["someone-else"]]) { $1 }) == nil)
        #expect(SingleSignOn.merged(bare, userInfo: ["email": ["eve@school.test"]]) == nil)
    }

    @Test func pkce_s256_matches_the_rfc_example() {
        // RFC 7636, appendix B.
        #expect(
            SingleSignOn.codeChallenge(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func the_role_claim_makes_teachers_of_the_values_the_school_names() {
        let teachers: Set<String> = ["faculty", "Staff"]
        #expect(
            SingleSignOn.role(claimValues: ["student", "faculty"], teacherValues: teachers) == .directory(.teacher))
        #expect(SingleSignOn.role(claimValues: ["STAFF"], teacherValues: teachers) == .directory(.teacher))
        #expect(SingleSignOn.role(claimValues: ["student", "member"], teacherValues: teachers) == .directory(.student))
        #expect(SingleSignOn.role(claimValues: [], teacherValues: teachers) == .directory(.student))
        #expect(SingleSignOn.role(claimValues: ["faculty"], teacherValues: []) == .directory(.student))
        // A sign-in without the claim says nothing of the role.
        #expect(SingleSignOn.role(claimValues: nil, teacherValues: teachers) == .absent)
    }

    @Test func the_address_counts_as_verified_only_when_the_provider_says_so() {
        #expect(SingleSignOn.email(Self.claims())! == ("ada@school.test", true))
        #expect(SingleSignOn.email(Self.claims { $0.emailVerified = false })! == ("ada@school.test", false))
        #expect(SingleSignOn.email(Self.claims { $0.emailVerified = nil })! == ("ada@school.test", false))
        #expect(SingleSignOn.email(Self.claims { $0.email = "not an address" }) == nil)
        #expect(SingleSignOn.email(Self.claims { $0.email = nil }) == nil)
    }

    @Test func a_trusted_domain_vouches_only_where_the_provider_says_nothing() {
        let trusted: Set<String> = ["school.test"]
        #expect(
            SingleSignOn.email(Self.claims { $0.emailVerified = nil }, trustedDomains: trusted)! == (
                "ada@school.test", true
            ))
        #expect(
            SingleSignOn.email(Self.claims { $0.emailVerified = false }, trustedDomains: trusted)! == (
                "ada@school.test", false
            ))
        #expect(
            SingleSignOn.email(
                Self.claims {
                    $0.emailVerified = nil
                    $0.email = "ada@elsewhere.test"
                }, trustedDomains: trusted)! == ("ada@elsewhere.test", false))
    }
}
