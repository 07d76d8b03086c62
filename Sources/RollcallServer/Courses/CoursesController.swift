import Foundation
import Hummingbird
import RollcallCore

/// What a person may do with a course.
enum CourseAccess: Sendable {
    /// Its teacher, or an admin: everything.
    case manage
    /// An enrolled student: see it and its sessions.
    case attend
}

extension Stores {
    /// Loads a course and decides what `user` may do with it, refusing everyone else.
    func course(_ id: Int64, for user: User) async throws -> (Course, CourseAccess) {
        guard let course = try await courses.find(id: id) else { throw AppError.notFound("course") }
        if user.role == .admin || course.teacherId == user.id { return (course, .manage) }
        if user.role == .student, try await courses.isEnrolled(courseID: id, studentID: user.id) {
            return (course, .attend)
        }
        throw AppError.forbidden(
            user.role == .student
                ? "You are not enrolled in this course. Ask your teacher for its join code."
                : "This course belongs to another teacher."
        )
    }

    /// Like `course(_:for:)`, but only for those who manage it.
    func managedCourse(_ id: Int64, for user: User) async throws -> Course {
        let (course, access) = try await self.course(id, for: user)
        guard access == .manage else { throw AppError.forbidden("Only the course's teacher can do this.") }
        return course
    }

    func summary(of course: Course) async throws -> CourseSummary {
        let teacher = try await users.find(id: course.teacherId)
        let count = try await courses.studentCount(courseID: course.id)
        return CourseSummary(course: course, teacherName: teacher?.name ?? "", studentCount: count)
    }
}

/// Courses: creating and editing them, joining by code, and the roster.
struct CoursesController: Sendable {
    let stores: Stores

    struct NewCourse: Decodable {
        var name: String
        var description: String?
        var plannedSessions: Int?
    }
    struct CourseUpdate: Decodable {
        var name: String?
        var description: String?
        var plannedSessions: Int?
        var points: StatusPoints?
        var markAbsentOnClose: Bool?
        var absenteeThreshold: Int?
    }
    struct Join: Decodable {
        var code: String
    }
    struct AddStudent: Decodable {
        var email: String?
        var studentNumber: String?
    }
    struct CourseEnvelope: Codable, ResponseEncodable {
        var course: CourseView
    }
    struct CourseList: Codable, ResponseEncodable {
        var courses: [CourseView]
    }
    struct Joined: Codable, ResponseEncodable {
        var course: CourseView
        var joined: Bool
    }
    struct Roster: Codable, ResponseEncodable {
        var students: [RosterEntry]
    }
    struct StudentEnvelope: Codable, ResponseEncodable {
        var student: RosterEntry
        var added: Bool
    }

    static let plannedSessionsRange = 1...500
    static let descriptionLength = 0...2000

    func addRoutes(to api: RouterGroup<AppRequestContext>) {
        api.get("courses", use: list)
        api.post("courses", use: create)
        api.post("courses/join", use: join)
        api.get("courses/:courseID", use: show)
        api.patch("courses/:courseID", use: update)
        api.put("courses/:courseID/poster", use: uploadPoster)
        api.get("courses/:courseID/poster", use: poster)
        api.get("courses/:courseID/students", use: roster)
        api.post("courses/:courseID/students", use: addStudent)
        api.delete("courses/:courseID/students/:studentID", use: removeStudent)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> CourseList {
        let user = try context.requireUser()
        let summaries = try await stores.courses.list(for: user)
        return CourseList(
            courses: summaries.map { CourseView($0, manages: user.role == .admin || $0.course.teacherId == user.id) }
        )
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireRole(.teacher, .admin, message: "Only teachers can create courses.")
        guard user.mayTeach else {
            throw AppError(
                .forbidden, "approval_pending",
                "An admin has not approved your teacher account yet; you can create courses once they have."
            )
        }
        let input = try await request.decodeJSON(as: NewCourse.self, context: context)
        let name = try check { () throws(RuleViolation) in try AccountRules.name(input.name) }
        let description = try Self.description(input.description ?? "")
        let planned = try Self.plannedSessions(input.plannedSessions)
        let course = try await stores.courses.create(
            teacherID: user.id, name: name, description: description, plannedSessions: planned
        )
        let view = CourseView(CourseSummary(course: course, teacherName: user.name, studentCount: 0), manages: true)
        return try CourseEnvelope(course: view).response(from: request, context: context, status: .created)
    }

    static func description(_ raw: String) throws -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard descriptionLength.contains(text.count) else {
            throw AppError.invalid(
                RuleViolation(field: "description", message: "Keep the description under 2000 characters.")
            )
        }
        return text
    }

    static func plannedSessions(_ value: Int?) throws -> Int? {
        guard let value else { return nil }
        guard plannedSessionsRange.contains(value) else {
            throw AppError.invalid(
                RuleViolation(field: "plannedSessions", message: "Plan between 1 and 500 sessions, or leave it empty.")
            )
        }
        return value
    }

