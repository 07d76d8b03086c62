import Foundation
import HTTPTypes
import RollcallCore
import Testing

@testable import RollcallServer

/// Who is asking, relative to course C of teacher T.
enum Asker: String, CaseIterable, Sendable {
    case anonymous, otherStudent, otherTeacher, student, teacher, admin
}

@Suite("Authorization")
struct AuthorizationMatrixTests {
    /// One route and the askers allowed to use it; everyone else is refused (401 anonymous, 403 signed in).
    struct Rule {
        var method: HTTPRequest.Method
        var path: String
        var body: Any?
        var raw: [UInt8]?
        var allowed: Set<Asker>
    }

    @Test func every_route_admits_exactly_the_people_it_should() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let (teacher, course, code) = try await api.teacherWithCourse("Tina Teacher")
            let (otherTeacher, otherCourse, otherCode) = try await api.teacherWithCourse("Otto Other")
            let student = try await api.register("Sara Student")
            let otherStudent = try await api.register("Oscar Outsider")
            let extra = try await api.register("Ezra Extra")
            _ = try await api.call(.post, "/api/v1/courses/join", as: student, json: ["code": code])
            _ = try await api.call(.post, "/api/v1/courses/join", as: otherStudent, json: ["code": otherCode])
            let session = try await api.call(.post, "/api/v1/courses/\(course)/sessions", as: teacher, json: [:])
                .int("session.id")!
            let scheduled = try await api.call(
                .post, "/api/v1/courses/\(course)/sessions", as: teacher,
                json: ["scheduledAt": ISO8601DateFormatter().string(from: Date().addingTimeInterval(7200))]
            ).int("session.id")!
            #expect(otherCourse != course)
            let accounts: [Asker: Account] = [
                .admin: admin, .teacher: teacher, .otherTeacher: otherTeacher, .student: student,
                .otherStudent: otherStudent,
            ]
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]
            let signedIn = Set(Asker.allCases).subtracting([.anonymous])
            let managers: Set<Asker> = [.teacher, .admin]
            let members: Set<Asker> = [.teacher, .admin, .student]
            let rules: [Rule] = [
                Rule(method: .get, path: "/api/v1/me", allowed: signedIn),
                Rule(method: .patch, path: "/api/v1/me", body: ["about": "hi"], allowed: signedIn),
                Rule(
                    method: .put, path: "/api/v1/me/password",
                    body: ["currentPassword": "wrong one!", "newPassword": "whatever12"], allowed: signedIn
                ),
                Rule(method: .put, path: "/api/v1/me/picture", raw: png, allowed: signedIn),
                Rule(method: .get, path: "/api/v1/users/\(teacher.id)/picture", allowed: signedIn),
                Rule(method: .post, path: "/api/v1/auth/resend-verification", allowed: signedIn),
                Rule(method: .get, path: "/api/v1/courses", allowed: signedIn),
                Rule(
                    method: .post, path: "/api/v1/courses", body: ["name": "New"],
                    allowed: [.teacher, .otherTeacher, .admin]),
                Rule(method: .get, path: "/api/v1/courses/\(course)", allowed: members),
                Rule(
                    method: .patch, path: "/api/v1/courses/\(course)", body: ["plannedSessions": 10], allowed: managers),
                Rule(method: .put, path: "/api/v1/courses/\(course)/poster", raw: png, allowed: managers),
                Rule(method: .get, path: "/api/v1/courses/\(course)/poster", allowed: members),
                Rule(method: .get, path: "/api/v1/courses/\(course)/students", allowed: managers),
                Rule(
                    method: .post, path: "/api/v1/courses/\(course)/students", body: ["email": extra.email],
                    allowed: managers
                ),
                Rule(method: .delete, path: "/api/v1/courses/\(course)/students/\(extra.id)", allowed: managers),
                Rule(method: .get, path: "/api/v1/courses/\(course)/sessions", allowed: members),
                Rule(method: .post, path: "/api/v1/courses/\(course)/sessions", body: [:], allowed: managers),
                Rule(method: .get, path: "/api/v1/sessions/\(session)", allowed: members),
                Rule(method: .post, path: "/api/v1/sessions/\(scheduled)/open", allowed: managers),
                Rule(method: .get, path: "/api/v1/sessions/\(session)/live", allowed: managers),
                Rule(method: .get, path: "/api/v1/sessions/\(session)/projector", allowed: managers),
                Rule(method: .post, path: "/api/v1/sessions/\(session)/close", allowed: managers),
                Rule(method: .get, path: "/api/v1/admin/users", allowed: [.admin]),
                Rule(method: .post, path: "/api/v1/admin/users/\(extra.id)/approve", allowed: [.admin]),
                Rule(method: .post, path: "/api/v1/admin/users/\(extra.id)/disable", allowed: [.admin]),
                Rule(method: .post, path: "/api/v1/admin/users/\(extra.id)/enable", allowed: [.admin]),
                Rule(method: .get, path: "/api/v1/admin/outbox", allowed: [.admin]),
                Rule(method: .get, path: "/api/v1/passkeys", allowed: signedIn),
                Rule(method: .post, path: "/api/v1/passkeys/options", allowed: signedIn),
                Rule(method: .get, path: "/api/v1/courses/\(course)/verification", allowed: members),
                Rule(method: .get, path: "/api/v1/sessions/\(session)/verifications", allowed: managers),
                Rule(
                    method: .put, path: "/api/v1/courses/\(course)/verification", body: ["required": false],
                    allowed: managers),
                Rule(
                    method: .post, path: "/api/v1/check-ins/passkey-options", body: ["sessionId": session],
                    allowed: [.student, .otherStudent]),
                // Last: joining changes who is enrolled.
                Rule(
                    method: .post, path: "/api/v1/courses/join", body: ["code": code],
                    allowed: [.student, .otherStudent]
                ),
            ]
            // Refused askers first, so that an allowed change (closing, removing) cannot hide a refusal.
            let order: [Asker] = [.anonymous, .otherStudent, .otherTeacher, .student, .teacher, .admin]
            for rule in rules {
                for asker in order.filter({ !rule.allowed.contains($0) }) + order.filter({ rule.allowed.contains($0) })
                {
                    let reply = try await api.call(
                        rule.method, rule.path, as: accounts[asker], json: rule.body, raw: rule.raw,
                        contentType: rule.raw == nil ? nil : "image/png"
                    )
                    let what = "\(rule.method) \(rule.path) as \(asker.rawValue): \(reply.status.code) \(reply.text)"
                    if rule.allowed.contains(asker) {
                        #expect(![.unauthorized, .forbidden].contains(reply.status), "\(what)")
                        #expect(reply.status.code < 500, "\(what)")
                    } else {
                        #expect(reply.status == (asker == .anonymous ? .unauthorized : .forbidden), "\(what)")
                    }
                }
            }
        }
    }
}
