import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

/// What a check-in writes beside its attendance row, in the group commit's transaction: a walk-in's enrolment, the
/// passkey's challenge used up with its verification and the flags it raises, or the flag a refused shared phone
/// leaves. A crash leaves all of it or none of it.
package struct CheckInFollowUp: Sendable {
    package var studentName: String
    package var deviceID: String?
    /// The course the student joins with this check-in, when not on its roster yet.
    package var joins: Int64?
    /// What proved the student's identity, kept only once the check-in is accepted.
    package var identity: IdentityEvidence?
    package var now: Date

    package init(
        studentName: String, deviceID: String? = nil, joins: Int64? = nil, identity: IdentityEvidence? = nil, now: Date
    ) {
        self.studentName = studentName
        self.deviceID = deviceID
        self.joins = joins
        self.identity = identity
        self.now = now
    }

    /// Whether an accepted check-in has anything to keep beside its row.
    package var keepsAnything: Bool { joins != nil || identity != nil }

    /// Writes what an accepted check-in (new or repeated) keeps.
    package func accepted(_ seat: AttendanceLedger.Seat, in sql: Transaction) async throws {
        if let joins { _ = try await RosterStore.enroll(courseID: joins, studentID: seat.studentID, at: now, in: sql) }
        switch identity {
        case nil: return
        case .reused(let last):
            try await PasskeyStore.recordVerification(
                userID: seat.studentID, credentialID: last.credentialId, sessionID: seat.sessionID, deviceID: deviceID,
                backupEligible: last.backupEligible, backedUp: last.backedUp, reused: true, now: now, in: sql
            )
        case .asserted(let checked):
            // The same answer sent twice for one check-in: the request that used the challenge keeps the evidence.
            guard try await PasskeyStore.redeem(checked, now: now, in: sql) else { return }
            try await verified(checked, seat: seat, in: sql)
        }
    }

    /// Keeps a passkey verification, and tells the teacher when the counter went backwards or one passkey came from
    /// two devices.
    private func verified(_ checked: CheckedAssertion, seat: AttendanceLedger.Seat, in sql: Transaction) async throws {
        let (passkey, assertion) = (checked.passkey, checked.assertion)
        let others = try await PasskeyStore.devices(
            sessionID: seat.sessionID, credentialID: passkey.credentialId, in: sql)
        try await PasskeyStore.recordVerification(
            userID: seat.studentID, credentialID: passkey.credentialId, sessionID: seat.sessionID, deviceID: deviceID,
            backupEligible: assertion.backupEligible, backedUp: assertion.backedUp, reused: false, now: now, in: sql
        )
        if let deviceID, !others.isEmpty, !others.contains(deviceID) {
            try await CheckInStore.flag(
                sessionID: seat.sessionID, studentID: seat.studentID, kind: .passkeyTwoDevices,
                detail: FlagWords.passkeyTwoDevices(student: studentName, passkey: passkey.name), in: sql)
        }
        if assertion.counterRegressed {
            try await CheckInStore.flag(
                sessionID: seat.sessionID, studentID: seat.studentID, kind: .passkeyCounterRegressed,
                detail: FlagWords.passkeyCounterRegressed(student: studentName, passkey: passkey.name), in: sql)
        }
    }

    /// Flags a check-in tried from a phone another student used, naming both, so that the teacher can find the one
    /// who lent the phone too. The flag exists to record the refusal: it is all a refused check-in leaves.
    /// Tells the teacher a student tried and was refused for where the phone placed them, once per session and
    /// kind (the flag's unique index keeps it once in every process): the room's flags list them, and the teacher
    /// may mark the student by hand.
    package func refused(
        _ seat: AttendanceLedger.Seat, kind: FlagKind, refusal: CheckInRefusal, reading: LocationReading?,
        in sql: Transaction
    ) async throws {
        let detail =
            switch kind {
            case .triedOutOfRange:
                FlagWords.outOfRange(student: studentName, metres: refusal.distance.map { Int($0.rounded()) })
            default:
                FlagWords.imprecise(student: studentName, metres: reading.map { Int($0.accuracy.rounded()) })
            }
        try await CheckInStore.flag(
            sessionID: seat.sessionID, studentID: seat.studentID, kind: kind, detail: detail, in: sql)
    }

    package func sharedDevice(_ seat: AttendanceLedger.Seat, in sql: Transaction) async throws {
        var owner: (id: Int64, name: String)?
        if let deviceID {
            owner = try await CheckInStore.deviceOwner(sessionID: seat.sessionID, deviceID: deviceID, in: sql)
        }
        let detail = FlagWords.sharedPhone(student: studentName, owner: owner?.name)
        try await CheckInStore.flag(
            sessionID: seat.sessionID, studentID: seat.studentID, otherStudentID: owner?.id, kind: .deviceAlreadyUsed,
            detail: detail, in: sql)
    }
}

/// What proved a checking-in student's identity (`CheckInVerification`).
package enum IdentityEvidence: Sendable {
    /// A verification made earlier from the same phone, within the course's reuse window.
    case reused(CheckInVerificationRecord)
    /// A passkey assertion, checked and not yet redeemed.
    case asserted(CheckedAssertion)
}
