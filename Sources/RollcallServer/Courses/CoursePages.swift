import Foundation
import Hummingbird
import RollcallCore

/// The pages of courses: the course list and a course's page, for its teacher and for its students.
struct CoursePages: Sendable {
    let courses: CourseStore
    let sessions: SessionStore
    let passkeys: PasskeyStore
    let records: RecordStore
    let access: AccessRule
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(CourseRoutes.coursesPage, use: list)
        router.get(CourseRoutes.coursePage, use: course)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let summaries = try await courses.list(for: user)
        let cards: [[String: Any]] = summaries.map { summary in
            [
                "id": summary.course.id, "name": summary.course.name, "teacher": summary.teacherName,
                "students": summary.studentCount, "description": summary.course.description,
            ]
        }
        return try pages.render(
            "courses", title: "Courses · Rollcall",
            data: [
                "courses": cards, "empty": cards.isEmpty, "teaches": user.role != .student,
                "mayTeach": user.mayTeach, "isStudent": user.role == .student,
                "unverified": user.emailVerifiedAt == nil,
            ],
            context: context
        )
    }

    @Sendable func course(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let (course, access) = try await self.access.course(in: context)
        let sessions = try await self.sessions.list(courseID: course.id)
        let counts = try await self.sessions.attendanceCounts(courseID: course.id)
        let records = try await recordsData(
            course, access: access, user: user, sessions: sessions)
        let myStatuses = records["myStatuses"] as? [Int64: String] ?? [:]
        let now = Date()
        let verification = try await passkeys.policy(courseID: course.id)
        let sessionRows: [[String: Any]] = sessions.map { session in
            let count = counts[session.id] ?? [:]
            let open = session.phase(at: now) == .open
            return [
                "id": session.id, "title": session.title, "phase": session.phase(at: now).rawValue,
                "myStatus": myStatuses[session.id] ?? "",
                "when": (session.openedAt ?? session.scheduledAt ?? session.createdAt).pageText,
                "present": (count[.present] ?? 0) + (count[.late] ?? 0),
                "studentView": access == .attend, "open": open,
                "spot": open && session.settings.mode == .spot, "typed": open && session.settings.allowTyping,
                "scan": open && session.settings.mode == .qr, "passkey": verification.required,
            ]
        }
        var data: [String: Any] = [
            "id": course.id, "courseId": course.id, "name": course.name, "description": course.description,
            "sessions": sessionRows, "noSessions": sessions.isEmpty, "hasPoster": course.posterId != nil,
            "plannedSessions": course.plannedSessions.map(String.init) ?? "",
        ]
        data.merge(records) { $1 }
        if access == .manage {
            data.merge(try await teacherData(course, query: request.query("q"), verification: verification)) { $1 }
        }
        return try pages.render("course", title: "\(course.name) · Rollcall", data: data, context: context)
    }

    /// What only the course's teacher sees: the join code, the roster (searched with `query`) and the settings.
    private func teacherData(_ course: Course, query: String?, verification: CourseVerification) async throws
        -> [String: Any]
    {
        var data: [String: Any] = [:]
        let roster = try await courses.roster(courseID: course.id, query: query)
        data["manage"] = true
        data["joinCode"] = course.joinCode
        data["q"] = query ?? ""
        data["roster"] = roster.map { entry in
            [
                "id": entry.id, "name": entry.name, "email": entry.email,
                "studentNumber": entry.studentNumber ?? "", "joined": entry.joinedAt.pageText,
            ] as [String: Any]
        }
        data["rosterEmpty"] = roster.isEmpty
        data["rosterCount"] = roster.count
        data["sizes"] = ClassroomSize.allCases.map { ["value": $0.rawValue, "radius": Int($0.radius)] }
        data["verificationRequired"] = verification.required
        data["reuseChoices"] = CourseVerification.reuseChoices(selected: verification.reuseSeconds)
        return data
    }

    /// The course page's records: the student's own figures, or the teacher's absentee list and settings.
    func recordsData(_ course: Course, access: CourseAccess, user: User, sessions: [ClassSession]) async throws
        -> [String: Any]
    {
        let records = try await self.records.courseRecords(course, sessions: sessions)
        guard access == .manage else {
            var mine = RecordPages.summaryData(records.summary(studentID: user.id))
            mine["studentId"] = user.id
            mine["courseId"] = course.id
            let statuses = Dictionary(
                uniqueKeysWithValues: records.sessions.compactMap { session in
                    records.countedStatus(session: session, studentID: user.id).map { (session.id, $0.rawValue) }
                })
            return ["myAttendance": mine, "myStatuses": statuses]
        }
        let absentees: [[String: Any]] = records.absentees(below: Double(course.absenteeThreshold)).map {
            student, summary in
            [
                "id": student.id, "courseId": course.id, "name": student.name,
                "percentText": "\(Int((summary.percentage ?? 0).rounded()))%",
                "absent": summary.counts[.absent] ?? 0, "sessions": summary.sessions,
            ]
        }
        let invitations = try await courses.invitations(courseID: course.id)
        return [
            "absentees": absentees, "noAbsentees": absentees.isEmpty, "absenteeThreshold": course.absenteeThreshold,
            "points": [
                "present": course.pointsPresent, "late": course.pointsLate, "excused": course.pointsExcused,
                "absent": course.pointsAbsent,
            ],
            "markAbsentOnClose": course.markAbsentOnClose,
            "invitations": invitations.map { ["name": $0.name, "email": $0.email] },
            "hasInvitations": !invitations.isEmpty,
        ]
    }
}

extension Date {
    /// A short date and time for pages, in the server's time zone.
    var pageText: String { formatted(.dateTime.day().month(.abbreviated).year().hour().minute()) }
}

extension CheckInMode {
    var pageText: String {
        switch self {
        case .qr: "QR code on the projector"
        case .spot: "Check-in spot (location only)"
        case .typed: "Typed code"
        }
    }
}
