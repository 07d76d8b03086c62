import Foundation
import Logging
import RollcallCore
import RollcallDelivery
import RollcallModel
import RollcallStorage
import RollcallWords
import SQLKit

/// What a linked course exchanges with its platform: the roster in (Names and Role Provisioning), the attendance
/// grades out (Assignment and Grade Services, queued in the outbox like mail).
struct CourseLinks: Sendable {
    let platforms: PlatformStore
    let linkedCourses: PlatformCourses
    let people: PlatformPeople
    let services: PlatformServices
    let courses: CourseStore
    let sessions: SessionStore
    let records: RecordStore
    let outbox: Outbox
    let logger: Logger
    /// The school's language (`ROLLCALL_DEFAULT_LANGUAGE`), for a course that names none.
    let language: String

    /// What a roster sync changed.
    struct SyncReport: Codable, Sendable, Equatable {
        var enrolled: Int
        var left: Int
        var updated: Int
        var staff: Int
        var members: Int
    }

    /// Brings the roster in line with the platform's course: active learners enrolled (with accounts made or found
    /// by platform and subject), those who are no longer active taken off the roster (their records stay), names and
    /// numbers brought up to date, instructors and assistants made staff.
    func sync(_ linked: LinkedCourse, platform: LearningPlatform, now: Date = Date()) async throws -> SyncReport {
        guard let url = linked.membershipsUrl else {
            throw AppError(
                .conflict, .ltiNotLinked,
                "\(platform.name) has not offered its roster service (Names and Role Provisioning) to Rollcall. Turn it on for the tool, then launch Rollcall again."
            )
        }
        var members: [LTI.Member]
        do {
            members = try await services.members(platform, url: url)
        } catch {
            logger.warning("the roster of \(platform.name) could not be read: \(error)")
            throw Self.unavailable(platform)
        }
        // Compared as Rollcall keeps them, so that a number the platform writes in lower case is no change.
        for index in members.indices {
            members[index].name = members[index].name.flatMap { try? AccountRules.name($0) }
            members[index].studentNumber = members[index].studentNumber.flatMap { try? AccountRules.studentNumber($0) }
        }
        let roster = try await linkedCourses.linkedStudents(linked)
        let change = LTI.rosterChange(roster: roster.map(\.student), members: members)
        guard let course = try await courses.find(id: linked.courseId) else {
            throw AppError(.notFound, .courseNotFound, "That course does not exist.")
        }
        for member in change.enrolled + change.updated {
            let user = try await people.account(
                platformID: platform.id, subject: member.userID,
                person: FederatedPerson(member: member, studentNumber: member.studentNumber), logger: logger, now: now)
            try await courses.roster.enroll(courseID: linked.courseId, studentID: user.id)
        }
        let ids = Dictionary(roster.map { ($0.student.userID, $0.userID) }, uniquingKeysWith: { first, _ in first })
        for subject in change.left {
            if let id = ids[subject] { _ = try await courses.roster.unenroll(courseID: linked.courseId, studentID: id) }
        }
        var staff = 0
        for member in members where member.active && (member.role == .teacher || member.role == .assistant) {
            let user = try await people.account(
                platformID: platform.id, subject: member.userID,
                person: FederatedPerson(member: member, studentNumber: nil), logger: logger, now: now)
            guard user.id != course.teacherId else { continue }
            if try await courses.setStaff(
                courseID: linked.courseId, userID: user.id, role: member.role == .teacher ? .teacher : .assistant)
            {
                staff += 1
            }
        }
        try await linkedCourses.synced(linkedCourseID: linked.id, at: now)
        return SyncReport(
            enrolled: change.enrolled.count, left: change.left.count, updated: change.updated.count, staff: staff,
            members: members.count)
    }

    /// The line item the course's grades go to: the one the platform named in the launch or deep link, the one
    /// Rollcall made before, or a new one.
    func lineItem(_ linked: LinkedCourse, platform: LearningPlatform) async throws -> String {
        if let url = linked.lineItemUrl { return url }
        let reader = Self.platformReader(for: try await courses.find(id: linked.courseId), school: language)
        guard let items = linked.lineItemsUrl else {
            throw AppError(
                .conflict, .ltiNotLinked,
                "\(platform.name) has not offered its gradebook service (Assignment and Grade Services) to Rollcall. Turn it on for the tool, then launch Rollcall again."
            )
        }
        let url: String
        do {
            url = try await services.lineItem(
                platform, linked: linked, lineItemsURL: items, label: reader.say("Attendance"))
        } catch {
            logger.warning("the line item at \(platform.name) could not be found or made: \(error)")
            throw Self.unavailable(platform)
        }
        try await linkedCourses.setLineItem(url, linkedCourseID: linked.id)
        return url
    }

