/// The codes Rollcall's own clients (the app, the command line and the pages' scripts) give a failure the server
/// never answered, beside the server's `ErrorCode`s in the same `code` field, so that a screen branches on one kind
/// of value.
public enum ClientErrorCode: String, CaseIterable, Codable, Sendable {
    /// The server could not be reached: no network, or it did not answer.
    case networkUnavailable = "network_unavailable"
    /// The server answered with something the client cannot read, such as a proxy's page.
    case unexpectedAnswer = "unexpected_answer"
    /// A check-in failed on the phone before an answer came, for a reason that is neither of the above.
    case checkInInterrupted = "check_in_interrupted"
    /// The person dismissed the browser's or phone's passkey prompt.
    case verificationCancelled = "verification_cancelled"
    /// The browser's passkey prompt failed for another reason, said in the message.
    case passkeyFailed = "passkey_failed"
}
