import Foundation
import RollcallCore
import Testing

@Suite("Single sign-on rules")
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

    @Test func only_the_announced_asymmetric_algorithms_are_accepted() throws {
        try SingleSignOn.checkAlgorithm("RS256", announced: ["RS256", "ES256"])
        try SingleSignOn.checkAlgorithm("ES256", announced: ["RS256", "ES256"])
        try SingleSignOn.checkAlgorithm("RS256", announced: [])  // the default when none is announced
        for (algorithm, announced) in [
            ("none", ["RS256", "none"]), ("HS256", ["RS256", "HS256"]), ("hs512", ["hs512"]), ("ES256", ["RS256"]),
            ("PS256", []), ("", ["RS256"]),
        ] {
            #expect(throws: SingleSignOnRefusal.algorithmNotAllowed(algorithm), "\(algorithm)") {
                try SingleSignOn.checkAlgorithm(algorithm, announced: announced)
            }
        }
    }

    @Test func pkce_s256_matches_the_rfc_example() {
        // RFC 7636, appendix B.
        #expect(
            SingleSignOn.codeChallenge(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func the_role_claim_makes_teachers_of_the_values_the_school_names() {
        let teachers: Set<String> = ["faculty", "Staff"]
        #expect(SingleSignOn.role(claimValues: ["student", "faculty"], teacherValues: teachers) == .teacher)
        #expect(SingleSignOn.role(claimValues: ["STAFF"], teacherValues: teachers) == .teacher)
        #expect(SingleSignOn.role(claimValues: ["student", "member"], teacherValues: teachers) == .student)
        #expect(SingleSignOn.role(claimValues: [], teacherValues: teachers) == .student)
        #expect(SingleSignOn.role(claimValues: ["faculty"], teacherValues: []) == .student)
    }

    @Test func the_address_counts_as_verified_only_when_the_provider_says_so() {
        #expect(SingleSignOn.email(Self.claims())! == ("ada@school.test", true))
        #expect(SingleSignOn.email(Self.claims { $0.emailVerified = false })! == ("ada@school.test", false))
        #expect(SingleSignOn.email(Self.claims { $0.emailVerified = nil })! == ("ada@school.test", false))
        #expect(SingleSignOn.email(Self.claims { $0.email = "not an address" }) == nil)
        #expect(SingleSignOn.email(Self.claims { $0.email = nil }) == nil)
    }
}
