import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

/// One check-in waiting to be written.
package struct PendingCheckIn: Sendable {
    package var sessionID: Int64
    package var studentID: Int64
    package var status: AttendanceStatus
    package var at: Date
    package var evidence: CheckInEvidence
    package var unboundTicket: String?
    /// Written in the same transaction as the row, or (for a phone another student used) instead of it.
    package var followUp: CheckInFollowUp

    package init(
        sessionID: Int64, studentID: Int64, status: AttendanceStatus, at: Date, evidence: CheckInEvidence,
        unboundTicket: String? = nil, followUp: CheckInFollowUp
    ) {
        self.sessionID = sessionID
        self.studentID = studentID
        self.status = status
        self.at = at
        self.evidence = evidence
        self.unboundTicket = unboundTicket
        self.followUp = followUp
    }
}

/// Writes check-ins in groups (`StatementGroups`): whoever arrives while a group is being written waits for the next one,
/// and each group is one transaction of a few multi-row statements. A room checking in at once thus costs a handful
/// of statements per group instead of several per student, and every student is still answered only after the
/// transaction holding their row, and everything the check-in decided beside it, has committed.
package struct CheckInBatcher: Sendable {
    private let groups: StatementGroups<PendingCheckIn, CheckInOutcome>
    /// Rows per statement stay well under SQLite's limit of bound parameters.
    package static let largestGroup = 400

    package init(database: Database) {
        groups = StatementGroups(largest: Self.largestGroup) { group in
            await Self.writeGroup(group, database: database)
        }
    }

    package func record(_ checkIn: PendingCheckIn) async throws -> CheckInOutcome {
        try await groups.submit(checkIn)
    }

    /// Writes one group in its own transaction. Another process (on PostgreSQL) may bind a ticket of the group
    /// between reading the tickets' owners and recording the evidence; the unique index then refuses the whole
    /// transaction. Written again, the group reads that owner, so the student who lost the race is told the ticket
    /// is taken and the others are written as before.
    private static func writeGroup(
        _ group: [PendingCheckIn], database: Database
    ) async -> [Result<CheckInOutcome, any Error>] {
        var attempts = 0
        while true {
            attempts += 1
            do {
                let outcomes = try await database.transaction { sql in try await Self.write(group, sql: sql) }
                return outcomes.map { .success($0) }
            } catch
                where attempts < Self.ticketRaceAttempts
                && database.isUniqueViolation(
                    error, index: Self.ticketIndex)
            {
                continue
            } catch {
                return Array(repeating: .failure(error), count: group.count)
            }
        }
    }

    /// The unique index that makes a ticket scanned signed out belong to one student.
    package static let ticketIndex = "check_in_evidence_ticket"
    /// Each lost race leaves the ticket's owner committed, so a second attempt sees it; a few more cover several.
    package static let ticketRaceAttempts = 5

    /// A device in a session: the first student to check in from it there owns it.
    private struct DeviceSeat: Hashable {
        package var sessionID: Int64
        package var deviceID: String
    }

    /// Writes one group; the outcomes come back in the group's order.
    package static func write(_ group: [PendingCheckIn], sql: Transaction) async throws -> [CheckInOutcome] {
        try await shareSessions(group, sql: sql)
        var outcomes = try await refusedJoins(group, sql: sql)
        let claiming = group.indices.filter { outcomes[$0] == nil }.map { group[$0] }
        let deviceOwners = try await claimDevices(claiming, sql: sql)
        var ticketOwners = try await ticketOwners(group, sql: sql)
        // One row per (session, student): a second attempt in the same group repeats the first.
        var firstAttempt: [AttendanceLedger.Seat: Int] = [:]
        var rows: [AttendanceLedger.CheckInRow] = []
        for (index, checkIn) in group.enumerated() where outcomes[index] == nil {
            if let device = checkIn.evidence.deviceID,
                let owner = deviceOwners[DeviceSeat(sessionID: checkIn.sessionID, deviceID: device)],
                owner != checkIn.studentID
            {
                outcomes[index] = .deviceTaken
                continue
            }
            if let ticket = checkIn.unboundTicket {
                if let owner = ticketOwners[ticket], owner != checkIn.studentID {
                    outcomes[index] = .ticketTaken
                    continue
                }
                ticketOwners[ticket] = checkIn.studentID
            }
            if firstAttempt[checkIn.seat] == nil {
                firstAttempt[checkIn.seat] = index
                rows.append(
                    .init(seat: checkIn.seat, status: checkIn.status, at: checkIn.at, via: checkIn.evidence.via))
            }
        }
        let written = try await AttendanceLedger.checkIn(rows, in: sql)
        let firstWritten = group.indices.filter {
            firstAttempt[group[$0].seat] == $0 && written.contains(group[$0].seat)
        }
        try await recordEvidence(firstWritten.map { group[$0] }, sql: sql)
        for (index, checkIn) in group.enumerated() {
            if outcomes[index] == .deviceTaken {
                try await checkIn.followUp.sharedDevice(checkIn.seat, in: sql)
                continue
            }
            guard outcomes[index] == nil else { continue }
            if firstAttempt[checkIn.seat] == index && written.contains(checkIn.seat) {
                outcomes[index] = .recorded(checkIn.status, checkIn.at)
            } else if let existing = try await AttendanceLedger.record(checkIn.seat, in: sql) {
                outcomes[index] = .existing(existing.status, existing.recordedAt)
            } else {
                throw NotSaved(what: "check-in")
            }
            try await checkIn.followUp.accepted(checkIn.seat, in: sql)
        }
        return outcomes.map { $0! }
    }

    /// The walk-ins of the group who may no longer join, refused; `nil` for every other. A walk-in joins the course
    /// as it is now: one archived, or an account erased, since the check-in was decided is refused, and claims no
    /// device.
    private static func refusedJoins(_ group: [PendingCheckIn], sql: Transaction) async throws -> [CheckInOutcome?] {
        var outcomes = [CheckInOutcome?](repeating: nil, count: group.count)
        for (index, checkIn) in group.enumerated() {
            guard let joins = checkIn.followUp.joins else { continue }
            outcomes[index] = try await RosterStore.joinRefusal(courseID: joins, studentID: checkIn.studentID, in: sql)
                .map { .joinRefused($0) }
        }
        return outcomes
    }

    /// Takes the group's sessions in shared mode before writing anything, in one order: check-ins in one session
    /// from several processes go on side by side, while a teacher's change holding the session (`SessionStore.lock`)
    /// is waited for rather than met half-way, where each would wait for the other's row. With each session its event
    /// log, in the same order, since the group appends check-ins for all its sessions and then flags session by
    /// session; its notification goes out at the commit. One statement; SQLite's one writer needs none of this.
    private static func shareSessions(_ group: [PendingCheckIn], sql: Transaction) async throws {
        try await EventLog.share(Set(group.map(\.sessionID)), rowsOf: "sessions", announcing: .sessions, sql: sql)
    }

    /// Binds each device to the first student who checks in from it in a session, and answers every device's
    /// owner, new or already on record.
    private static func claimDevices(_ group: [PendingCheckIn], sql: Transaction) async throws -> [DeviceSeat: Int64] {
        var claims: [DeviceSeat: Int64] = [:]
        for checkIn in group {
            guard let device = checkIn.evidence.deviceID else { continue }
            let seat = DeviceSeat(sessionID: checkIn.sessionID, deviceID: device)
            if claims[seat] == nil { claims[seat] = checkIn.studentID }
        }
        guard !claims.isEmpty else { return [:] }
        let now = Date()
        var insert = sql.insert(into: "device_bindings").columns("session_id", "device_id", "student_id", "created_at")
        for (seat, student) in claims {
            insert = insert.values(SQLBind(seat.sessionID), SQLBind(seat.deviceID), SQLBind(student), SQLBind(now))
        }
        // The no-op update makes the statement return the owner already on record as well as new ones.
        let rows = try await insert.onConflict(with: ["session_id", "device_id"]) {
            $0.set(SQLColumn("student_id"), to: SQLColumn("student_id", table: "device_bindings"))
        }.returning("session_id", "device_id", "student_id").all()
        var owners: [DeviceSeat: Int64] = [:]
        for row in rows {
            let seat = DeviceSeat(
                sessionID: try row.decode(column: "session_id", as: Int64.self),
                deviceID: try row.decode(column: "device_id", as: String.self)
            )
            owners[seat] = try row.decode(column: "student_id", as: Int64.self)
        }
        return owners
    }

    /// Who already checked in with each ticket of the group that was scanned signed out: its first student owns it,
    /// as the evidence records.
    private static func ticketOwners(_ group: [PendingCheckIn], sql: Transaction) async throws -> [String: Int64] {
        let tickets = Set(group.compactMap(\.unboundTicket))
        guard !tickets.isEmpty else { return [:] }
        var owners: [String: Int64] = [:]
        for row in try await sql.select().columns("ticket_hash", "student_id").from("check_in_evidence")
            .where("ticket_hash", .in, Array(tickets)).all()
        {
            owners[try row.decode(column: "ticket_hash", as: String.self)] = try row.decode(
                column: "student_id", as: Int64.self)
        }
        return owners
    }

    /// Keeps where and from what each new check-in came, beside its row.
    private static func recordEvidence(_ checkIns: [PendingCheckIn], sql: Transaction) async throws {
        guard !checkIns.isEmpty else { return }
        var insert = sql.insert(into: "check_in_evidence")
            .columns(
                "session_id", "student_id", "latitude", "longitude", "accuracy", "distance", "device_id",
                "client_address", "via", "created_at", "ticket_hash"
            )
        for checkIn in checkIns {
            let proof = checkIn.evidence
            insert = insert.values(
                SQLBind(checkIn.sessionID), SQLBind(checkIn.studentID), SQLBind(proof.reading?.point.latitude),
                SQLBind(proof.reading?.point.longitude), SQLBind(proof.reading?.accuracy), SQLBind(proof.distance),
                SQLBind(proof.deviceID), SQLBind(proof.clientAddress), SQLBind(proof.via.rawValue),
                SQLBind(checkIn.at), SQLBind(checkIn.unboundTicket)
            )
        }
        try await insert.ignoringConflicts(with: ["session_id", "student_id"]).run()
    }
}

extension PendingCheckIn {
    package var seat: AttendanceLedger.Seat { AttendanceLedger.Seat(sessionID: sessionID, studentID: studentID) }
}
