import RollcallCore
import RollcallWords

extension RecordSource {
    /// How a record came about, in the reader's words, for exports beside the code itself.
    package var pageText: String {
        switch self {
        case .qr: say("Scanned the QR code")
        case .typed: say("Typed the code")
        case .spot: say("Checked in at the spot")
        case .api: say("Checked in from the app")
        case .manual: say("Marked by hand")
        case .closed: say("Absent when the session closed")
        case .demo: say("Demo data")
        }
    }
}

extension AttemptEnding {
    /// Why an attempt ended, in the reader's words, for exports beside the code itself.
    package var pageText: String {
        switch self {
        case .submitted: say("Handed in")
        case .timeLimit: say("Time ran out")
        case .endedByTeacher: say("Ended by the teacher")
        case .quizStopped: say("Quiz stopped")
        }
    }
}
