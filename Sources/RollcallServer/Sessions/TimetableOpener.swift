import Logging
import ServiceLifecycle

/// Opens timetabled sessions on time, checking every `interval`; the conditional update in `openDue` opens each
/// session once however many processes look.
struct TimetableOpener: Service {
    let timetable: TimetableStore
    var interval: Duration = .seconds(10)
    let ready: SchemaReady
    let logger: Logger

    func run() async throws {
        try await Periodically(name: "timetable-opener", interval: interval, ready: ready, logger: logger) {
            try await timetable.openDue()
        }.run()
    }
}
