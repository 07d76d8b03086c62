import RollcallCore
import RollcallModel
import RollcallWords

/// What a person may do with a course.
package enum CourseAccess: Sendable {
    /// Its teacher, a co-teacher, or an admin: everything.
    case manage
    /// A teaching assistant: sees the course and its rooms and marks attendance; changes nothing else.
    case assist
    /// An enrolled student: see it and its sessions.
    case attend

    /// Whether this access covers what `needed` asks.
    package func covers(_ needed: CourseAccess) -> Bool {
        switch needed {
        case .manage: self == .manage
        case .assist: self != .attend
        case .attend: true
        }
    }
}

/// The one access rule of Rollcall, which every route, page and socket asks: the admin's and the health officer's
/// roles, and role × ownership × enrolment for courses, their sessions, quiz runs and attempts. It answers 404 when
/// there is no such thing and 403 for those it does not admit.
package struct AccessRule: Sendable {
    package let courses: CourseStore
    package let sessions: SessionStore
    package let quizzes: QuizStore

    package init(courses: CourseStore, sessions: SessionStore, quizzes: QuizStore) {
        self.courses = courses
        self.sessions = sessions
        self.quizzes = quizzes
    }

    // MARK: Roles

    /// The signed-in admin, or 403.
    package static func admin(_ context: AppRequestContext) throws -> User {
        try context.requireRole(.admin, message: "Only an admin can do this.")
    }

    /// The signed-in health officer, or 403.
    package static func officer(_ context: AppRequestContext) throws -> User {
        try context.requireRole(
            .healthOfficer, message: "Only a health officer runs exposure reports. An admin grants the role.")
    }

    // MARK: Courses

    /// What `user` may do with `course`, from the facts about them: the one decision behind every course, list and
    /// detail alike, so that a list can never show more or less than the course itself.
    ///
    /// - Parameters:
    ///   - staffRole: the person's part in teaching the course, if any.
    ///   - enrolled: whether the person is on the course's roster.
    /// - Returns: the access, or `nil` for someone the course does not admit.
    package static func decide(_ course: Course, for user: User, staffRole: StaffRole?, enrolled: Bool) -> CourseAccess?
    {
        if user.role == .admin || course.teacherId == user.id { return .manage }
        switch staffRole {
        case .teacher?: return .manage
        case .assistant?: return .assist
        case nil: return user.role == .student && enrolled ? .attend : nil
        }
    }

    /// What `user` may do with a course of their own list (`CourseStore.list(for:)`, which holds only courses they
    /// teach, assist or are enrolled in, and carries their staff role).
    package static func listed(_ summary: CourseSummary, for user: User) -> CourseAccess? {
        decide(summary.course, for: user, staffRole: summary.staffRole, enrolled: true)
    }

    /// Loads a course and decides what `user` may do with it, refusing everyone else and, when `needed` is
    /// `.manage`, its students too. When the request is `changing` something, an archived course refuses it: it is
    /// read-only until restored.
    package func course(_ id: Int64, for user: User, needing needed: CourseAccess = .attend, changing: Bool = false)
        async throws -> (Course, CourseAccess)
    {
        guard let course = try await courses.find(id: id) else { throw AppError.notFound(.courseNotFound, "course") }
        let access = try await access(to: course, for: user)
        guard access.covers(needed) else {
            throw AppError.forbidden(
                needed == .manage
                    ? "Only the course's teacher can do this."
                    : "Only the course's teachers and teaching assistants can do this.")
        }
        if changing { try Self.requireActive(course) }
        return (course, access)
    }

    /// Refuses a change to an archived course (409 `course_archived`).
    package static func requireActive(_ course: Course) throws {
        try requireActive(archived: course.archivedAt != nil)
    }

    package static func requireActive(archived: Bool) throws {
        guard !archived else { throw AppError.courseArchived }
    }

    /// Loads a session and its course, and decides as for the course.
    package func session(_ id: Int64, for user: User, needing needed: CourseAccess = .attend, changing: Bool = false)
        async throws -> (session: ClassSession, course: Course, access: CourseAccess)
    {
        guard let session = try await sessions.find(id: id) else {
            throw AppError.notFound(.sessionNotFound, "session")
        }
        let (course, access) = try await course(session.courseId, for: user, needing: needed, changing: changing)
        return (session, course, access)
    }

    /// A student's records in a course: their own, or anyone's for those who manage the course.
    package func studentRecords(courseID: Int64, studentID: Int64, for user: User) async throws -> (
        Course, CourseAccess
    ) {
        let (course, access) = try await course(courseID, for: user)
        guard access != .attend || user.id == studentID else {
            throw AppError.forbidden("You can see only your own attendance.")
        }
        return (course, access)
    }

    private func access(to course: Course, for user: User) async throws -> CourseAccess {
        // The course's own teacher and admins are decided without a query.
        if let access = Self.decide(course, for: user, staffRole: nil, enrolled: false) { return access }
        let staffRole = try await courses.staffRole(courseID: course.id, userID: user.id)
        let enrolled =
            staffRole == nil && user.role == .student
            ? try await courses.roster.isEnrolled(courseID: course.id, studentID: user.id) : false
        if let access = Self.decide(course, for: user, staffRole: staffRole, enrolled: enrolled) { return access }
        throw AppError.forbidden(
            user.role == .student
                ? "You are not enrolled in this course. Ask your teacher for its join code."
                : "This course belongs to another teacher."
        )
    }

    // MARK: Quizzes

    /// A quiz run and what `user` may do with its course.
    package func run(_ id: Int64, for user: User, needing needed: CourseAccess = .attend, changing: Bool = false)
        async throws -> (QuizRun, CourseAccess)
    {
        guard let run = try await quizzes.runs.run(id: id) else {
            throw AppError.notFound(.quizRunNotFound, "quiz run")
        }
        let (_, granted) = try await course(run.courseId, for: user, needing: needed, changing: changing)
        return (run, granted)
    }

    /// An attempt with its run: for its own student, or, unless `ownOnly`, for those who manage the course.
    package func attempt(_ id: Int64, for user: User, ownOnly: Bool = false) async throws -> (QuizAttempt, QuizRun) {
        guard let attempt = try await quizzes.attempts.find(id: id),
            let run = try await quizzes.runs.run(id: attempt.runId)
        else { throw AppError.notFound(.attemptNotFound, "attempt") }
        let (_, granted) = try await course(run.courseId, for: user)
        guard attempt.studentId == user.id || (granted == .manage && !ownOnly) else {
            throw AppError.forbidden("This is another student's attempt.")
        }
        return (attempt, run)
    }

    /// An attempt with its run, for those who manage the course (marking, reopening, adding time).
    package func managedAttempt(_ id: Int64, for user: User, changing: Bool = false) async throws -> (
        QuizAttempt, QuizRun
    ) {
        guard let attempt = try await quizzes.attempts.find(id: id),
            let run = try await quizzes.runs.run(id: attempt.runId)
        else { throw AppError.notFound(.attemptNotFound, "attempt") }
        _ = try await course(run.courseId, for: user, needing: .manage, changing: changing)
        return (attempt, run)
    }

    /// The run of an attempt this process has read as the user's, without reading it again: its save verifies that
    /// it is still theirs to save (`AnswerSaves.Save.verifying`). `nil` for an attempt not known as theirs.
    package func knownAttemptToSave(_ id: Int64, for user: User) async throws -> QuizRun? {
        guard let known = quizzes.attempts.known.value(id: id), known.studentID == user.id else { return nil }
        return try await quizzes.runs.fixedRun(id: known.runID)
    }

    /// An attempt its own student is saving an answer to: the busiest quiz route, so the run's fixed parts come from
    /// memory and only what a save needs is asked (its own student, still enrolled).
    package func attemptToSave(_ id: Int64, for user: User) async throws -> (QuizAttempt, QuizRun) {
        guard let found = try await quizzes.attempts.findWithEnrolment(id: id),
            let run = try await quizzes.runs.fixedRun(id: found.0.runId)
        else { throw AppError.notFound(.attemptNotFound, "attempt") }
        let (attempt, enrolled) = found
        guard attempt.studentId == user.id, enrolled else {
            throw AppError.forbidden("This is another student's attempt.")
        }
        return (attempt, run)
    }
}

