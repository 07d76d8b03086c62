import Foundation
import RollcallCore

/// A session as the API shows it; its secret never leaves the server.
struct SessionView: Codable, Sendable, Equatable {
    struct Counts: Codable, Sendable, Equatable {
        var present = 0
        var late = 0
        var excused = 0
        var absent = 0
    }
    var id: Int64
    var courseId: Int64
    var title: String
    var phase: SessionPhase
    var scheduledAt: Date?
    var openedAt: Date?
    var closesAt: Date?
    var closedAt: Date?
    var settings: SessionSettings
    var counts: Counts

    init(_ session: ClassSession, tally: SessionTally, now: Date = Date()) {
        let counts = tally.counted
        id = session.id
        courseId = session.courseId
        title = session.title
        phase = session.phase(at: now)
        scheduledAt = session.scheduledAt
        openedAt = session.openedAt
        closesAt = session.closesAt
        closedAt = session.closedAt
        settings = session.settings
        self.counts = Counts(
            present: counts[.present] ?? 0, late: counts[.late] ?? 0, excused: counts[.excused] ?? 0,
            absent: counts[.absent] ?? 0
        )
    }
}