    /// Queues every student's score: each student on the roster whom the platform knows, with the course grade
    /// (attendance, and quizzes where they count). A newer score replaces an older one still queued. Answers how
    /// many were queued.
    @discardableResult
    func queueGrades(_ linked: LinkedCourse, platform: LearningPlatform, now: Date = Date()) async throws -> Int {
        let lineItem = try await lineItem(linked, platform: platform)
        guard let course = try await courses.find(id: linked.courseId) else { return 0 }
        // The same words whoever asks: a teacher's "Send grades now" or the background round.
        let reader = Self.platformReader(for: course, school: language)
        let courseRecords = try await records.courseRecords(
            course, sessions: try await sessions.list(courseID: course.id), in: reader, now: now)
        let gradebook = try await records.gradebook(courseRecords)
        let students = courseRecords.students.filter(\.enrolled)
        let subjects = try await linkedCourses.subjects(platformID: platform.id, userIDs: students.map(\.id))
        var messages: [OutgoingMessage] = []
        for student in students {
            guard let subject = subjects[student.id] else { continue }
            let figures = gradebook.figures(studentID: student.id)
            let score = LTI.score(
                userID: subject, grade: figures.courseGrade, explanation: reader.say(figures.courseGradeExplanation),
                at: now)
            let body = ScoreCourier.Letter(
                platformId: platform.id, lineItem: lineItem, score: score, offered: linked.offeredScopes)
            messages.append(
                OutgoingMessage(
                    channel: .lti, recipient: subject, recipientName: student.name, subject: lineItem,
                    text: String(decoding: try JSONEncoder().encode(body), as: UTF8.self), html: nil,
                    replacesQueued: true))
        }
        guard !messages.isEmpty else { return 0 }
        let letters = messages
        try await outbox.send(composing: { _ in letters })
        return messages.count
    }

    /// Queues the grades of each linked course whose latest session ended since its grades were last queued; the
    /// mark moves once, whichever process sees it first.
    func gradeEndedSessions(now: Date = Date()) async throws {
        for (linked, ended) in try await linkedCourses.endedSinceGraded(now: now) {
            guard let platform = try await platforms.find(id: linked.platformId),
                linked.lineItemUrl != nil || linked.lineItemsUrl != nil,
                try await linkedCourses.claimGrading(linkedCourseID: linked.id, through: ended)
            else { continue }
            do {
                let queued = try await queueGrades(linked, platform: platform, now: now)
                logger.info("queued \(queued) scores for \(platform.name), course \(linked.courseId)")
            } catch {
                // Nothing was queued (the platform's line item could not be found or made): the mark goes back, so
                // that the next round tries again.
                try await linkedCourses.releaseGrading(
                    linkedCourseID: linked.id, through: ended, back: linked.gradedThrough)
                logger.warning("the scores for course \(linked.courseId) were not queued: \(error)")
            }
        }
    }

    /// Whom Rollcall speaks to at a course's platform: its gradebook, which every reader of the course shares. The
    /// course's language, as a letter about the course would be, else the school's; never that of whoever sends.
    static func platformReader(for course: Course?, school: String) -> Reader {
        Reader(Catalogs.shipped[course?.language ?? school])
    }

    static func unavailable(_ platform: LearningPlatform) -> AppError {
        AppError(
            .serviceUnavailable, .ltiPlatformUnavailable,
            "\(platform.name) does not answer just now. Try again in a few minutes.", retryAfter: 60)
    }
}

/// Posts a queued score to its platform's line item.
struct ScoreCourier: Courier {
    let platforms: PlatformStore
    let services: PlatformServices

    /// What an `lti` message of the outbox holds.
    struct Letter: Codable, Sendable {
        var platformId: Int64
        var lineItem: String
        var score: LTI.Score
        /// The gradebook scopes the course's launch offered; absent in scores queued before they were kept.
        var offered: [String]? = nil
    }

    func deliver(_ message: OutboxMessage) async throws {
        let letter: Letter
        do {
            letter = try JSONDecoder().decode(Letter.self, from: Data(message.body.utf8))
        } catch {
            throw DeliveryFailure(permanent: true, description: "the score is not readable: \(error)")
        }
        guard let platform = try await platforms.find(id: letter.platformId) else {
            throw DeliveryFailure(permanent: true, description: "the platform is no longer registered")
        }
        try await services.post(
            letter.score, lineItem: letter.lineItem, platform: platform, offered: letter.offered ?? [])
    }
}

extension Periodically {
    /// Queues the scores of linked courses whose sessions ended, and keeps this process's framing rule in step with
    /// the registrations, which another process may have changed.
    static func gradeReturn(
        _ stores: Stores, ready: SchemaReady, logger: Logger, interval: Duration = .seconds(10)
    ) -> Periodically {
        Periodically(name: "grade-return", interval: interval, ready: ready, logger: logger) {
            try await stores.platforms.allowFraming(stores.framing)
            try await stores.courseLinks.gradeEndedSessions()
        }
    }
}