extension AccessRule {
    /// The course named by the request's path, for the signed-in person.
    package func course(in context: AppRequestContext, needing needed: CourseAccess = .attend, changing: Bool = false)
        async throws -> (Course, CourseAccess)
    {
        let user = try context.requireUser()
        return try await course(
            try context.id("courseID", .courseNotFound, "course"), for: user, needing: needed, changing: changing)
    }

    /// The session named by the request's path, for the signed-in person.
    package func session(in context: AppRequestContext, needing needed: CourseAccess = .attend, changing: Bool = false)
        async throws -> (session: ClassSession, course: Course, access: CourseAccess)
    {
        let user = try context.requireUser()
        return try await session(
            try context.id("sessionID", .sessionNotFound, "session"), for: user, needing: needed, changing: changing)
    }

    /// The quiz run named by the request's path, for the signed-in person.
    package func run(in context: AppRequestContext, needing needed: CourseAccess = .attend, changing: Bool = false)
        async throws -> (QuizRun, CourseAccess)
    {
        let user = try context.requireUser()
        return try await run(
            try context.id("runID", .quizRunNotFound, "quiz run"), for: user, needing: needed, changing: changing)
    }

    /// The attempt named by the request's path, for its student or (unless `ownOnly`) the course's teachers.
    package func attempt(in context: AppRequestContext, ownOnly: Bool = false) async throws -> (QuizAttempt, QuizRun) {
        let user = try context.requireUser()
        return try await attempt(try context.id("attemptID", .attemptNotFound, "attempt"), for: user, ownOnly: ownOnly)
    }

    /// The attempt named by the request's path, for the course's teachers.
    package func managedAttempt(in context: AppRequestContext, changing: Bool = false) async throws -> (
        QuizAttempt, QuizRun
    ) {
        let user = try context.requireUser()
        return try await managedAttempt(
            try context.id("attemptID", .attemptNotFound, "attempt"), for: user, changing: changing)
    }
}
