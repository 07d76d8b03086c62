import Foundation
import Hummingbird
import RollcallCore

/// The web pages people use; every form on them posts to the JSON API through `app.js`.
struct PagesController: Sendable {
    let stores: Stores
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/", use: home)
        router.get("sign-in", use: signIn)
        router.get("register", use: register)
        router.get("verify-email", use: verifyEmail)
        router.get("courses", use: courses)
        router.get("courses/:courseID", use: course)
        router.get("sessions/:sessionID", use: session)
        router.get("profile", use: profile)
        router.get("admin", use: admin)
    }

    @Sendable func home(_ request: Request, context: AppRequestContext) async throws -> Response {
        .redirect(to: context.user == nil ? "/sign-in" : "/courses")
    }

    /// Where to go after signing in or registering: a path on this site only, so the link cannot send people away.
    static func next(_ request: Request) -> String {
        request.query("next").flatMap { $0.hasPrefix("/") && !$0.hasPrefix("//") && !$0.hasPrefix("/\\") ? $0 : nil }
            ?? "/courses"
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = Self.next(request)
        return try pages.render(
            "sign-in", title: "Sign in · Rollcall",
            data: ["next": next, "nextQuery": next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""],
            context: context
        )
    }

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = Self.next(request)
        return try pages.render(
            "register", title: "Create your account · Rollcall",
            data: [
                "next": next, "nextQuery": next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "",
                "email": request.query("email") ?? "",
            ],
            context: context
        )
    }

    @Sendable func verifyEmail(_ request: Request, context: AppRequestContext) async throws -> Response {
        try pages.render(
            "verify-email", title: "Confirm your email · Rollcall", data: ["token": request.query("token") ?? ""],
            context: context
        )
    }

    @Sendable func courses(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let summaries = try await stores.courses.list(for: user)
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
        let (course, access) = try await stores.course(try context.id("courseID", "course"), for: user)
        let sessions = try await stores.sessions.list(courseID: course.id)
        let counts = try await stores.sessions.attendanceCounts(courseID: course.id)
        let records = try await RecordPages(stores: stores, pages: pages).courseData(
            course, access: access, user: user, sessions: sessions)
        let myStatuses = records["myStatuses"] as? [Int64: String] ?? [:]
        let now = Date()
        let verification = try await stores.passkeys.policy(courseID: course.id)
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
            let query = request.query("q")
            let roster = try await stores.courses.roster(courseID: course.id, query: query)
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
        }
        return try pages.render("course", title: "\(course.name) · Rollcall", data: data, context: context)
    }

    @Sendable func session(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let session = try await stores.sessions.find(id: try context.id("sessionID", "session")) else {
            throw AppError.notFound("session")
        }
        let (course, access) = try await stores.course(session.courseId, for: user)
        let counts = try await stores.sessions.attendanceCounts(courseID: course.id)[session.id] ?? [:]
        let phase = session.phase(at: Date())
        let settings = session.settings
        var facts: [[String: String]] = [
            ["label": "Check-in", "value": settings.mode.pageText],
            ["label": "Open for", "value": "\(settings.openMinutes) minutes"],
            ["label": "Late after", "value": settings.lateAfterMinutes.map { "\($0) minutes" } ?? "never"],
        ]
        if settings.mode != .spot {
            facts.append(["label": "Code changes every", "value": "\(settings.period) s (grace \(settings.grace))"])
        }
        if let fence = settings.geofence {
            facts.append([
                "label": "Location",
                "value": String(
                    format: "within %.0f m of %.5f, %.5f", fence.radius, fence.center.latitude, fence.center.longitude),
            ])
        }
        if !settings.allowedNetworks.isEmpty {
            facts.append([
                "label": "Networks", "value": settings.allowedNetworks.map(\.description).joined(separator: ", "),
            ])
        }
        let flags: [[String: String]] =
            access == .manage
            ? try await stores.checkIns.flags(sessionID: session.id).map { flag in
                ["detail": flag.detail, "when": flag.createdAt.pageText]
            } : []
        let verifications = access == .manage ? try await stores.passkeys.verifications(sessionID: session.id) : []
        var data: [String: Any] = [
            "verifications": verifications.map(\.pageRow), "hasVerifications": !verifications.isEmpty,
            "id": session.id, "title": session.title, "courseId": course.id, "courseName": course.name,
            "phase": phase.rawValue, "isOpen": phase == .open, "isScheduled": phase == .scheduled,
            "manage": access == .manage, "facts": facts, "flags": flags, "hasFlags": !flags.isEmpty,
            "projector": access == .manage && phase == .open && settings.mode != .spot,
            "opened": session.openedAt?.pageText ?? "", "closes": session.closesAt?.pageText ?? "",
            "present": counts[.present] ?? 0, "late": counts[.late] ?? 0,
        ]
        if access == .manage {
            data.merge(RecordPages.auditData(try await stores.records.audit(sessionID: session.id))) { $1 }
            let room = try await stores.rooms.room(sessionID: session.id, courseID: course.id)
            data["room"] = RoomPage.data(room, phase: phase)
        }
        return try pages.render("session", title: "\(session.title) · Rollcall", data: data, context: context)
    }

    @Sendable func profile(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let data: [String: Any] = [
            "id": user.id, "name": user.name, "email": user.email, "phone": user.phone ?? "", "about": user.about,
            "role": user.role.rawValue, "studentNumber": user.studentNumber ?? "", "hasPicture": user.pictureId != nil,
            "verified": user.emailVerifiedAt != nil,
        ]
        return try pages.render("profile", title: "Your profile · Rollcall", data: data, context: context)
    }

    @Sendable func admin(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try AdminController.requireAdmin(context)
        let query = request.query("q")
        let users = try await stores.users.list(query: query, role: nil)
        let rows: [[String: Any]] = users.map { user in
            [
                "id": user.id, "name": user.name, "email": user.email, "role": user.role.rawValue,
                "pending": user.role == .teacher && !user.approved, "disabled": user.disabled,
                "self": user.id == context.user?.id,
            ]
        }
        let messages: [[String: Any]] = try await stores.outbox.list(limit: 30).map { message in
            [
                "recipient": message.recipient, "subject": message.subject, "body": message.body,
                "when": message.createdAt.pageText, "channel": message.channel,
            ]
        }
        return try pages.render(
            "admin", title: "Admin · Rollcall",
            data: ["users": rows, "q": query ?? "", "messages": messages, "noMessages": messages.isEmpty],
            context: context
        )
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
