import RollcallCore

/// What a person may do with a course.
enum CourseAccess: Sendable {
    /// Its teacher, a co-teacher, or an admin: everything.
    case manage
    /// A teaching assistant: sees the course and its rooms and marks attendance; changes nothing else.
    case assist
    /// An enrolled student: see it and its sessions.
    case attend

    /// Whether this access covers what `needed` asks.
    func covers(_ needed: CourseAccess) -> Bool {
        switch needed {
        case .manage: self == .manage
        case .assist: self != .attend
        case .attend: true
        }
    }
}

/// The one access rule of courses and their sessions, role × ownership × enrolment, which every route, page and
/// socket asks: 404 when there is no such course or session, 403 for those it does not admit.
struct AccessRule: Sendable {
    let courses: CourseStore
    let sessions: SessionStore

    /// Loads a course and decides what `user` may do with it, refusing everyone else and, when `needed` is
    /// `.manage`, its students too.
    func course(_ id: Int64, for user: User, needing needed: CourseAccess = .attend) async throws
        -> (Course, CourseAccess)
    {
        guard let course = try await courses.find(id: id) else { throw AppError.notFound("course") }
        let access = try await access(to: course, for: user)
        guard access.covers(needed) else {
            throw AppError.forbidden(
                needed == .manage
                    ? "Only the course's teacher can do this."
                    : "Only the course's teachers and teaching assistants can do this.")
        }
        return (course, access)
    }

    /// Loads a session and its course, and decides as for the course.
    func session(_ id: Int64, for user: User, needing needed: CourseAccess = .attend) async throws
        -> (session: ClassSession, course: Course, access: CourseAccess)
    {
        guard let session = try await sessions.find(id: id) else { throw AppError.notFound("session") }
        let (course, access) = try await course(session.courseId, for: user, needing: needed)
        return (session, course, access)
    }

    /// A student's records in a course: their own, or anyone's for those who manage the course.
    func studentRecords(courseID: Int64, studentID: Int64, for user: User) async throws -> (Course, CourseAccess) {
        let (course, access) = try await course(courseID, for: user)
        guard access != .attend || user.id == studentID else {
            throw AppError.forbidden("You can see only your own attendance.")
        }
        return (course, access)
    }

    private func access(to course: Course, for user: User) async throws -> CourseAccess {
        if user.role == .admin || course.teacherId == user.id { return .manage }
        switch try await courses.staffRole(courseID: course.id, userID: user.id) {
        case .teacher?: return .manage
        case .assistant?: return .assist
        case nil: break
        }
        if user.role == .student, try await courses.isEnrolled(courseID: course.id, studentID: user.id) {
            return .attend
        }
        throw AppError.forbidden(
            user.role == .student
                ? "You are not enrolled in this course. Ask your teacher for its join code."
                : "This course belongs to another teacher."
        )
    }
}

extension AccessRule {
    /// The course named by the request's path, for the signed-in person.
    func course(in context: AppRequestContext, needing needed: CourseAccess = .attend) async throws
        -> (Course, CourseAccess)
    {
        let user = try context.requireUser()
        return try await course(try context.id("courseID", "course"), for: user, needing: needed)
    }

    /// The session named by the request's path, for the signed-in person.
    func session(in context: AppRequestContext, needing needed: CourseAccess = .attend) async throws
        -> (session: ClassSession, course: Course, access: CourseAccess)
    {
        let user = try context.requireUser()
        return try await session(try context.id("sessionID", "session"), for: user, needing: needed)
    }
}
