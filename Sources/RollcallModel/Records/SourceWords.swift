import RollcallCore
import RollcallWords

extension RecordSource {
    /// How a record came about, in the reader's words, for exports beside the code itself.
    package func pageText(in reader: Reader) -> String {
        switch self {
        case .qr: reader.say("Scanned the QR code")
        case .typed: reader.say("Typed the code")
        case .spot: reader.say("Checked in at the spot")
        case .api: reader.say("Checked in from the app")
        case .manual: reader.say("Marked by hand")
        case .closed: reader.say("Absent when the session closed")
        case .demo: reader.say("Demo data")
        }
    }
}

extension AttemptEnding {
    /// Why an attempt ended, in the reader's words, for exports beside the code itself.
    package func pageText(in reader: Reader) -> String {
        switch self {
        case .submitted: reader.say("Handed in")
        case .timeLimit: reader.say("Time ran out")
        case .endedByTeacher: reader.say("Ended by the teacher")
        case .quizStopped: reader.say("Quiz stopped")
        }
    }
}
