import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// Everything Rollcall holds about one person, as they may download it.
package struct PersonalDataExport: Codable, Sendable {
    package struct CourseEntry: Codable, Sendable {
        package var id: Int64
        package var name: String
        /// `teacher` for courses they teach, `student` for courses they joined.
        package var relation: String
        package var joinedAt: Date?
    }

    package struct AttendanceEntry: Codable, Sendable {
        package var sessionId: Int64
        package var courseName: String
        package var sessionTitle: String
        package var status: String
        package var recordedAt: Date
        package var source: String
    }

    package struct EvidenceEntry: Codable, Sendable {
        package var sessionId: Int64
        package var latitude: Double?
        package var longitude: Double?
        package var accuracy: Double?
        package var distance: Double?
        package var deviceId: String?
        package var clientAddress: String?
        package var via: String
        package var createdAt: Date
    }

    package struct DeviceEntry: Codable, Sendable {
        package var sessionId: Int64
        package var deviceId: String
        package var createdAt: Date
    }

    package struct PasskeyEntry: Codable, Sendable {
        package var id: Int64
        package var name: String
        package var createdAt: Date
        package var lastUsedAt: Date?
    }

    /// A browser remembered after a texted-code sign-in.
    package struct RememberedBrowserEntry: Codable, Sendable {
        package var name: String
        package var phone: String
        package var createdAt: Date
        package var lastUsedAt: Date?
        package var expiresAt: Date
    }

    package struct VerificationEntry: Codable, Sendable {
        package var sessionId: Int64?
        package var deviceId: String?
        package var reused: Bool
        package var createdAt: Date
    }

    package struct ChangeEntry: Codable, Sendable {
        package var sessionId: Int64
        package var oldStatus: String?
        package var newStatus: String
        package var reason: String
        package var changedAt: Date

        /// Reads a row as stored; `said(to:)` says a reason Rollcall wrote itself (an undo's) in the person's
        /// language.
        package init(from decoder: any Decoder) throws {
            let row = try decoder.container(keyedBy: CodingKeys.self)
            sessionId = try row.decode(Int64.self, forKey: .sessionId)
            oldStatus = try row.decodeIfPresent(String.self, forKey: .oldStatus)
            newStatus = try row.decode(String.self, forKey: .newStatus)
            reason = try row.decode(String.self, forKey: .reason)
            changedAt = try row.decode(Date.self, forKey: .changedAt)
        }

        func said(to reader: Reader) -> ChangeEntry {
            var said = self
            said.reason = reader.say(Phrase.stored(reason))
            return said
        }
    }

    package struct ReportNotice: Codable, Sendable {
        package var createdAt: Date
    }

    package struct QuizAnswerEntry: Codable, Sendable {
        package var attemptId: Int64
        package var runId: Int64
        package var questionId: String
        /// The answer as stored, JSON text.
        package var answer: String
        package var savedAt: Date
    }

    package struct QuizFlagEntry: Codable, Sendable {
        package var attemptId: Int64
        package var kind: String
        package var occurredAt: Date
        package var receivedAt: Date
    }

    /// The phones' evidence: on since when, pseudo-IDs issued, and what the person uploaded, as times and signals;
    /// who their phone heard is not said here, as it is about other people.
    package struct ProximityEntry: Codable, Sendable {
        package var onSince: Date?
        package var pseudoIDsKept: Int
        package var encounters: [EncounterEntry]
        package var uploads: [ProximityUpload]
    }

    package struct EncounterEntry: Codable, Sendable {
        package var firstSeen: Date
        package var lastSeen: Date
        package var signal: Int
    }

    package var exportedAt: Date
    package var retentionDays: Int
    package var account: UserView
    package var courses: [CourseEntry]
    package var attendance: [AttendanceEntry]
    package var checkInEvidence: [EvidenceEntry]
    package var devices: [DeviceEntry]
    package var passkeys: [PasskeyEntry]
    package var rememberedBrowsers: [RememberedBrowserEntry]
    package var passkeyVerifications: [VerificationEntry]
    package var changesByHand: [ChangeEntry]
    /// That exposure reports about the person were made, and when; not their contents.
    package var exposureReportsAboutYou: [ReportNotice]
    package var quizAnswers: [QuizAnswerEntry]
    /// Integrity flags still kept (they age out with the other evidence).
    package var quizFlags: [QuizFlagEntry]
    package var proximity: ProximityEntry
}

/// Why an account cannot be deleted now.
package enum DeletionRefusal: Error, Equatable {
    /// The person teaches courses whose records name them, or is an admin.
    case recordsMustBeKept(Phrase)
    case alreadyDeleted
}

