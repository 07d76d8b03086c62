import Foundation
import RollcallCore
import RollcallModel

/// A scan of the projected code, pinned so that signing in or a slow phone cannot make a fresh scan expire.
package struct CheckInTicket: Sendable, Equatable {
    /// What the check-in records when the ticket was scanned signed out, so that only its first student can use it.
    package var tokenHash: String
    package var sessionId: Int64
    /// The code step that was scanned; the ticket carries its freshness.
    package var step: Int64
    package var scannedAt: Date
    package var expiresAt: Date
    /// The student who scanned signed in; nobody else can use the ticket.
    package var studentId: Int64?
}

/// Scan tickets: a fresh code becomes a ticket signed by its session, and a ticket is read back by checking that
/// signature. Nothing is stored: the ticket carries what was scanned.
package struct ScanTickets: Sendable {
    /// Where a ticket finds its session's secret.
    package let sessions: SessionStore

    package static let lifetime: TimeInterval = ScanTicket.lifetime

    /// Pins a scan of `step` in a ticket signed by the session.
    package func issue(session: ClassSession, step: Int64, scannedAt: Date, studentID: Int64?) -> String {
        ScanTicket(sessionRef: session.id, step: step, scannedAt: scannedAt, studentID: studentID)
            .signed(secret: session.secret)
    }

    /// The ticket `token` holds, if its session signed it.
    package func read(_ token: String) async throws -> CheckInTicket? {
        guard let ref = ScanTicket.sessionRef(of: token), let session = try await sessions.fixedParts(id: ref),
            let ticket = ScanTicket.verify(token, secret: session.secret)
        else { return nil }
        return CheckInTicket(
            tokenHash: OpaqueToken.digest(token), sessionId: session.id, step: ticket.step,
            scannedAt: ticket.scannedAt, expiresAt: ticket.expiresAt, studentId: ticket.studentID
        )
    }
}
