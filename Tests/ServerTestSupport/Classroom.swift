import Foundation
import HTTPTypes
import Testing

@testable import RollcallServer

/// A course with an open session and an enrolled student, ready for check-ins.
public struct Classroom: Sendable {
    public var teacher: Account
    public var student: Account
    public var courseID: Int64
    public var sessionID: Int64
    public static var here: [String: Any] { ["latitude": 52.0001, "longitude": 4.0, "accuracy": 8] }

    public init(teacher: Account, student: Account, courseID: Int64, sessionID: Int64) {
        self.teacher = teacher
        self.student = student
        self.courseID = courseID
        self.sessionID = sessionID
    }

    public static func open(
        _ api: API, settings: [String: Any] = [:], teacher: String = "Tess Teacher", student: String = "Cass Checkin"
    ) async throws -> Classroom {
        let (teacher, courseID, code) = try await api.teacherWithCourse(teacher)
        let student = try await api.register(student)
        _ = try await api.call(.post, "/api/v1/courses/join", as: student, json: ["code": code])
        let session = try await api.call(
            .post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: ["settings": settings]
        )
        #expect(session.status == .created, "\(session.text)")
        return Classroom(
            teacher: teacher, student: student, courseID: courseID, sessionID: session.int("session.id") ?? 0
        )
    }

    /// What the projector shows now, as the teacher's browser receives it.
    public func projector(_ api: API) async throws -> Reply {
        try await api.call(.get, "/api/v1/sessions/\(sessionID)/projector", as: teacher)
    }

    /// Scans the projected QR code's link and answers its ticket: signed out as a phone's browser does (redirected
    /// to the check-in page), or with `account`'s token as a native app does (the ticket in JSON).
    public func scan(_ api: API, as account: Account? = nil) async throws -> String {
        let url = try #require(try await projector(api).string("url"))
        let path = String(url[url.range(of: "/C/")!.lowerBound...])
        let reply = try await api.call(.get, path, as: account)
        guard account == nil else {
            #expect(reply.status == .ok, "\(reply.text)")
            return try #require(reply.string("ticket"))
        }
        #expect(reply.status == .found, "\(reply.text)")
        let location = try #require(reply.headers[.location])
        return String(location.dropFirst("/check-in/".count))
    }
}

extension Classroom {
    /// Registers another student and enrols them with the course's join code.
    public func enrol(_ api: API, _ name: String) async throws -> Account {
        let course = try await api.call(.get, "/api/v1/courses/\(courseID)", as: teacher)
        let student = try await api.register(name)
        let joined = try await api.call(
            .post, "/api/v1/courses/join", as: student, json: ["code": course.string("course.joinCode") ?? ""])
        #expect(joined.status == .ok || joined.status == .created, "\(joined.text)")
        return student
    }

    /// A student scans the projected code and checks in with the ticket, as the check-in page does.
    @discardableResult
    public func checkIn(_ api: API, _ student: Account, device: String? = nil) async throws -> Reply {
        var body: [String: Any] = ["ticket": try await scan(api, as: student)]
        if let device { body["deviceId"] = device }
        return try await api.call(.post, "/api/v1/check-ins", as: student, json: body)
    }
}
