import Foundation
import RollcallCore

/// The room on the session page, drawn by the server first; `live.js` then keeps it current over the live channel.
enum RoomPage {
    static func data(_ room: Room, phase: SessionPhase) -> [String: Any] {
        let students: [[String: Any]] = room.students.map { student in
            [
                "id": student.id, "name": student.name, "studentNumber": student.studentNumber ?? "",
                "status": student.status?.rawValue ?? "none",
                "label": label(student.status, phase: phase),
                "at": student.at?.millisecondText ?? "",
                "time": student.at?.formatted(date: .omitted, time: .shortened) ?? "",
            ]
        }
        return [
            "students": students, "empty": students.isEmpty,
            "counts": [
                "checkedIn": room.counts.checkedIn, "enrolled": room.counts.enrolled, "present": room.counts.present,
                "late": room.counts.late, "excused": room.counts.excused,
            ],
            // Until the session closes, nobody is "absent" yet; the red count is everyone not in the room.
            "away": room.counts.absent + room.counts.notYet,
            "awayLabel": phase == .closed ? "absent" : "absent or not yet",
        ]
    }

    /// The words beside a student's name; `live.js` uses the same.
    static func label(_ status: AttendanceStatus?, phase: SessionPhase) -> String {
        switch status {
        case .present: "present"
        case .late: "late"
        case .excused: "excused"
        case .absent: "absent"
        case nil: phase == .closed ? "absent" : "not yet"
        }
    }
}
