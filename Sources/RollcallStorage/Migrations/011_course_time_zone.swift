import Foundation

extension Migrations {
    package static let step011CourseTimeZone = Step(
        name: "011_course_time_zone",
        statements: [
            // The IANA zone a course's reports are written in; existing courses take the server's
            // (`CourseTimeZone.serverDefault`).
            "ALTER TABLE courses ADD COLUMN time_zone TEXT NOT NULL DEFAULT '\(TimeZone.current.identifier.replacingOccurrences(of: "'", with: "''"))'"
        ]
    )
}
