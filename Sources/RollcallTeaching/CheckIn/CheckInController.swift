import Foundation
import Hummingbird
import RollcallCore
import RollcallWeb

/// The check-in route of the API, which the check-in page and native clients both use.
struct CheckInController: Sendable {
    let desk: CheckInDesk

    struct CheckInAnswer: Codable, ResponseEncodable {
        var status: AttendanceStatus
        var checkedInAt: Date
        var sessionId: Int64
        var sessionTitle: String
        var courseName: String
        /// `false` when this repeats an earlier answer.
        var new: Bool

        /// Written by hand: every student of a room sends a check-in at once.
        func response(status: HTTPResponse.Status) -> Response {
            var json = JSONWriter()
            json.field("status", self.status.rawValue)
            json.field("checkedInAt", checkedInAt)
            json.field("sessionId", sessionId)
            json.field("sessionTitle", sessionTitle)
            json.field("courseName", courseName)
            json.field("new", new)
            return json.response(status: status)
        }
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post(CheckInRoutes.checkIns, use: checkIn)
    }

    @Sendable func checkIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let student = try context.requireRole(.student, message: "Only students check in; teachers mark by hand.")
        let attempt = try await request.decodeJSON(as: CheckInDesk.Attempt.self, context: context)
        let receipt = try await desk.checkIn(
            attempt, student: student, clientAddress: context.clientAddress, now: Date())
        return CheckInAnswer(
            status: receipt.status, checkedInAt: receipt.at, sessionId: receipt.session.id,
            sessionTitle: receipt.session.title(in: context.reader), courseName: receipt.session.courseName,
            new: receipt.new
        ).response(status: receipt.new ? .created : .ok)
    }
}
