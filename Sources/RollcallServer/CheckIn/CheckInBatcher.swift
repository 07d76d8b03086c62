import Foundation
import RollcallCore
import SQLKit

/// One check-in waiting to be written.
struct PendingCheckIn: Sendable {
    var sessionID: Int64
    var studentID: Int64
    var status: AttendanceStatus
    var at: Date
    var evidence: CheckInEvidence
    var unboundTicket: String?
}

/// Writes check-ins in groups: whoever arrives while a group is being written waits for the next one, and each
/// group is one transaction of a few multi-row statements. A room checking in at once thus costs a handful of
/// statements per group instead of several per student, and every student is still answered only after the
/// transaction holding their row has committed.
actor CheckInBatcher {
    private let database: Database
    private var pending: [(PendingCheckIn, Slot)] = []
    private var writing = false
    /// Rows per statement stay well under SQLite's limit of bound parameters.
    static let largestGroup = 400

    init(database: Database) {
        self.database = database
    }

    /// Where one caller's outcome is left for them.
    final class Slot: @unchecked Sendable {
        // Touched only on the actor.
        var continuation: CheckedContinuation<CheckInOutcome, any Error>?
        var result: Result<CheckInOutcome, any Error>?

        func finish(_ result: Result<CheckInOutcome, any Error>) {
            if let continuation {
                continuation.resume(with: result)
            } else {
                self.result = result
            }
        }
    }

    /// Wakes a waiting caller to write the next groups, so that no one writes for others forever.
    private struct Handoff: Error {}

    func record(_ checkIn: PendingCheckIn) async throws -> CheckInOutcome {
        let slot = Slot()
        pending.append((checkIn, slot))
        if writing {
            do {
                return try await withCheckedThrowingContinuation { slot.continuation = $0 }
            } catch is Handoff {
                slot.continuation = nil
            }
        }
        // This caller writes groups until its own is written, then hands the pen to the next in line.
        writing = true
        while slot.result == nil {
            let group = Array(pending.prefix(Self.largestGroup))
            pending.removeFirst(group.count)
            let results: [Result<CheckInOutcome, any Error>]
            do {
                let outcomes = try await database.transaction { [group] sql in
                    try await Self.write(group.map(\.0), sql: sql)
                }
                results = outcomes.map { .success($0) }
                database.live.published(sessionIDs: group.map(\.0.sessionID))
            } catch {
                results = Array(repeating: .failure(error), count: group.count)
            }
            for ((_, groupSlot), result) in zip(group, results) where groupSlot !== slot {
                groupSlot.finish(result)
            }
            if let own = zip(group, results).first(where: { $0.0.1 === slot }) { slot.result = own.1 }
        }
        if let next = pending.first?.1 {
            next.continuation?.resume(throwing: Handoff())
        } else {
            writing = false
        }
        return try slot.result!.get()
    }

    private struct Key: Hashable {
        var session: Int64
        var other: String
    }

    /// Writes one group; the outcomes come back in the group's order.
    static func write(_ group: [PendingCheckIn], sql: any SQLDatabase) async throws -> [CheckInOutcome] {
        var outcomes = [CheckInOutcome?](repeating: nil, count: group.count)

        // Devices: the first student to use a device in a session owns it there.
        var claims: [Key: Int64] = [:]
        for checkIn in group {
            guard let device = checkIn.evidence.deviceID else { continue }
            let key = Key(session: checkIn.sessionID, other: device)
            if claims[key] == nil { claims[key] = checkIn.studentID }
        }
        var owners: [Key: Int64] = [:]
        if !claims.isEmpty {
            let now = Date()
            var insert = sql.insert(into: "device_bindings").columns(
                "session_id", "device_id", "student_id", "created_at")
            for (key, student) in claims {
                insert = insert.values(SQLBind(key.session), SQLBind(key.other), SQLBind(student), SQLBind(now))
            }
            // The no-op update makes the statement return the owner already on record as well as new ones.
            let rows = try await insert.onConflict(with: ["session_id", "device_id"]) {
                $0.set(SQLColumn("student_id"), to: SQLColumn("student_id", table: "device_bindings"))
            }.returning("session_id", "device_id", "student_id").all()
            for row in rows {
                let key = Key(
                    session: try row.decode(column: "session_id", as: Int64.self),
                    other: try row.decode(column: "device_id", as: String.self)
                )
                owners[key] = try row.decode(column: "student_id", as: Int64.self)
            }
        }

        // Tickets scanned signed out: the first student to check in with one owns it, as the evidence records.
        var ticketOwners: [String: Int64] = [:]
        let tickets = Set(group.compactMap(\.unboundTicket))
        if !tickets.isEmpty {
            for row in try await sql.select().columns("ticket_hash", "student_id").from("check_in_evidence")
                .where("ticket_hash", .in, Array(tickets)).all()
            {
                ticketOwners[try row.decode(column: "ticket_hash", as: String.self)] = try row.decode(
                    column: "student_id", as: Int64.self)
            }
        }

        // Attendance: one row per (session, student); a second attempt in the same group repeats the first.
        var firstAttempt: [Key: Int] = [:]
        var rows: [Int] = []
        for (index, checkIn) in group.enumerated() {
            if let device = checkIn.evidence.deviceID,
                let owner = owners[Key(session: checkIn.sessionID, other: device)], owner != checkIn.studentID
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
            let key = Key(session: checkIn.sessionID, other: String(checkIn.studentID))
            if firstAttempt[key] == nil {
                firstAttempt[key] = index
                rows.append(index)
            }
        }
        var inserted: Set<Key> = []
        if !rows.isEmpty {
            var insert = sql.insert(into: "attendance")
                .columns("session_id", "student_id", "status", "recorded_at", "source")
            for index in rows {
                let checkIn = group[index]
                insert = insert.values(
                    SQLBind(checkIn.sessionID), SQLBind(checkIn.studentID), SQLBind(checkIn.status.rawValue),
                    SQLBind(checkIn.at), SQLBind(checkIn.evidence.via)
                )
            }
            for row in try await insert.ignoringConflicts(with: ["session_id", "student_id"])
                .returning("session_id", "student_id").all()
            {
                inserted.insert(
                    Key(
                        session: try row.decode(column: "session_id", as: Int64.self),
                        other: String(try row.decode(column: "student_id", as: Int64.self))
                    )
                )
            }
            var evidence = sql.insert(into: "check_in_evidence")
                .columns(
                    "session_id", "student_id", "latitude", "longitude", "accuracy", "distance", "device_id",
                    "client_address", "via", "created_at", "ticket_hash"
                )
            var anyEvidence = false
            for index in rows
            where inserted.contains(Key(session: group[index].sessionID, other: String(group[index].studentID))) {
                let checkIn = group[index]
                let proof = checkIn.evidence
                evidence = evidence.values(
                    SQLBind(checkIn.sessionID), SQLBind(checkIn.studentID), SQLBind(proof.reading?.point.latitude),
                    SQLBind(proof.reading?.point.longitude), SQLBind(proof.reading?.accuracy), SQLBind(proof.distance),
                    SQLBind(proof.deviceID), SQLBind(proof.clientAddress), SQLBind(proof.via), SQLBind(checkIn.at),
                    SQLBind(checkIn.unboundTicket)
                )
                anyEvidence = true
            }
            if anyEvidence { try await evidence.ignoringConflicts(with: ["session_id", "student_id"]).run() }
        }

        for (index, checkIn) in group.enumerated() where outcomes[index] == nil {
            let key = Key(session: checkIn.sessionID, other: String(checkIn.studentID))
            if firstAttempt[key] == index && inserted.contains(key) {
                outcomes[index] = .recorded(checkIn.status, checkIn.at)
            } else if let existing = try await CheckInStore.existing(
                sessionID: checkIn.sessionID, studentID: checkIn.studentID, sql: sql
            ) {
                outcomes[index] = .existing(existing.status, existing.at)
            } else {
                throw AppError(.internalServerError, "internal_error", "The check-in was not saved.")
            }
        }
        try await SessionEvents.append(checkIns: group, outcomes: outcomes.map { $0! }, in: sql)
        return outcomes.map { $0! }
    }
}
