import Foundation
import Hummingbird
import NIOCore
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallProtocol
import RollcallWeb
import RollcallWords

/// A course's roster from a spreadsheet: the import, which enrols those with accounts and invites the others by
/// email, and the list of open invitations.
struct RosterController: Sendable {
    let courses: CourseStore
    let mail: InvitationMail
    let access: AccessRule

    struct ImportAnswer: Codable, ResponseEncodable {
        var enrolled: Int
        var alreadyEnrolled: Int
        /// Invited by an earlier import: not mailed again.
        var alreadyInvited: Int
        var invited: [CourseInvitation]
        /// The course's invitations not mailed yet: beyond the teacher's daily allowance, they go out later.
        var waiting: Int
        /// The teacher's allowance of invitation letters in any 24 hours.
        var invitationsPerDay: Int
        /// How the file was read, for the page to say so: `comma`, `semicolon` or `tab`, and the text encoding.
        var separator: CSV.Separator
        var encoding: CSV.Encoding
    }
    struct Invitations: Codable, ResponseEncodable {
        var invitations: [CourseInvitation]
    }
    /// The error body of a refused import: the usual error, plus every bad row.
    struct ImportRefusal: Codable {
        struct Detail: Codable {
            var code: String
            var message: String
            var rows: [Row]
        }
        struct Row: Codable {
            var line: Int
            var code: String
            var message: String
        }
        var error: Detail
    }

    func addRoutes(to router: AppRouter) {
        router.post(RosterRoutes.rosterImport, use: importRoster)
        router.get(RosterRoutes.invitations, use: invitations)
    }

    @Sendable func importRoster(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        guard user.mayReachPeople else { throw AppError.emailUnconfirmed }
        let body = try await request.collectBody(limit: Self.importLimit)
        guard let (text, encoding) = CSV.decode(Array(body.readableBytesView)) else {
            throw AppError(
                .badRequest, .invalidEncoding,
                "The file is not text Rollcall can read. Save it from your spreadsheet as “CSV UTF-8” and try again.")
        }
        // Commas, or the semicolons of a French or German spreadsheet, or the tabs of "Unicode text".
        let separator = CSV.separator(of: text)
        let rows: [CSV.Row]
        do {
            rows = try CSV.parse(text, separator: separator)
        } catch {
            throw AppError(.badRequest, .invalidCSV, error.message)
        }
        do {
            // Every problem at once: the file's own, and those of its good rows against the accounts.
            let (entries, formatErrors) = RosterImport.read(rows)
            let problems = (formatErrors + (try await courses.roster.problems(entries))).sorted { $0.line < $1.line }
            guard problems.isEmpty else { throw RosterImport.RowErrors(problems) }
            let result = try await courses.roster.importRoster(courseID: course.id, entries: entries, by: user)
            if !result.invited.isEmpty { try await mail.sendWaiting(from: user.id) }
            let invitations = try await courses.roster.invitations(courseID: course.id)
            let new = Set(result.invited.map(\.email))
            return try ImportAnswer(
                enrolled: result.enrolled, alreadyEnrolled: result.alreadyEnrolled,
                alreadyInvited: result.alreadyInvited, invited: invitations.filter { new.contains($0.email) },
                waiting: invitations.count { $0.mailedAt == nil }, invitationsPerDay: mail.perDay,
                separator: separator, encoding: encoding
            ).response(from: request, context: context, status: .ok)
        } catch let errors as RosterImport.RowErrors {
            return try Self.refusal(errors, to: context.reader)
        }
    }

    static let importLimit = 1024 * 1024

    /// 422 with every bad row, so that the teacher can mend the file in one go.
    static func refusal(_ errors: RosterImport.RowErrors, to reader: Reader) throws -> Response {
        let count = errors.rows.count
        let body = ImportRefusal(
            error: .init(
                code: ErrorCode.invalidRows.rawValue,
                message: reader.say(
                    count, one: "Nothing was imported: one row needs mending. Fix it and import the file again.",
                    other: "Nothing was imported: {0} rows need mending. Fix them and import the file again."),
                rows: errors.rows.map { .init(line: $0.line, code: $0.code, message: reader.say($0.message)) }
            )
        )
        return Response(
            status: .unprocessableContent, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(body)))
        )
    }

    @Sendable func invitations(_ request: Request, context: AppRequestContext) async throws -> Invitations {
        let course = try await access.course(in: context, needing: .manage).0
        return Invitations(invitations: try await courses.roster.invitations(courseID: course.id))
    }
}
