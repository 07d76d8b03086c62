import Foundation
import Hummingbird
import RollcallCore
import RollcallProtocol

/// An assertion that verified, with nothing stored yet: `PasskeyCeremony.redeem` uses it.
struct CheckedAssertion: Sendable {
    var passkey: Passkey
    var assertion: VerifiedAssertion
    var challenge: PasskeyChallenge
}
