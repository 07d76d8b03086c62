import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import QRCode
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords

/// What the projector shows at one moment: the code as a QR image and as text, and the room's count.
struct ProjectorFrame: Codable, Sendable, ResponseEncodable {
    var phase: SessionPhase
    var title: String
    var step: Int64?
    var url: String?
    var svg: String?
    var typedCode: String?
    /// Milliseconds until the typed code changes.
    var typedNextChangeIn: Int?
    /// Milliseconds until the next code, by the server's clock.
    var nextChangeIn: Int?
    var checkedIn: Int
    var enrolled: Int
}

/// The projector's feed: the current code now, and every new code pushed over a WebSocket as the server's clock
/// turns it.
struct ProjectorController: Sendable {
    let sessions: SessionStore
    let checkIns: CheckInStore
    let access: AccessRule
    let live: LiveHub
    let pictures = QRPictures()
    /// Where the QR code's link points.
    let publicURL: String
    /// Where the projector page is, for the WebSocket's origin check.
    var pageOrigin: PageOrigin { PageOrigin(publicURL: publicURL) }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(CheckInRoutes.projector, use: current)
        router.ws(
            CheckInRoutes.projectorLive,
            shouldUpgrade: { request, context in
                guard !pageOrigin.crossSite(request, context) else {
                    throw AppError.forbidden("The live feed opens only from Rollcall's own pages.")
                }
                _ = try await managedSession(context)
                try request.requireWebSocketUpgrade()
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, context in
                let id = try context.requestContext.id("sessionID", .sessionNotFound, "session")
                let reader = context.requestContext.reader
                try await LiveSocket.closingOnOutage(of: sessions.database, outbound) {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        // The client closing ends the inbound stream, and with it the feed.
                        group.addTask { for try await _ in inbound {} }
                        group.addTask { try await feed(sessionID: id, to: outbound, for: reader) }
                        try await group.next()
                        group.cancelAll()
                    }
                }
            }
        )
    }

    func managedSession(_ context: AppRequestContext) async throws -> ClassSession {
        try await access.session(in: context, needing: .manage).session
    }

    @Sendable func current(_ request: Request, context: AppRequestContext) async throws -> ProjectorFrame {
        let session = try await managedSession(context)
        guard let frame = try await frame(for: session, at: Date(), in: context.reader) else {
            throw AppError.notFound(.sessionNotFound, "session")
        }
        return frame
    }

    func feed(sessionID: Int64, to outbound: WebSocketOutboundWriter, for reader: Reader) async throws {
        let encoder = JSONCoding.encoder
        try await live.subscribe(sessionID) { changes in
            while !Task.isCancelled {
                // The session's times come with the room's counts, in one statement.
                guard let session = try await sessions.fixedParts(id: sessionID),
                    let frame = try await frame(for: session, at: Date(), in: reader)
                else { return }
                try await outbound.write(.text(String(decoding: try encoder.encode(frame), as: UTF8.self)))
                let sent = ContinuousClock.now
                // Wake at the next code, or as soon as a check-in (or anything else in the session) commits.
                let wait = Double(min(frame.nextChangeIn ?? 10_000, frame.typedNextChangeIn ?? 10_000)) / 1000
                let nextCode = sent + .seconds(max(wait, 0.05))
                // A check-in brings a new frame at most as often as the live view's counts (`summaryInterval`): each
                // frame counts the room, and a room checking in at once commits every few milliseconds. A new code is
                // never held back.
                if await changes.next(timeout: nextCode - sent) {
                    try await Task.sleep(until: min(sent + LiveSocket.summaryInterval, nextCode), clock: .continuous)
                }
            }
        }
    }

    /// The frame of `session` now, its times read afresh; `nil` when the session no longer exists.
    func frame(for session: ClassSession, at now: Date, in reader: Reader) async throws -> ProjectorFrame? {
        guard let room = try await checkIns.projected(sessionID: session.id) else { return nil }
        var session = session
        room.moment.apply(to: &session)
        let phase = session.phase(at: now)
        var frame = ProjectorFrame(
            phase: phase, title: session.title(in: reader), checkedIn: room.checkedIn, enrolled: room.enrolled)
        guard phase == .open, session.settings.mode != .spot else { return frame }
        let rotating = session.rotatingCode
        let step = rotating.step(at: now)
        frame.step = step
        frame.nextChangeIn = Int((rotating.start(of: step + 1).timeIntervalSince(now) * 1000).rounded(.up))
        if session.settings.allowTyping {
            let typed = session.typedRotatingCode
            let typedStep = typed.step(at: now)
            frame.typedCode = typed.typedCode(forStep: typedStep)
            frame.typedNextChangeIn = Int((typed.start(of: typedStep + 1).timeIntervalSince(now) * 1000).rounded(.up))
        }
        if session.settings.mode == .qr {
            let url = checkInURL(code: rotating.code(forStep: step))
            frame.url = url
            frame.svg = try pictures.picture(of: url)
        }
        return frame
    }

    /// The link in the QR code.
    func checkInURL(code: String) -> String {
        CheckInRoutes.scanURL(publicURL: publicURL, code: code)
    }
}
