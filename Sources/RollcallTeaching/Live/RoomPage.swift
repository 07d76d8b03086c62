import Foundation
import RollcallCore
import RollcallModel
import RollcallWords

/// The room on the session page, drawn by the server first; `live.js` then keeps it current over the live channel,
/// drawing new rows from the same `room-row` template (the blank row, in a `<template>` element).
struct RoomView: Sendable {
    /// One student's row.
    struct Row: Sendable {
        var id: String
        var name: String
        var studentNumber: String?
        var status: String
        var label: String
        var at: String
        var time: String
        /// How the record came to be (`qr`, `manual`, …), empty without one: bulk marking warns before overwriting
        /// a student's own check-in.
        var via: String
        /// The teacher's own note on the record.
        var note: String?
        /// "heard by 12 phones", in a session that counts classmates' phones; `nil` elsewhere.
        var heard: String?
        var heardBy: Int
    }

    /// The counters above the list.
    struct Counts: Sendable {
        var checkedIn: Int
        var enrolled: Int
        var present: Int
        var late: Int
        var excused: Int
    }

    /// The words under each count: a count's caption agrees with its number ("1 présent", "24 présents"), where the
    /// same English word as a student's status does not, hence the context.
    struct Captions: Sendable {
        var present: String
        var late: String
        var excused: String

        init(_ counts: Counts, in reader: Reader) {
            present = reader.say(context: "count", counts.present, one: "present", other: "present")
            late = reader.say(context: "count", counts.late, one: "late", other: "late")
            excused = reader.say(context: "count", counts.excused, one: "excused", other: "excused")
        }
    }

    var students: [Row]
    var empty: Bool
    var counts: Counts
    var captions: Captions
    /// Until the session closes, nobody is "absent" yet; the red count is everyone not in the room.
    var away: Int
    var awayLabel: String
    var blankRow: Row
    /// The session counts classmates' phones: the room says what its "heard by" means.
    var countsPhones: Bool

    /// `time`: the course's, which `live.js` follows too (the page's `time-zone`).
    init(_ room: Room, phase: SessionPhase, time: TimeText, countsProximity counting: Bool = false, in reader: Reader) {
        students = room.students.map { student in
            Row(
                id: String(student.id), name: student.name, studentNumber: student.studentNumber,
                status: student.status?.rawValue ?? "none", label: Self.label(student.status, phase: phase, in: reader),
                at: student.at?.millisecondText ?? "",
                time: student.at.map(time.time) ?? "", via: student.via?.rawValue ?? "",
                note: student.note, heard: student.heardBy.map { Self.heardText($0, in: reader) },
                heardBy: student.heardBy ?? 0
            )
        }
        empty = students.isEmpty
        counts = Counts(
            checkedIn: room.counts.checkedIn, enrolled: room.counts.enrolled, present: room.counts.present,
            late: room.counts.late, excused: room.counts.excused)
        captions = Captions(counts, in: reader)
        away = room.counts.absent + room.counts.notYet
        awayLabel = Self.awayCaption(away, closed: phase == .closed, in: reader)
        blankRow = Row(
            id: "", name: "", studentNumber: nil, status: "none", label: Self.label(nil, phase: phase, in: reader),
            at: "", time: "", via: "", note: nil, heard: counting ? Self.heardText(0, in: reader) : nil, heardBy: 0)
        countsPhones = counting
    }

    /// How many classmates' phones heard a student's; `live.js` says the same.
    static func heardText(_ count: Int, in reader: Reader) -> String {
        reader.say(count, one: "heard by {0} phone", other: "heard by {0} phones")
    }

    /// The words beside a student's name; `live.js` uses the same.
    /// The red count's caption: nobody is absent before the session closes, only not in the room yet.
    static func awayCaption(_ away: Int, closed: Bool, in reader: Reader) -> String {
        closed
            ? reader.say(context: "count", away, one: "absent", other: "absent")
            : reader.say(context: "count", away, one: "absent or not yet", other: "absent or not yet")
    }

    static func label(_ status: AttendanceStatus?, phase: SessionPhase, in reader: Reader) -> String {
        switch status {
        case let known?: known.pageText(in: reader)
        case nil: phase == .closed ? reader.say("absent") : reader.say("not yet")
        }
    }
}
