import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords

/// The teacher's live view of a session over a WebSocket: the room as it is, then every change as it commits.
///
/// Messages, all JSON text:
/// - `{"type":"snapshot", "session":{…}, "lastEventId":N, "counts":{…}, "students":[…], "flags":[…]}` first, unless
///   the client resumes with `?after=N`;
/// - `{"type":"event", "id":N, "kind":"checked_in"|"status_changed"|"flagged"|"session_opened"|"session_closed"|"heard",
///   "createdAt":…, "data":{…}}` for each event, in id order, each exactly once;
/// - `{"type":"counts", "lastEventId":N, "counts":{…}}` after each run of events.
struct LiveController: Sendable {
    let rooms: RoomStore
    let database: Database
    let access: AccessRule
    /// Where the session page is, for the WebSocket's origin check.
    let pageOrigin: PageOrigin

    func addRoutes(to router: AppRouter) {
        let socket = LiveSocket(
            database: database, feed: .sessions,
            unknownEvent: "This session has no event {0} to resume after. Reload the page for a fresh view.",
            message: SessionEvents.said)
        socket.addRoute(
            to: router, path: LiveRoutes.live, pageOrigin: pageOrigin,
            crossSiteRefusal: "The live view opens only from Rollcall's own pages.",
            authorize: { context in
                let session = try await access.session(in: context, needing: .assist).session
                return (session.id, session)
            },
            stream: { session, reader, after, outbound in
                try await socket.stream(
                    key: session.id, after: after, to: outbound, for: reader,
                    snapshot: {
                        let room = try await rooms.room(
                            sessionID: session.id, courseID: session.courseId,
                            proximity: session.settings.countsProximity, in: reader)
                        return (try LiveMessage.snapshot(room, session: session, for: reader), room.lastEventId)
                    },
                    summary: {
                        let (counts, lastEventId) = try await rooms.counts(
                            sessionID: session.id, courseID: session.courseId)
                        return try LiveMessage.counts(counts, lastEventId: lastEventId)
                    })
            })
    }
}

/// The messages of the live view, as JSON text.
enum LiveMessage {
    struct SessionInfo: Encodable {
        var id: Int64
        var title: String
        var phase: SessionPhase
        var closesAt: Date?
        var closedAt: Date?
    }

    struct Snapshot: Encodable {
        var type = "snapshot"
        var session: SessionInfo
        var lastEventId: Int64
        var counts: RoomCounts
        var students: [Room.Student]
        var flags: [Flag]
    }

    struct Counts: Encodable {
        var type = "counts"
        var lastEventId: Int64
        var counts: RoomCounts
    }

    static func snapshot(_ room: Room, session: ClassSession, for reader: Reader, now: Date = Date()) throws -> String {
        let message = Snapshot(
            session: SessionInfo(
                id: session.id, title: session.title(in: reader), phase: session.phase(at: now),
                closesAt: session.closesAt, closedAt: session.closedAt),
            lastEventId: room.lastEventId, counts: room.counts, students: room.students,
            flags: room.flags.map { $0.said(to: reader) }
        )
        return String(decoding: try SessionChange.encoder.encode(message), as: UTF8.self)
    }

    static func counts(_ counts: RoomCounts, lastEventId: Int64) throws -> String {
        String(
            decoding: try SessionChange.encoder.encode(Counts(lastEventId: lastEventId, counts: counts)), as: UTF8.self)
    }
}
