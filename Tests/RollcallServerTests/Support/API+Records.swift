import Foundation
import HTTPTypes
import RollcallCore
import SQLiteNIO
import ServerTestSupport
import Testing

@testable import RollcallServer

extension API {
    /// A session of the course opened and closed at once, so that it counts in every figure.
    func pastSession(_ room: Classroom, title: String) async throws -> Int64 {
        let created = try await call(
            .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: ["title": title])
        let id = try #require(created.int("session.id"))
        let closed = try await call(.post, "/api/v1/sessions/\(id)/close", as: room.teacher)
        #expect(closed.status == .ok, "\(closed.text)")
        return id
    }

    /// Sets a student's status by hand, as the teacher's page does.
    @discardableResult
    func mark(
        _ room: Classroom, session: Int64, student: Int64, _ status: String, reason: String? = nil
    ) async throws -> Reply {
        var body: [String: Any] = ["status": status]
        if let reason { body["reason"] = reason }
        return try await call(
            .put, "/api/v1/sessions/\(session)/attendance/\(student)", as: room.teacher, json: body)
    }

    /// The attendance rows of a session as the database holds them: student id → (status, source).
    func attendanceRows(session: Int64) async throws -> [Int64: (String, String)] {
        let connection = try await SQLiteConnection.open(storage: .file(path: databasePath))
        do {
            let rows = try await connection.query(
                "SELECT student_id, status, source FROM attendance WHERE session_id = ?", [.integer(Int(session))])
            try await connection.close()
            var result: [Int64: (String, String)] = [:]
            for row in rows {
                result[Int64(row.column("student_id")!.integer!)] = (
                    row.column("status")!.string!, row.column("source")!.string!
                )
            }
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The text of a CSV download, without its byte-order mark, read back into rows.
    func csv(_ path: String, as account: Account) async throws -> [[String]] {
        let reply = try await call(.get, path, as: account)
        #expect(reply.status == .ok, "\(reply.text)")
        #expect(reply.headers[.contentType] == "text/csv; charset=utf-8")
        #expect(reply.headers[.contentDisposition]?.hasPrefix("attachment; filename=") == true)
        return try CSV.parse(reply.text).map(\.fields)
    }
}