    @Sendable func join(_ request: Request, context: AppRequestContext) async throws -> Joined {
        let user = try context.requireRole(.student, message: "Only students join courses; teachers create them.")
        let input = try await request.decodeJSON(as: Join.self, context: context)
        guard let code = JoinCode(typed: input.code) else {
            throw AppError(
                .badRequest, "invalid_join_code",
                "A join code has \(JoinCode.length) letters and digits, like \(JoinCode.example). Check it and try again."
            )
        }
        guard let course = try await stores.courses.find(joinCode: code) else {
            throw AppError(
                .notFound, "course_not_found", "No course has the join code \(code). Check it with your teacher."
            )
        }
        let joined = try await stores.courses.enroll(courseID: course.id, studentID: user.id)
        return Joined(course: CourseView(try await stores.summary(of: course), manages: false), joined: joined)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> CourseEnvelope {
        let user = try context.requireUser()
        let (course, access) = try await stores.course(try context.id("courseID", "course"), for: user)
        return CourseEnvelope(course: CourseView(try await stores.summary(of: course), manages: access == .manage))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> CourseEnvelope {
        let user = try context.requireUser()
        var course = try await stores.managedCourse(try context.id("courseID", "course"), for: user)
        let input = try await request.decodeJSON(as: CourseUpdate.self, context: context)
        if let name = input.name { course.name = try check { () throws(RuleViolation) in try AccountRules.name(name) } }
        if let description = input.description { course.description = try Self.description(description) }
        if let planned = input.plannedSessions { course.plannedSessions = try Self.plannedSessions(planned) }
        if let points = input.points {
            course.points = try check { () throws(RuleViolation) in try points.validated() }
        }
        if let mark = input.markAbsentOnClose { course.markAbsentOnClose = mark }
        if let threshold = input.absenteeThreshold {
            guard (0...100).contains(threshold) else {
                throw AppError.invalid(
                    RuleViolation(
                        field: "absenteeThreshold", message: "Give the absentee threshold as 0 to 100 percent.")
                )
            }
            course.absenteeThreshold = threshold
        }
        try await stores.courses.update(course)
        return CourseEnvelope(course: CourseView(try await stores.summary(of: course), manages: true))
    }

    @Sendable func uploadPoster(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let course = try await stores.managedCourse(try context.id("courseID", "course"), for: user)
        try await stores.courses.setPoster(courseID: course.id, image: try await request.imageUpload())
        return Response(status: .noContent)
    }

    @Sendable func poster(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let (course, _) = try await stores.course(try context.id("courseID", "course"), for: user)
        guard let posterID = course.posterId, let image = try await stores.images.find(id: posterID) else {
            throw AppError.notFound("poster")
        }
        return image.response
    }

    @Sendable func roster(_ request: Request, context: AppRequestContext) async throws -> Roster {
        let user = try context.requireUser()
        let course = try await stores.managedCourse(try context.id("courseID", "course"), for: user)
        return Roster(students: try await stores.courses.roster(courseID: course.id, query: request.query("q")))
    }

    @Sendable func addStudent(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let course = try await stores.managedCourse(try context.id("courseID", "course"), for: user)
        let input = try await request.decodeJSON(as: AddStudent.self, context: context)
        let student: User?
        if let email = input.email.nonBlank {
            let email = try check { () throws(RuleViolation) in try AccountRules.email(email) }
            student = try await stores.users.find(email: email)
        } else if let number = input.studentNumber.nonBlank {
            let number = try check { () throws(RuleViolation) in try AccountRules.studentNumber(number) }
            student = try await stores.users.find(studentNumber: number)
        } else {
            throw AppError(.badRequest, "missing_field", "Give the student's email address or student number.")
        }
        guard let student else {
            throw AppError(
                .notFound, "student_not_found",
                "No student has that email address or number. Ask them to register first, or share the join code."
            )
        }
        guard student.role == .student else {
            throw AppError(
                .badRequest, "not_a_student",
                "\(student.name) has a \(student.role.rawValue) account, not a student account.")
        }
        let added = try await stores.courses.enroll(courseID: course.id, studentID: student.id)
        let entry = try await stores.courses.roster(courseID: course.id).first { $0.id == student.id }!
        return try StudentEnvelope(student: entry, added: added).response(
            from: request, context: context, status: added ? .created : .ok
        )
    }

    @Sendable func removeStudent(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let course = try await stores.managedCourse(try context.id("courseID", "course"), for: user)
        let studentID = try context.id("studentID", "student")
        guard try await stores.courses.unenroll(courseID: course.id, studentID: studentID) else {
            throw AppError(.notFound, "student_not_found", "That student is not on this course's roster.")
        }
        return Response(status: .noContent)
    }
}
