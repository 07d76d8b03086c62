import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import RollcallCore
import RollcallStorage
import RollcallWeb
import RollcallWords

/// A live view over a WebSocket, for any feed: the view's state first (a snapshot), then every event of the key's
/// log as it commits, in id order and each once, resumable with `?after=N` after the last event received.
///
/// The live room (`LiveController`) and the quiz dashboard (`QuizLiveController`) are this socket with their own
/// access check, snapshot and summary.
package struct LiveSocket: Sendable {
    package let database: Database
    package let feed: LiveFeed
    /// The refusal of an `after` this feed never had; `{0}` is the event asked for.
    package let unknownEvent: Phrase
    /// An event as the socket sends it: by default as stored; a feed with stored phrases says them to the reader.
    package var message: @Sendable (LoggedEvent, Reader) throws -> String = { event, _ in event.message }

    package init(
        database: Database, feed: LiveFeed, unknownEvent: Phrase,
        message: @escaping @Sendable (LoggedEvent, Reader) throws -> String = { event, _ in event.message }
    ) {
        self.message = message
        self.database = database
        self.feed = feed
        self.unknownEvent = unknownEvent
    }

    /// How long a view waits for a wake-up before reading anyway: a safety net should a wake-up (or, across
    /// processes, a PostgreSQL notification) ever go missing.
    package static let catchUpInterval = Duration.seconds(10)
    /// Events read per query while catching up.
    package static let pageSize = 500
    /// How often a summary goes out at most: a summary due within it goes out when it ends, with the events since.
    /// Each summary is a statement over the whole roster, and a room checking in at once commits a run of events
    /// every few milliseconds. The page moves its counters with each row at once, so the server's counts only
    /// confirm them: at four a second, a campus morning on PostgreSQL spent a third of its statements' time on them.
    package static let summaryInterval = Duration.seconds(1)

    /// Adds the socket at `path`: only from Rollcall's own pages, only for those `authorize` admits, and only with a
    /// resume point that is one of the key's events; then `stream` runs until the client goes, for the reader the
    /// upgrade was answered for.
    package func addRoute<Subject: Sendable>(
        to router: AppRouter, path: RouterPath, pageOrigin: PageOrigin, crossSiteRefusal: Phrase,
        authorize: @escaping @Sendable (AppRequestContext) async throws -> (key: Int64, subject: Subject),
        stream: @escaping @Sendable (Subject, Reader, _ after: Int64?, WebSocketOutboundWriter) async throws -> Void
    ) {
        router.ws(
            path,
            shouldUpgrade: { request, context in
                guard !pageOrigin.crossSite(request, context) else { throw AppError.forbidden(crossSiteRefusal) }
                let (key, _) = try await authorize(context)
                _ = try await resumePoint(request, key: key)
                try request.requireWebSocketUpgrade()
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, context in
                // In the language the upgrade request was answered in: the socket's messages come after it.
                let reader = context.requestContext.reader
                try await Self.closingOnOutage(of: database, outbound) {
                    let (key, subject) = try await authorize(context.requestContext)
                    let after = try await resumePoint(context.request, key: key)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        // The client closing ends the inbound stream, and with it the view.
                        group.addTask { for try await _ in inbound {} }
                        group.addTask { try await stream(subject, reader, after, outbound) }
                        try await group.next()
                        group.cancelAll()
                    }
                }
            }
        )
    }

    /// The close code that tells a live view to come back and resume after its last event: 1013, "try again
    /// later" (RFC 6455 §7.4, IANA's registry).
    package static let resumeLater = WebSocketErrorCode.unknown(1013)

    /// Runs a socket's work; should the database stop answering under it, the socket closes with `resumeLater`
    /// rather than as a server failure (1011), and the clients come back with `?after=` once it answers.
    package static func closingOnOutage(
        of database: Database, _ outbound: WebSocketOutboundWriter, _ work: () async throws -> Void
    ) async throws {
        do {
            try await work()
        } catch  where !(error is CancellationError) {
            // The error says so itself, or the database does not answer a question of its own now.
            var outage = error is DatabaseUnavailable
            if !outage { outage = await !database.answers(within: ErrorMiddleware.databaseProbe) }
            guard outage else { throw error }
            try? await outbound.close(
                resumeLater, reason: "The database does not answer; resume after your last event.")
        }
    }

    /// The event id a reconnecting client last saw (`?after=N`), or `nil` for a fresh view with a snapshot.
    package func resumePoint(_ request: Request, key: Int64) async throws -> Int64? {
        guard let text = request.uri.queryParameters.get("after") else { return nil }
        guard let after = Int64(text), after >= 0 else {
            throw AppError(
                .badRequest, .invalidAfter, "“after” must be the id of the last event received, such as 42.")
        }
        if after > 0 {
            let known = try await database.read { sql in
                try await EventLog.contains(after, key: key, in: feed, sql: sql)
            }
            guard known else {
                throw AppError(
                    .badRequest, .invalidAfter,
                    Phrase(key: unknownEvent.key, values: [.number(Int(after))]))
            }
        }
        return after
    }

    /// Sends the snapshot (or resumes after an event), then each new event as the feed's hub wakes this view.
    ///
    /// - Parameters:
    ///   - snapshot: the view's state as a message, and the id of the last event it includes.
    ///   - summary: a message sent after each run of events, such as the room's counts; at most every
    ///     `summaryInterval`.
    package func stream(
        key: Int64, after: Int64?, to outbound: WebSocketOutboundWriter, for reader: Reader,
        snapshot: () async throws -> (message: String, lastEventID: Int64),
        summary: (() async throws -> String)? = nil
    ) async throws {
        try await database.hubs[feed].subscribe(key) { subscription in
            // Subscribed first: whatever commits from here on wakes this view, and the reads below start from the
            // last id already sent, so nothing is lost between the snapshot and the first wake-up.
            var last: Int64
            var summaryDue = false
            var summarySent = ContinuousClock.now - Self.summaryInterval
            if let after {
                last = after
                summaryDue = true
            } else {
                let (message, lastEventID) = try await snapshot()
                try await outbound.write(.text(message))
                last = lastEventID
            }
            while !Task.isCancelled {
                while true {
                    let events = try await database.read { [last] sql in
                        try await EventLog.after(last, key: key, in: feed, limit: Self.pageSize, sql: sql)
                    }
                    for event in events where event.id > last {
                        try await outbound.write(.text(try message(event, reader)))
                        last = event.id
                    }
                    summaryDue = summaryDue || !events.isEmpty
                    if events.count < Self.pageSize { break }
                }
                let sinceSummary = ContinuousClock.now - summarySent
                if let summary, summaryDue, sinceSummary >= Self.summaryInterval {
                    try await outbound.write(.text(try await summary()))
                    summaryDue = false
                    summarySent = ContinuousClock.now
                }
                // A summary held back goes out when its interval ends, with whatever events come before.
                let held = summary != nil && summaryDue
                _ = await subscription.next(timeout: held ? Self.summaryInterval - sinceSummary : Self.catchUpInterval)
            }
        }
    }
}
