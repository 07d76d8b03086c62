import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import RollcallCore

/// The teacher's live view of a session over a WebSocket: the room as it is, then every change as it commits.
///
/// Messages, all JSON text:
/// - `{"type":"snapshot", "session":{…}, "lastEventId":N, "counts":{…}, "students":[…], "flags":[…]}` first, unless
///   the client resumes with `?after=N`;
/// - `{"type":"event", "id":N, "kind":"checked_in"|"status_changed"|"flagged"|"session_opened"|"session_closed",
///   "createdAt":…, "data":{…}}` for each event, in id order, each exactly once;
/// - `{"type":"counts", "lastEventId":N, "counts":{…}}` after each run of events.
struct LiveController: Sendable {
    let rooms: RoomStore
    let database: Database
    let access: AccessRule
    /// Where the session page is, for the WebSocket's origin check.
    let pageOrigin: PageOrigin
    /// How long a view waits for a wake-up before reading anyway: a safety net should a wake-up (or, across
    /// processes, a PostgreSQL notification) ever go missing.
    static let catchUpInterval = Duration.seconds(10)

    /// Events read per query while catching up.
    static let pageSize = 500
    /// How often counts go out during a burst of events; after a burst they go out at once.
    static let countsInterval = Duration.milliseconds(250)

    func addRoutes(to router: Router<AppRequestContext>) {
        router.ws(
            LiveRoutes.live,
            shouldUpgrade: { request, context in
                guard !pageOrigin.crossSite(request, context) else {
                    throw AppError.forbidden("The live view opens only from Rollcall's own pages.")
                }
                let session = try await access.session(in: context, needing: .assist).session
                _ = try await resumePoint(request, sessionID: session.id)
                try request.requireWebSocketUpgrade()
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, context in
                let session = try await access.session(in: context.requestContext, needing: .assist).session
                let after = try await resumePoint(context.request, sessionID: session.id)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // The client closing ends the inbound stream, and with it the view.
                    group.addTask { for try await _ in inbound {} }
                    group.addTask { try await stream(session, after: after, to: outbound) }
                    try await group.next()
                    group.cancelAll()
                }
            }
        )
    }

    /// The event id a reconnecting client last saw (`?after=N`), or `nil` for a fresh view with a snapshot.
    func resumePoint(_ request: Request, sessionID: Int64) async throws -> Int64? {
        guard let text = request.uri.queryParameters.get("after") else { return nil }
        guard let after = Int64(text), after >= 0 else {
            throw AppError(
                .badRequest, "invalid_after", "“after” must be the id of the last event received, such as 42.")
        }
        if after > 0 {
            let known = try await database.read { sql in
                try await SessionEvents.contains(after, sessionID: sessionID, in: sql)
            }
            guard known else {
                throw AppError(
                    .badRequest, "invalid_after",
                    "This session has no event \(after) to resume after. Reload the page for a fresh view."
                )
            }
        }
        return after
    }

    /// Sends the room (or resumes after an event), then each new event as the hub wakes this view.
    func stream(_ session: ClassSession, after: Int64?, to outbound: WebSocketOutboundWriter) async throws {
        try await database.live.subscribe(sessionID: session.id) { subscription in
            // Subscribed first: whatever commits from here on wakes this view, and the reads below start from
            // the last id already sent, so nothing is lost between the snapshot and the first wake-up.
            var last: Int64
            var sendCounts = false
            var countsSent = ContinuousClock.now
            if let after {
                last = after
                sendCounts = true
            } else {
                let room = try await rooms.room(sessionID: session.id, courseID: session.courseId)
                try await outbound.write(.text(try LiveMessage.snapshot(room, session: session)))
                last = room.lastEventId
            }
            while !Task.isCancelled {
                while true {
                    let events = try await database.read { [last] sql in
                        try await SessionEvents.after(last, sessionID: session.id, limit: Self.pageSize, in: sql)
                    }
                    for event in events where event.id > last {
                        try await outbound.write(.text(LiveMessage.event(event)))
                        last = event.id
                    }
                    sendCounts = sendCounts || !events.isEmpty
                    if events.count < Self.pageSize { break }
                }
                // Events first: while more are waiting, counts follow at most every `countsInterval`.
                if sendCounts && (!subscription.isWoken || ContinuousClock.now - countsSent >= Self.countsInterval) {
                    let (counts, lastEventId) = try await rooms.counts(
                        sessionID: session.id, courseID: session.courseId)
                    try await outbound.write(.text(try LiveMessage.counts(counts, lastEventId: lastEventId)))
                    sendCounts = false
                    countsSent = ContinuousClock.now
                }
                await subscription.next(timeout: Self.catchUpInterval)
            }
        }
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

    static func snapshot(_ room: Room, session: ClassSession, now: Date = Date()) throws -> String {
        let message = Snapshot(
            session: SessionInfo(
                id: session.id, title: session.title, phase: session.phase(at: now), closesAt: session.closesAt,
                closedAt: session.closedAt),
            lastEventId: room.lastEventId, counts: room.counts, students: room.students, flags: room.flags
        )
        return String(decoding: try SessionChange.encoder.encode(message), as: UTF8.self)
    }

    static func counts(_ counts: RoomCounts, lastEventId: Int64) throws -> String {
        String(
            decoding: try SessionChange.encoder.encode(Counts(lastEventId: lastEventId, counts: counts)), as: UTF8.self)
    }

    /// The stored payload is already JSON written by `SessionChange.encoder`; it goes out as it is.
    static func event(_ event: SessionEvent) -> String {
        #"{"createdAt":"\#(event.createdAt.millisecondText)","data":\#(event.payload),"id":\#(event.id),"kind":"\#(event.kind.rawValue)","type":"event"}"#
    }
}
