import Logging
import ServiceLifecycle

/// Looks for due absence notices every few minutes in each process; the week's claim keeps them to one sending.
struct AbsenceNoticeSender: Service {
    let notices: AbsenceNotices
    var interval: Duration = .seconds(300)
    let ready: SchemaReady
    let logger: Logger

    func run() async throws {
        try await Periodically(name: "absence-notices", interval: interval, ready: ready, logger: logger) {
            for week in try await notices.sendDue() {
                logger.info(
                    "absence notices queued",
                    metadata: [
                        "course": "\(week.courseID)", "students": "\(week.students)", "teachers": "\(week.teachers)",
                    ])
            }
        }.run()
    }
}
