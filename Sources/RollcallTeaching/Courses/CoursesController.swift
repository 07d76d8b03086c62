import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallStorage
import RollcallWeb
import RollcallWords

/// Courses: creating and editing them, joining by code, and the roster.
struct CoursesController: Sendable {
    let courses: CourseStore
    let users: UserStore
    let images: ImageStore
    let access: AccessRule
    let counters: AttemptCounters
    /// The zone a new course takes when neither the request nor its teacher's profile names one: the school's
    /// (`ROLLCALL_DEFAULT_TIME_ZONE`), else the server's.
    var schoolTimeZone = CourseTimeZone.serverDefault

    /// Join attempts per student in 15 minutes: enough for every course of a term, too few to guess codes.
    static let joinLimit = RateLimit(limit: 20, window: 900)

    struct NewCourse: Decodable {
        var name: String
        var description: String?
        var plannedSessions: Int?
        /// The zone the teacher chose on the form, which shows their profile's or else their browser's.
        var timeZone: String?
        /// The language the course is taught in; the teacher's own when left out.
        var language: String?
    }
    struct CourseUpdate: Decodable {
        var name: String?
        var description: String?
        var plannedSessions: Int?
        var points: StatusPoints?
        var markAbsentOnClose: Bool?
        var absenteeThreshold: Int?
        var timeZone: String?
        var language: String?
        var gradeWeights: GradeWeights?
        var joinFromScan: Bool?
        var absenceNotices: Bool?
        /// Archive (`true`) or restore (`false`) the course.
        var archived: Bool?
        /// The check-in settings new sessions and timetable entries start from.
        var sessionDefaults: SessionSettingsDraft?
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
        /// After a change of zone: the timetabled sessions to come, moved to the same wall-clock time in the new zone.
        var rescheduledSessions: Int? = nil
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

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(CourseRoutes.courses, use: list)
        router.post(CourseRoutes.courses, use: create)
        router.post(CourseRoutes.join, use: join)
        router.get(CourseRoutes.course, use: show)
        router.patch(CourseRoutes.course, use: update)
        router.put(CourseRoutes.poster, use: uploadPoster)
        router.get(CourseRoutes.poster, use: poster)
        router.get(CourseRoutes.students, use: roster)
        router.post(CourseRoutes.students, use: addStudent)
        router.delete(CourseRoutes.student, use: removeStudent)
        router.post(CourseRoutes.joinCode, use: newJoinCode)
        router.post(CourseRoutes.leave, use: leave)
        router.put(CourseRoutes.absenceNotices, use: chooseAbsenceNotices)
        router.get(CourseRoutes.staff, use: staff)
        router.post(CourseRoutes.staff, use: addStaff)
        router.delete(CourseRoutes.staffMember, use: removeStaff)
    }

    struct StaffList: Codable, ResponseEncodable {
        var staff: [StaffMember]
    }
    struct NewStaff: Decodable {
        var email: String
        var role: String
    }
    struct StaffEnvelope: Codable, ResponseEncodable {
        var member: StaffMember
        /// `false` when they already had this role.
        var changed: Bool
    }

    @Sendable func staff(_ request: Request, context: AppRequestContext) async throws -> StaffList {
        let course = try await access.course(in: context, needing: .assist).0
        return StaffList(staff: try await courses.staff(courseID: course.id, in: context.reader))
    }

    /// Adds a co-teacher (a teacher's account) or a teaching assistant (anyone's), by email address.
    @Sendable func addStaff(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        guard try context.requireUser().mayReachPeople else { throw AppError.emailUnconfirmed }
        let input = try await request.decodeJSON(as: NewStaff.self, context: context)
        guard let role = StaffRole(rawValue: input.role) else {
            throw AppError(
                .badRequest, .invalidRole, "Choose teacher or assistant; “\(input.role)” is neither.")
        }
        let email = try check { () throws(RuleViolation) in try AccountRules.email(input.email) }
        guard let person = try await users.find(email: email) else {
            throw AppError(
                .notFound, .userNotFound, "Nobody has an account with that address. Ask them to register first.")
        }
        guard person.id != course.teacherId else {
            throw AppError.conflict(.alreadyTeacher, "\(person.name) is this course's own teacher.")
        }
        if role == .teacher && !person.mayTeach {
            throw AppError(
                .badRequest, .notATeacher,
                "\(person.name) has no approved teacher account: add them as an assistant instead.")
        }
        let changed = try await courses.setStaff(courseID: course.id, userID: person.id, role: role)
        let staff = try await courses.staff(courseID: course.id, in: context.reader)
        guard let member = staff.first(where: { $0.id == person.id }) else {
            throw NotStored(.staffNotFound, what: "staff member")
        }
        return try StaffEnvelope(member: member, changed: changed).response(
            from: request, context: context, status: changed ? .created : .ok)
    }