/// A person's data: the download of all of it, and deleting it while keeping the anonymous attendance counts.
package struct PersonalData: Sendable {
    package let database: Database
    package let identities: IdentityCache
    package let retentionDays: Int

    package init(database: Database, identities: IdentityCache, retentionDays: Int) {
        self.database = database
        self.identities = identities
        self.retentionDays = retentionDays
    }

    package func export(_ user: User, in reader: Reader, now: Date = Date()) async throws -> PersonalDataExport {
        try await database.read { sql in
            let id = user.id
            let courses = try await sql.raw(
                """
                SELECT c.id, c.name, 'teacher' AS relation, NULL AS joined_at FROM courses c WHERE c.teacher_id = \(bind: id)
                UNION ALL
                SELECT c.id, c.name, 'student' AS relation, e.joined_at FROM courses c
                  JOIN enrollments e ON e.course_id = c.id WHERE e.student_id = \(bind: id)
                """
            ).all(decoding: PersonalDataExport.CourseEntry.self, with: .rollcall)
            let attendance = try await sql.raw(
                """
                SELECT a.session_id, c.name AS course_name, s.title AS session_title, a.status, a.recorded_at, a.source
                FROM attendance a JOIN sessions s ON s.id = a.session_id JOIN courses c ON c.id = s.course_id
                WHERE a.student_id = \(bind: id) ORDER BY a.recorded_at
                """
            ).all(decoding: PersonalDataExport.AttendanceEntry.self, with: .rollcall)
            let evidence = try await sql.raw(
                """
                SELECT session_id, latitude, longitude, accuracy, distance, device_id, client_address, via, created_at
                FROM check_in_evidence WHERE student_id = \(bind: id) ORDER BY created_at
                """
            ).all(decoding: PersonalDataExport.EvidenceEntry.self, with: .rollcall)
            let devices = try await sql.raw(
                "SELECT session_id, device_id, created_at FROM device_bindings WHERE student_id = \(bind: id)"
            ).all(decoding: PersonalDataExport.DeviceEntry.self, with: .rollcall)
            let (passkeys, browsers, verifications) = try await Self.signInEntries(of: id, in: sql)
            let changes = try await sql.raw(
                """
                SELECT session_id, old_status, new_status, reason, changed_at FROM attendance_audit
                WHERE student_id = \(bind: id) ORDER BY id
                """
            ).all(decoding: PersonalDataExport.ChangeEntry.self, with: .rollcall).map { $0.said(to: reader) }
            let reports = try await sql.raw(
                "SELECT created_at FROM exposure_reports WHERE person_id = \(bind: id) ORDER BY id"
            ).all(decoding: PersonalDataExport.ReportNotice.self, with: .rollcall)
            let (quizAnswers, quizFlags) = try await Self.quizEntries(of: id, in: sql)
            let proximity = try await Self.proximityEntry(of: id, in: sql)
            return PersonalDataExport(
                exportedAt: now, retentionDays: retentionDays, account: UserView(user), courses: courses,
                attendance: attendance, checkInEvidence: evidence, devices: devices, passkeys: passkeys,
                rememberedBrowsers: browsers, passkeyVerifications: verifications, changesByHand: changes,
                exposureReportsAboutYou: reports, quizAnswers: quizAnswers, quizFlags: quizFlags, proximity: proximity)
        }
    }

    private static func signInEntries(of id: Int64, in sql: any SQLDatabase) async throws -> (
        [PersonalDataExport.PasskeyEntry], [PersonalDataExport.RememberedBrowserEntry],
        [PersonalDataExport.VerificationEntry]
    ) {
        let passkeys = try await sql.raw(
            "SELECT id, name, created_at, last_used_at FROM passkeys WHERE user_id = \(bind: id) ORDER BY id"
        ).all(decoding: PersonalDataExport.PasskeyEntry.self, with: .rollcall)
        let browsers = try await sql.raw(
            """
            SELECT name, phone, created_at, last_used_at, expires_at FROM remembered_devices
            WHERE user_id = \(bind: id) ORDER BY id
            """
        ).all(decoding: PersonalDataExport.RememberedBrowserEntry.self, with: .rollcall)
        let verifications = try await sql.raw(
            """
            SELECT session_id, device_id, reused, created_at FROM passkey_verifications
            WHERE user_id = \(bind: id) ORDER BY created_at
            """
        ).all(decoding: PersonalDataExport.VerificationEntry.self, with: .rollcall)
        return (passkeys, browsers, verifications)
    }

    private static func quizEntries(of id: Int64, in sql: any SQLDatabase) async throws
        -> ([PersonalDataExport.QuizAnswerEntry], [PersonalDataExport.QuizFlagEntry])
    {
        let quizAnswers = try await sql.raw(
            """
            SELECT qa.attempt_id, t.run_id, qa.question_id, qa.answer, qa.saved_at
            FROM quiz_answers qa JOIN quiz_attempts t ON t.id = qa.attempt_id
            WHERE t.student_id = \(bind: id) ORDER BY qa.attempt_id, qa.question_id
            """
        ).all(decoding: PersonalDataExport.QuizAnswerEntry.self, with: .rollcall)
        let quizFlags = try await sql.raw(
            """
            SELECT f.attempt_id, f.kind, f.occurred_at, f.received_at
            FROM quiz_flags f JOIN quiz_attempts t ON t.id = f.attempt_id
            WHERE t.student_id = \(bind: id) ORDER BY f.id
            """
        ).all(decoding: PersonalDataExport.QuizFlagEntry.self, with: .rollcall)
        return (quizAnswers, quizFlags)
    }

    private static func proximityEntry(of id: Int64, in sql: any SQLDatabase) async throws
        -> PersonalDataExport.ProximityEntry
    {
        let since =
            try await sql.select().column("proximity_since").from("users").where("id", .equal, id)
            .first(decodingColumn: "proximity_since", as: Date?.self) ?? nil
        let pseudoIDs =
            try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
            .from("proximity_ids").where("user_id", .equal, id).first(decodingColumn: "n", as: Int.self) ?? 0
        let encounters = try await sql.raw(
            """
            SELECT first_seen, last_seen, signal FROM proximity_encounters
            WHERE uploader_id = \(bind: id) ORDER BY first_seen
            """
        ).all(decoding: PersonalDataExport.EncounterEntry.self, with: .rollcall)
        let uploads = try await sql.select().column("*").from("proximity_uploads").where("user_id", .equal, id)
            .orderBy("id").all(decoding: ProximityUpload.self, with: .rollcall)
        return PersonalDataExport.ProximityEntry(
            onSince: since, pseudoIDsKept: pseudoIDs, encounters: encounters, uploads: uploads)
    }

    /// Whether the person may delete their own account: not while records name them as a course's teacher, nor as
    /// an admin (another admin removes an admin).
    package func refusalOfSelfDeletion(_ user: User) async throws -> DeletionRefusal? {
        if user.deletedAt != nil { return .alreadyDeleted }
        if user.role == .admin {
            return .recordsMustBeKept("An admin's account is deleted by another admin.")
        }
        let teaches = try await database.read { sql in
            try await sql.select().column("id").from("courses").where("teacher_id", .equal, user.id).first() != nil
        }
        return teaches
            ? .recordsMustBeKept(
                "Your courses' records name you as their teacher, so they must be kept; ask an admin to delete your account."
            )
            : nil
    }

    /// Deletes a person's personal data: their name, email, number, phone, picture, passkeys, remembered browsers,
    /// sign-ins, evidence
    /// (quiz flags included), devices, enrolments and messages. Their attendance rows stay, attached to an empty account named
    /// "Deleted person", so course figures still add up; audit entries stay too.
    package func erase(_ user: User, now: Date = Date()) async throws {
        defer { identities.forget(userID: user.id) }
        try await database.transaction { sql in
            let id = user.id
            // The account held from the start: an enrolment under way (which reads it shared) ends first and its row
            // goes below, or waits and finds the account erased.
            if sql.dialect.name == "postgresql" {
                try await sql.raw("SELECT id FROM users WHERE id = \(bind: id) FOR NO KEY UPDATE").run()
            }
            // Jobs about the person, such as their scores for learning platforms (which name them by their subject):
            // none is done for someone who is gone.
            try await sql.delete(from: "jobs").where("user_id", .equal, SQLBind(id)).run()
            for (table, column) in [
                ("access_tokens", "user_id"), ("email_verifications", "user_id"), ("password_resets", "user_id"),
                ("phone_codes", "user_id"), ("passkey_challenges", "user_id"),
                ("passkey_verifications", "user_id"), ("passkeys", "user_id"), ("remembered_devices", "user_id"),
                ("check_in_evidence", "student_id"),
                ("device_bindings", "student_id"), ("flags", "student_id"), ("enrollments", "student_id"),
                // The links to the school's sign-in and its learning platforms: a later launch or sign-in starts anew.
                ("sso_identities", "user_id"), ("lti_identities", "user_id"), ("lti_handoffs", "user_id"),
            ] {
                try await sql.delete(from: table).where(SQLColumn(column), .equal, SQLBind(id)).run()
            }
            try await sql.delete(from: "course_invitations").where("email", .equal, user.email).run()
            try await ProximityStore.forget(id, in: sql)
            try await sql.update("users").set("proximity_since", to: SQLLiteral.null).where("id", .equal, id).run()
            // Quiz flags and device ids are evidence; answers and marks stay with the anonymous account, as
            // attendance does.
            try await sql.raw(
                "DELETE FROM quiz_flags WHERE attempt_id IN (SELECT id FROM quiz_attempts WHERE student_id = \(bind: id))"
            ).run()
            try await sql.update("quiz_attempts").set("device_id", to: SQLLiteral.null).where("student_id", .equal, id)
                .run()
            // Sign-in counters are kept per address and account: `email address`.
            let prefix = user.email + " "
            try await sql.raw(
                """
                DELETE FROM attempt_counters WHERE scope = \(bind: AttemptCounters.Scope.signInAccount.rawValue)
                  AND substr(key, 1, CAST(\(bind: prefix.count) AS INTEGER)) = \(bind: prefix)
                """
            ).run()
            var recipients = [user.email]
            if let phone = user.phone { recipients.append(phone) }
            try await sql.delete(from: "outbox").where("recipient", .in, SQLBind.group(recipients)).run()
            try await UserStore.empty(id, at: now, in: sql)
            if let picture = user.pictureId {
                try await sql.delete(from: "images").where("id", .equal, picture).run()
            }
        }
        database.announce(.user(user.id))
    }
}
