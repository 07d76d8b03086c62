import NIOConcurrencyHelpers

/// Wrong typed codes per student and session. Six digits can be guessed, so each student gets a few tries per
/// session; after that only the QR code (or the teacher) checks them in. Counted per process.
final class TypedCodeAttempts: Sendable {
    static let limit = 10

    private struct Key: Hashable {
        var session: Int64
        var student: Int64
    }

    private let wrong = NIOLockedValueBox<[Key: Int]>([:])

    func exhausted(session: Int64, student: Int64) -> Bool {
        wrong.withLockedValue { $0[Key(session: session, student: student), default: 0] >= Self.limit }
    }

    func recordWrong(session: Int64, student: Int64) {
        wrong.withLockedValue { $0[Key(session: session, student: student), default: 0] += 1 }
    }
}
