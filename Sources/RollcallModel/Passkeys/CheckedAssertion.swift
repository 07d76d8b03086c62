import RollcallCore

/// An assertion that verified, with nothing stored yet: `PasskeyCeremony.redeem` uses it.
package struct CheckedAssertion: Sendable {
    package var passkey: Passkey
    package var assertion: VerifiedAssertion
    package var challenge: PasskeyChallenge

    package init(passkey: Passkey, assertion: VerifiedAssertion, challenge: PasskeyChallenge) {
        self.passkey = passkey
        self.assertion = assertion
        self.challenge = challenge
    }
}