    @Sendable func removeStaff(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        guard
            try await courses.removeStaff(
                courseID: course.id, userID: try context.id("userID", .userNotFound, "user"), by: context.requireUser())
        else {
            throw AppError(.notFound, .staffNotFound, "That person does not teach or assist in this course.")
        }
        return Response(status: .noContent)
    }

    /// A new join code, for when the old one went round further than it should.
    @Sendable func newJoinCode(_ request: Request, context: AppRequestContext) async throws -> CourseEnvelope {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        let renewed = try await courses.newJoinCode(courseID: course.id)
        return CourseEnvelope(course: try CourseView(try await courses.summary(of: renewed), manages: true))
    }

    /// A student leaves the course; their records stay with it.
    @Sendable func leave(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireRole(.student, message: "Only students leave a course; a teacher archives it.")
        let course = try await access.course(in: context).0
        _ = try await courses.roster.unenroll(courseID: course.id, studentID: user.id, changing: false)
        return Response(status: .noContent)
    }

    /// A student's choice whether to get the course's weekly absence notes.
    struct AbsenceNoticeChoice: Codable, ResponseEncodable {
        var receive: Bool
    }

    @Sendable func chooseAbsenceNotices(_ request: Request, context: AppRequestContext) async throws
        -> AbsenceNoticeChoice
    {
        let user = try context.requireRole(
            .student, message: "Only students on the roster choose whether they get absence notes.")
        let (course, access) = try await self.access.course(in: context)
        guard access == .attend else {
            throw AppError.forbidden("Only students on the roster choose whether they get absence notes.")
        }
        let choice = try await request.decodeJSON(as: AbsenceNoticeChoice.self, context: context)
        try await courses.setAbsenceNotices(courseID: course.id, studentID: user.id, receive: choice.receive)
        return choice
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> CourseList {
        let user = try context.requireUser()
        let summaries = try await courses.list(for: user)
        return CourseList(
            courses: try summaries.map { try CourseView($0, manages: AccessRule.listed($0, for: user) == .manage) }
        )
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireRole(.teacher, .admin, message: "Only teachers can create courses.")
        guard user.mayTeach else {
            throw AppError(
                .forbidden, .approvalPending,
                "An admin has not approved your teacher account yet; you can create courses once they have."
            )
        }
        let input = try await request.decodeJSON(as: NewCourse.self, context: context)
        let name = try check { () throws(RuleViolation) in try AccountRules.name(input.name) }
        let description = try Self.description(input.description ?? "")
        let planned = try Self.plannedSessions(input.plannedSessions)
        let timeZone = try CourseTimeZone.forNewCourse(
            chosen: input.timeZone, teacher: user, school: schoolTimeZone)
        let language = try CourseLanguage.forNewCourse(chosen: input.language, reader: context.reader)
        let course = try await courses.create(
            teacherID: user.id, name: name, description: description, plannedSessions: planned, timeZone: timeZone,
            language: language)
        let view = try CourseView(CourseSummary(course: course, teacherName: user.name, studentCount: 0), manages: true)
        return try CourseEnvelope(course: view).response(from: request, context: context, status: .created)
    }

    static func description(_ raw: String) throws -> String {
        let text = try check { () throws(RuleViolation) in
            try TextRules.plain(
                raw.trimmingCharacters(in: .whitespacesAndNewlines), field: "description", multiline: true)
        }
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
        try await counters.admit(
            .join, key: String(user.id), under: Self.joinLimit,
            refusal: "Too many join codes tried. Wait a few minutes, and check the code with your teacher.")
        guard let code = JoinCode(typed: input.code) else {
            throw AppError(
                .badRequest, .invalidJoinCode,
                JoinCode.problem(with: input.code)
            )
        }
        guard let course = try await courses.find(joinCode: code) else {
            throw AppError(
                .notFound, .courseNotFound, "No course has the join code \(code). Check it with your teacher."
            )
        }
        guard course.archivedAt == nil else { throw AppError.courseArchived }
        let joined = try await courses.roster.enroll(courseID: course.id, studentID: user.id)
        return Joined(course: try CourseView(try await courses.summary(of: course), manages: false), joined: joined)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> CourseEnvelope {
        let (course, access) = try await self.access.course(in: context)
        return CourseEnvelope(course: try CourseView(try await courses.summary(of: course), manages: access == .manage))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> CourseEnvelope {
        let found = try await access.course(in: context, needing: .manage).0
        let input = try await request.decodeJSON(as: CourseUpdate.self, context: context)
        // Applied to the course as it stands when written, so that a change made meanwhile (an archive) is seen.
        let (course, moved) = try await courses.update(id: found.id) { course in try Self.apply(input, to: &course) }
        return CourseEnvelope(
            course: try CourseView(try await courses.summary(of: course), manages: true),
            rescheduledSessions: input.timeZone == nil ? nil : moved.count)
    }

    /// Applies what a course update asks, checking each field.
    static func apply(_ input: CourseUpdate, to course: inout Course) throws {
        // An archived course takes one change: being restored (with whatever else the same request sets).
        if input.archived != false { try AccessRule.requireActive(course) }
        if let name = input.name { course.name = try check { () throws(RuleViolation) in try AccountRules.name(name) } }
        if let description = input.description { course.description = try Self.description(description) }
        if let planned = input.plannedSessions { course.plannedSessions = try Self.plannedSessions(planned) }
        if let points = input.points {
            course.points = try check { () throws(RuleViolation) in try points.validated() }
        }
        if let mark = input.markAbsentOnClose { course.markAbsentOnClose = mark }
        if let join = input.joinFromScan { course.joinFromScan = join }
        // Turned on now, the first notices go out next Monday: a week already under way is not summed up at once.
        if let notices = input.absenceNotices, notices != (course.absenceNoticesSince != nil) {
            course.absenceNoticesSince = notices ? Date() : nil
        }
        if let archived = input.archived, archived != (course.archivedAt != nil) {
            course.archivedAt = archived ? Date() : nil
        }
        if let weights = input.gradeWeights {
            course.gradeWeights = try check { () throws(RuleViolation) in try weights.validated() }
        }
        if let timeZone = input.timeZone { course.timeZone = try CourseTimeZone.validated(timeZone) }
        if let language = input.language { course.language = try CourseLanguage.validated(language) }
        if let defaults = input.sessionDefaults {
            // Kept as given, so that what it leaves out stays the session's to choose; checked as a session would be.
            _ = try check { () throws(RuleViolation) in try defaults.validated() }
            try course.setDefaults(defaults)
        }
        if let threshold = input.absenteeThreshold {
            guard (0...100).contains(threshold) else {
                throw AppError.invalid(
                    RuleViolation(
                        field: "absenteeThreshold", message: "Give the absentee threshold as 0 to 100 percent.")
                )
            }
            course.absenteeThreshold = threshold
        }
    }

    @Sendable func uploadPoster(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        try await courses.setPoster(courseID: course.id, image: try await request.imageUpload())
        return Response(status: .noContent)
    }

    @Sendable func poster(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (course, _) = try await access.course(in: context)
        guard let posterID = course.posterId, let image = try await images.find(id: posterID) else {
            throw AppError.notFound(.posterNotFound, "poster")
        }
        return image.response
    }

    @Sendable func roster(_ request: Request, context: AppRequestContext) async throws -> Roster {
        let course = try await access.course(in: context, needing: .assist).0
        return Roster(
            students: try await courses.roster.list(
                courseID: course.id,
                query: try check { () throws(RuleViolation) in try TextRules.search(request.query("q")) },
                in: context.reader))
    }

    @Sendable func addStudent(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        guard try context.requireUser().mayReachPeople else { throw AppError.emailUnconfirmed }
        let input = try await request.decodeJSON(as: AddStudent.self, context: context)
        let student: User?
        if let email = input.email.nonBlank {
            let email = try check { () throws(RuleViolation) in try AccountRules.email(email) }
            student = try await users.find(email: email)
        } else if let number = input.studentNumber.nonBlank {
            let number = try check { () throws(RuleViolation) in try AccountRules.studentNumber(number) }
            student = try await users.directory.find(studentNumber: number)
        } else {
            throw AppError(.badRequest, .missingField, "Give the student's email address or student number.")
        }
        // Someone who is not a student is answered as nobody: a teacher learns no one's name or role from an address.
        guard let student, student.role == .student else {
            throw AppError(
                .notFound, .studentNotFound,
                "No student has that email address or number. Ask them to register first, or share the join code."
            )
        }
        let added = try await courses.roster.enroll(courseID: course.id, studentID: student.id)
        let entry = try await courses.roster.list(courseID: course.id, in: context.reader).first {
            $0.id == student.id
        }!
        return try StudentEnvelope(student: entry, added: added).response(
            from: request, context: context, status: added ? .created : .ok
        )
    }

    @Sendable func removeStudent(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        let studentID = try context.id("studentID", .studentNotFound, "student")
        guard try await courses.roster.unenroll(courseID: course.id, studentID: studentID) else {
            throw AppError(.notFound, .studentNotFound, "That student is not on this course's roster.")
        }
        return Response(status: .noContent)
    }
}
