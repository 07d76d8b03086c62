import Logging
import RollcallModel
import RollcallStorage

extension Periodically {
    /// Opens timetabled sessions on time, checking every `interval`; the conditional update in `openDue` opens each
    /// session once however many processes look.
    package static func timetableOpener(
        _ timetable: TimetableStore, ready: SchemaReady, logger: Logger, interval: Duration = .seconds(10)
    ) -> Periodically {
        Periodically(name: "timetable-opener", interval: interval, ready: ready, logger: logger) {
            try await timetable.openDue()
        }
    }
}
