/// Why a message or a job could not be handed over (to the mail server, the SMS gateway, a platform), and whether
/// trying again can help.
package struct DeliveryFailure: Error, CustomStringConvertible {
    /// The server refused the message itself (a 5xx answer to MAIL, RCPT or DATA): trying again cannot help.
    package var permanent: Bool
    package var description: String

    package init(permanent: Bool, description: String) {
        self.permanent = permanent
        self.description = description
    }
}
