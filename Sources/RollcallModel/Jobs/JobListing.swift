import Foundation
import SQLKit

/// A job as the admin's page lists it: with the names of the course and the person it concerns.
package struct JobListing: Sendable, Equatable {
    package var job: Job
    package var courseName: String?
    package var personName: String?
}

extension JobQueue {
    /// The newest jobs of `kind` in one of `statuses`, at most `limit`.
    package func list(kind: String, statuses: [JobStatus], limit: Int = 50) async throws -> [JobListing] {
        guard !statuses.isEmpty else { return [] }
        return try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT jobs.*, courses.name AS course_name, users.name AS person_name FROM jobs
                LEFT JOIN courses ON courses.id = jobs.course_id LEFT JOIN users ON users.id = jobs.user_id
                WHERE jobs.kind = \(bind: kind) AND jobs.status IN (\(binds: statuses.map(\.rawValue)))
                ORDER BY jobs.id DESC LIMIT \(bind: limit)
                """
            ).all()
            return try rows.map { row in
                JobListing(
                    job: try row.decode(model: Job.self, with: .rollcall),
                    courseName: try row.decode(column: "course_name", as: String?.self),
                    personName: try row.decode(column: "person_name", as: String?.self))
            }
        }
    }
}
