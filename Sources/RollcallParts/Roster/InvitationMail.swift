import Foundation
import Logging
import RollcallDelivery
import RollcallModel
import RollcallStorage
import SQLKit

/// Invitation letters, at most `perDay` for each teacher in any 24 hours: a roster import is not a mail relay.
/// Invitations beyond the allowance wait, without a `mailed_at`, and go out as it frees up.
package struct InvitationMail: Sendable {
    package let database: Database
    package let outbox: Outbox
    package let perDay: Int
    package let school: String
    /// The language of invitations to people who chose none (`ROLLCALL_DEFAULT_LANGUAGE`).
    package var language = "en"
    package let publicURL: String
    /// The school's sign-in button, where it is on: invited people sign in with it rather than register.
    package var schoolSignIn: String?

    package init(database: Database, outbox: Outbox, perDay: Int, school: String, publicURL: String) {
        self.database = database
        self.outbox = outbox
        self.perDay = perDay
        self.school = school
        self.publicURL = publicURL
    }

    package init(_ configuration: Configuration, stores: Stores) {
        self.init(
            database: stores.database, outbox: stores.outbox, perDay: configuration.invitationsPerDay,
            school: configuration.schoolName, publicURL: configuration.publicURL)
        language = configuration.defaultLanguage
        schoolSignIn = configuration.singleSignOn?.name
    }

    /// Mails as many of `teacherID`'s waiting invitations as their allowance lets, oldest first; answers how many.
    @discardableResult
    package func sendWaiting(from teacherID: Int64, now: Date = Date()) async throws -> Int {
        let perDay = self.perDay
        let (publicURL, schoolSignIn, school, language) = (self.publicURL, self.schoolSignIn, school, language)
        let sent = try await outbox.send { sql -> [OutgoingMessage]? in
            // One teacher's allowance is counted and spent by one transaction at a time, in every process.
            guard try await sql.lockRow(of: "users", id: teacherID),
                let inviter = try await sql.select().column("name")
                    .column(
                        SQLFunction("COALESCE", args: SQLColumn("language"), SQLColumn("first_language")),
                        as: "language"
                    )
                    .from("users").where("id", .equal, teacherID).first()
            else { return nil }
            let teacher = try inviter.decode(column: "name", as: String.self)
            // Someone without an account reads the invitation in the language of whoever invited them, the language
            // the course is taught in as far as Rollcall knows, else the school's.
            let letters = Letters(
                school: school,
                language: try inviter.decodeNil(column: "language")
                    ? language : try inviter.decode(column: "language", as: String.self))
            let mailed =
                try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "count")
                .from("course_invitations").where("invited_by", .equal, teacherID)
                .where("mailed_at", .greaterThan, now.addingTimeInterval(-Self.day))
                .first(decodingColumn: "count", as: Int.self) ?? 0
            guard mailed < perDay else { return nil }
            let waiting = try await Self.waiting(from: teacherID, limit: perDay - mailed, sql: sql)
            var messages: [OutgoingMessage] = []
            for row in waiting {
                let courseID = try row.decode(column: "course_id", as: Int64.self)
                let email = try row.decode(column: "email", as: String.self)
                let invited = try row.decode(column: "name", as: String.self)
                let name =
                    try row.decodeNil(column: "account_name")
                    ? invited : try row.decode(column: "account_name", as: String.self)
                try await sql.update("course_invitations").set("mailed_at", to: now)
                    .where("course_id", .equal, courseID).where("email", .equal, email).run()
                let address = email.addingPercentEncoding(withAllowedCharacters: Self.queryValue) ?? ""
                let link = schoolSignIn == nil ? "\(publicURL)/register?email=\(address)" : "\(publicURL)/sign-in"
                let chosen =
                    try row.decodeIfPresent(column: "language", as: String.self)
                let course = try row.decode(column: "course_name", as: String.self)
                let letter = letters.written(for: chosen)
                messages.append(
                    letter.invitation(
                        name: name, teacher: teacher, course: course, link: link,
                        schoolSignIn: schoolSignIn.map { SingleSignOnSettings.buttonWords($0, in: letter.reader) }
                    ).email(to: email, name: name))
            }
            return messages
        }
        return sent?.count ?? 0
    }

    /// The invitations `teacherID` made that wait for their letter, oldest first, with the course's name and, for
    /// someone who has an account already, its language and name.
    package static func waiting(from teacherID: Int64, limit: Int, sql: any SQLDatabase) async throws -> [any SQLRow] {
        try await sql.select()
            .column(SQLColumn("course_id", table: "course_invitations"))
            .column(SQLColumn("email", table: "course_invitations"))
            .column(SQLColumn("name", table: "course_invitations"))
            .column(SQLColumn("name", table: "courses"), as: "course_name")
            // Someone invited who has an account already reads it in their language, greeted by the name they
            // wrote themselves.
            .column(
                SQLFunction(
                    "COALESCE", args: SQLColumn("language", table: "users"), SQLColumn("first_language", table: "users")
                ),
                as: "language"
            )
            .column(SQLColumn("name", table: "users"), as: "account_name")
            .from("course_invitations")
            .join(
                "courses", on: SQLColumn("id", table: "courses"), .equal,
                SQLColumn("course_id", table: "course_invitations")
            )
            .join(
                "users", method: SQLJoinMethod.left, on: SQLColumn("email", table: "users"), .equal,
                SQLColumn("email", table: "course_invitations")
            )
            .where(SQLColumn("invited_by", table: "course_invitations"), .equal, SQLBind(teacherID))
            .where(SQLColumn("mailed_at", table: "course_invitations"), .is, SQLLiteral.null)
            .where(SQLColumn("archived_at", table: "courses"), .is, SQLLiteral.null)
            .orderBy(SQLColumn("invited_at", table: "course_invitations"))
            .orderBy(SQLColumn("course_id", table: "course_invitations"))
            .orderBy(SQLColumn("email", table: "course_invitations"))
            .limit(limit).all()
    }

    /// Mails what every teacher's allowance lets of the invitations waiting; answers how many went out.
    @discardableResult
    package func sendAllWaiting(now: Date = Date()) async throws -> Int {
        let teachers = try await database.read { sql in
            try await sql.select().distinct().column("invited_by").from("course_invitations")
                .where("mailed_at", .is, SQLLiteral.null).all(decodingColumn: "invited_by", as: Int64.self)
        }
        var sent = 0
        for teacher in teachers { sent += try await sendWaiting(from: teacher, now: now) }
        return sent
    }

    package static let day: TimeInterval = 24 * 3600
    /// Characters left as they are in a query value; `@`, `+` and `&` are encoded.
    package static let queryValue = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_~"))
}

extension Periodically {
    /// Sends waiting invitations as teachers' daily allowances free up, in each process; the teacher's row lock keeps
    /// two processes from spending one allowance twice.
    package static func invitationSender(
        _ mail: InvitationMail, ready: SchemaReady, logger: Logger, interval: Duration = .seconds(600)
    ) -> Periodically {
        Periodically(name: "invitation-mail", interval: interval, ready: ready, logger: logger) {
            let sent = try await mail.sendAllWaiting()
            if sent > 0 { logger.info("waiting invitations mailed", metadata: ["count": "\(sent)"]) }
        }
    }
}
