import Foundation
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// A session as the API shows it; its secret never leaves the server, and its settings go to the course's teacher
/// only: where the fence's centre is, how far it reaches and how much grace a code has would help whoever fakes a
/// location or a code. Students get what they must do (`checkIn`).
struct SessionView: Codable, Sendable, Equatable {
    /// What a student needs to know to check in, and nothing that helps to cheat.
    struct CheckInNeeds: Codable, Sendable, Equatable {
        var mode: CheckInMode
        var allowTyping: Bool
        var needsLocation: Bool
        var schoolNetworkOnly: Bool
        var openMinutes: Int
        var lateAfterMinutes: Int?
        /// The app sends the pseudo-IDs its phone heard with the check-in.
        var askProximity: Bool
    }

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
    /// For the course's teacher and admins only.
    var settings: SessionSettings?
    var checkIn: CheckInNeeds
    var counts: Counts

    init(_ session: ClassSession, tally: SessionTally, access: CourseAccess, in reader: Reader, now: Date = Date()) {
        let counts = tally.counted
        id = session.id
        courseId = session.courseId
        title = session.title(in: reader)
        phase = session.phase(at: now)
        scheduledAt = session.scheduledAt
        openedAt = session.openedAt
        closesAt = session.closesAt
        closedAt = session.closedAt
        settings = access == .manage ? session.settings : nil
        let rules = session.settings
        checkIn = CheckInNeeds(
            mode: rules.mode, allowTyping: rules.allowTyping, needsLocation: rules.geofence != nil,
            schoolNetworkOnly: !rules.allowedNetworks.isEmpty, openMinutes: rules.openMinutes,
            lateAfterMinutes: rules.lateAfterMinutes, askProximity: rules.countsProximity)
        self.counts = Counts(
            present: counts[.present] ?? 0, late: counts[.late] ?? 0, excused: counts[.excused] ?? 0,
            absent: counts[.absent] ?? 0
        )
    }
}
