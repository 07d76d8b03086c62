import Foundation
import RollcallCore
import RollcallWeb
import RollcallWords
import SQLKit

/// Replays each student's audit trail in a session against the record it ends at.
///
/// `AttendanceLedger` is the one writer of attendance, and every change it makes to an existing record is audited:
/// a check-in and the absences written at closing only insert a row where there was none, and a teacher's change or
/// removal writes its entry. So, for one seat, an entry that set a status is followed by an entry starting from that
/// status, and the last entry is what the record says now: its status, or no row (or a row a later check-in or
/// closing wrote) after a removal.
enum AuditReplay {
    private struct Entry: Decodable {
        var id: Int64
        var sessionId: Int64
        var studentId: Int64
        var oldStatus: String?
        var newStatus: String
    }

    private struct Record: Decodable {
        var sessionId: Int64
        var studentId: Int64
        var status: String
        var source: String
    }

    private struct Seat: Hashable {
        var session: Int64
        var student: Int64
    }

    /// The problems found, at most `DatabaseCheck.listed` of them and a count of the rest, and how many entries were
    /// replayed.
    static func check(_ sql: any SQLDatabase, in reader: Reader) async throws -> ([String], Int) {
        let entries = try await sql.raw(
            """
            SELECT id, session_id, student_id, old_status, new_status FROM attendance_audit
            ORDER BY session_id, student_id, id
            """
        ).all(decoding: Entry.self, with: .rollcall)
        let records = try await sql.raw(
            """
            SELECT a.session_id, a.student_id, a.status, a.source FROM attendance a
            WHERE EXISTS (SELECT 1 FROM attendance_audit x WHERE x.session_id = a.session_id
                          AND x.student_id = a.student_id)
            """
        ).all(decoding: Record.self, with: .rollcall)
        var recorded: [Seat: Record] = [:]
        for record in records { recorded[Seat(session: record.sessionId, student: record.studentId)] = record }
        var problems: [String] = []
        var previous: Entry?
        for (index, entry) in entries.enumerated() {
            let seat = Seat(session: entry.sessionId, student: entry.studentId)
            if let previous, previous.sessionId == entry.sessionId, previous.studentId == entry.studentId,
                !previous.newStatus.isEmpty, entry.oldStatus != previous.newStatus
            {
                let was = entry.oldStatus ?? "-"
                problems.append(
                    reader.say(
                        "Audit entry \(entry.id) says student \(entry.studentId) was \(was) in session \(entry.sessionId), but the entry before it set \(previous.newStatus)."
                    ))
            }
            let next = index + 1 < entries.count ? entries[index + 1] : nil
            if next?.sessionId != entry.sessionId || next?.studentId != entry.studentId,
                let problem = ending(entry, record: recorded[seat], in: reader)
            {
                problems.append(problem)
            }
            previous = entry
        }
        if problems.count > DatabaseCheck.listed {
            let more = problems.count - DatabaseCheck.listed
            problems = Array(problems.prefix(DatabaseCheck.listed))
            problems.append(reader.say("Further audit entries that do not replay to their records: \(more)."))
        }
        return (problems, entries.count)
    }

    /// Whether the last entry of a seat's trail agrees with its record.
    private static func ending(_ last: Entry, record: Record?, in reader: Reader) -> String? {
        if last.newStatus.isEmpty {
            guard let record, record.source == RecordSource.manual.rawValue else { return nil }
            return reader.say(
                "The audit trail of student \(last.studentId) in session \(last.sessionId) ends with the record removed, but a teacher's record \(record.status) is there."
            )
        }
        guard let record else {
            return reader.say(
                "The audit trail of student \(last.studentId) in session \(last.sessionId) ends at \(last.newStatus), but there is no record."
            )
        }
        guard record.status == last.newStatus else {
            return reader.say(
                "The audit trail of student \(last.studentId) in session \(last.sessionId) ends at \(last.newStatus), but the record says \(record.status)."
            )
        }
        return nil
    }
}
