import Logging
import RollcallStorage

extension Periodically {
    /// Looks for due absence notices every few minutes in each process; the week's claim keeps them to one sending.
    package static func absenceNoticeSender(
        _ notices: AbsenceNotices, ready: SchemaReady, logger: Logger, interval: Duration = .seconds(300)
    ) -> Periodically {
        Periodically(name: "absence-notices", interval: interval, ready: ready, logger: logger) {
            for week in try await notices.sendDue() {
                logger.info(
                    "absence notices queued",
                    metadata: [
                        "course": "\(week.courseID)", "students": "\(week.students)", "teachers": "\(week.teachers)",
                    ])
            }
        }
    }
}
