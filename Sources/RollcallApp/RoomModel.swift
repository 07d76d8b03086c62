import Foundation
import Observation
import QRCode
import RollcallClient
import RollcallProtocol

/// The teacher's live room: every enrolled student with their status, the counts, kept current from the live
/// sequence (which resumes by itself after a drop).
@MainActor @Observable
public final class RoomModel {
    /// A student's row.
    public struct Row: Sendable, Equatable, Identifiable {
        public var id: Int64
        public var name: String
        public var studentNumber: String?
        /// `nil` while not checked in nor marked.
        public var status: String?
        public var at: Date?
        /// How many classmates' phones heard this student's, in a session that counts them; `nil` elsewhere.
        public var heardBy: Int?
    }

    public private(set) var title = ""
    public private(set) var phase = ""
    public private(set) var counts: LiveCounts?
    /// Rows by name.
    public private(set) var rows: [Row] = []
    /// Student ids, newest check-in first.
    public private(set) var latest: [Int64] = []
    public private(set) var problem: Problem?
    let rollcall: Rollcall
    let sessionID: Int64

    public init(rollcall: Rollcall, sessionID: Int64) {
        self.rollcall = rollcall
        self.sessionID = sessionID
    }

    /// Follows the room until the task is cancelled or the server refuses (then `problem` says why).
    public func follow() async {
        do {
            for try await message in rollcall.room(sessionID: sessionID) { apply(message) }
        } catch is CancellationError {
        } catch {
            problem = Problem(RollcallError.wrapping(error))
        }
    }

    /// The rows whose status is `status` (`nil`: not yet).
    public func rows(withStatus status: String?) -> [Row] { rows.filter { $0.status == status } }

    func apply(_ message: RoomMessage) {
        switch message {
        case .snapshot(let snapshot):
            title = snapshot.session.title
            phase = snapshot.session.phase
            counts = snapshot.counts
            rows = snapshot.students.map {
                Row(
                    id: $0.id, name: $0.name, studentNumber: $0.studentNumber, status: $0.status, at: $0.at,
                    heardBy: $0.heardBy)
            }
            .sorted { $0.name < $1.name }
            latest = snapshot.students.filter { $0.at != nil }.sorted { $0.at! > $1.at! }.map(\.id)
        case .event(let event):
            switch event.eventKind {
            case .checkedIn, .statusChanged:
                guard let student = event.studentID, let index = rows.firstIndex(where: { $0.id == student }) else {
                    return
                }
                rows[index].status = event.status
                rows[index].at = event.createdAt
                latest.removeAll { $0 == student }
                latest.insert(student, at: 0)
            case .sessionOpened, .sessionClosed:
                phase = event.data["phase"]?.string ?? phase
            case .heard:
                // Each student named was heard by one more classmate's phone.
                guard case .array(let heard)? = event.data["studentIds"] else { return }
                for id in heard.compactMap(\.int) {
                    if let index = rows.firstIndex(where: { $0.id == id }) {
                        rows[index].heardBy = (rows[index].heardBy ?? 0) + 1
                    }
                }
            default: break
            }
        case .counts(let update):
            counts = update.counts
        }
    }
}

/// The projector: the current code as a QR matrix to draw, the typed code and the count.
@MainActor @Observable
public final class ProjectorModel {
    public private(set) var frame: ProjectorFrame?
    /// The current code's QR modules (`true` is dark), row by row; empty when no code is shown.
    public private(set) var modules: [[Bool]] = []
    public private(set) var problem: Problem?
    let rollcall: Rollcall
    let sessionID: Int64

    public init(rollcall: Rollcall, sessionID: Int64) {
        self.rollcall = rollcall
        self.sessionID = sessionID
    }

    /// Follows the feed until the session closes, the task is cancelled or the server refuses.
    public func follow() async {
        do {
            for try await frame in rollcall.projector(sessionID: sessionID) {
                show(frame)
                if frame.phase == .closed { return }
            }
        } catch is CancellationError {
        } catch {
            problem = Problem(RollcallError.wrapping(error))
        }
    }

    func show(_ frame: ProjectorFrame) {
        if frame.url != self.frame?.url {
            modules =
                frame.url.flatMap { try? QRCode(encoding: $0, errorCorrection: .medium) }
                .map { code in (0..<code.size).map { y in (0..<code.size).map { x in code[x, y] } } } ?? []
        }
        self.frame = frame
    }
}

/// A student's own record in a course.
@MainActor @Observable
public final class RecordModel {
    public enum State: Sendable, Equatable {
        case loading
        case loaded(StudentRecord)
        case failed(Problem)
    }

    public private(set) var state = State.loading
    let rollcall: Rollcall
    let courseID: Int64
    let studentID: Int64

    public init(rollcall: Rollcall, courseID: Int64, studentID: Int64) {
        self.rollcall = rollcall
        self.courseID = courseID
        self.studentID = studentID
    }

    public func load() async {
        state = .loading
        do {
            state = .loaded(try await rollcall.record(courseID: courseID, studentID: studentID))
        } catch {
            state = .failed(Problem(RollcallError.wrapping(error)))
        }
    }
}
