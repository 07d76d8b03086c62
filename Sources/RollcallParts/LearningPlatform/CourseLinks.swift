import Foundation
import Logging
import RollcallCore
import RollcallDelivery
import RollcallModel
import RollcallStorage
import RollcallWords
import SQLKit

/// What a linked course exchanges with its platform: the roster in (Names and Role Provisioning), the attendance
/// grades out (Assignment and Grade Services, queued as jobs: `ScoreJob`).
package struct CourseLinks: Sendable {
    package let platforms: PlatformStore
    package let linkedCourses: PlatformCourses
    package let people: PlatformPeople
    package let services: PlatformServices
    package let courses: CourseStore
    package let sessions: SessionStore
    package let records: RecordStore
    package let jobs: JobQueue
    package let logger: Logger
    /// The school's language (`ROLLCALL_DEFAULT_LANGUAGE`), for a course that names none.
    package let language: String

    /// What a roster sync changed.
    package struct SyncReport: Codable, Sendable, Equatable {
        package var enrolled: Int
        package var left: Int
        package var updated: Int
        package var staff: Int
        package var members: Int
    }

    /// Brings the roster in line with the platform's course: active learners enrolled (with accounts made or found
    /// by platform and subject), those who are no longer active taken off the roster (their records stay), names and
    /// numbers brought up to date, instructors and assistants made staff.
    package func sync(_ linked: LinkedCourse, platform: LearningPlatform, now: Date = Date()) async throws -> SyncReport
    {
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
    package func lineItem(_ linked: LinkedCourse, platform: LearningPlatform) async throws -> String {
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
    /// (attendance, and quizzes where they count). A newer score replaces an older one still waiting. Answers how
    /// many were queued.
    @discardableResult
    package func queueGrades(_ linked: LinkedCourse, platform: LearningPlatform, now: Date = Date()) async throws -> Int
    {
        let lineItem = try await lineItem(linked, platform: platform)
        guard let course = try await courses.find(id: linked.courseId) else { return 0 }
        // The same words whoever asks: a teacher's "Send grades now" or the background round.
        let reader = Self.platformReader(for: course, school: language)
        let courseRecords = try await records.courseRecords(
            course, sessions: try await sessions.list(courseID: course.id), in: reader, now: now)
        let gradebook = try await records.gradebook(courseRecords)
        let students = courseRecords.students.filter(\.enrolled)
        let subjects = try await linkedCourses.subjects(platformID: platform.id, userIDs: students.map(\.id))
        var scores: [NewJob] = []
        for student in students {
            guard let subject = subjects[student.id] else { continue }
            let figures = gradebook.figures(studentID: student.id)
            let score = LTI.score(
                userID: subject, grade: figures.courseGrade, explanation: reader.say(figures.courseGradeExplanation),
                at: now)
            scores.append(
                try NewJob(
                    ScoreJob.self,
                    .init(platformId: platform.id, lineItem: lineItem, score: score, offered: linked.offeredScopes),
                    courseID: course.id, userID: student.id))
        }
        try await jobs.enqueue(scores, now: now)
        return scores.count
    }

    /// Queues the grades of each linked course whose latest session ended since its grades were last queued; the
    /// mark moves once, whichever process sees it first.
    package func gradeEndedSessions(now: Date = Date()) async throws {
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
    package static func platformReader(for course: Course?, school: String) -> Reader {
        Reader(Catalogs.shipped[course?.language ?? school])
    }

    package static func unavailable(_ platform: LearningPlatform) -> AppError {
        AppError(
            .serviceUnavailable, .ltiPlatformUnavailable,
            "\(platform.name) does not answer just now. Try again in a few minutes.", retryAfter: 60)
    }
}

extension Periodically {
    /// Queues the scores of linked courses whose sessions ended, and keeps this process's framing rule in step with
    /// the registrations, which another process may have changed.
    package static func gradeReturn(
        _ stores: Stores, ready: SchemaReady, logger: Logger, interval: Duration = .seconds(10)
    ) -> Periodically {
        Periodically(name: "grade-return", interval: interval, ready: ready, logger: logger) {
            try await stores.platforms.allowFraming(stores.framing)
            try await stores.courseLinks.gradeEndedSessions()
        }
    }
}
