import Foundation

/// One piece of background work as stored: its kind and key, its payload, and where it stands.
package struct Job: Codable, Sendable, Equatable {
    package var id: Int64
    /// The `JobKind.name` of its kind.
    package var kind: String
    package var key: String
    /// The kind's payload, as JSON.
    package var payload: String
    package var status: JobStatus
    package var attempts: Int
    package var lastError: String?
    package var nextAttemptAt: Date?
    package var claimedUntil: Date?
    /// The course and the person the job concerns, where it concerns one.
    package var courseId: Int64?
    package var userId: Int64?
    package var createdAt: Date
    package var updatedAt: Date
}

/// Where a job stands.
package enum JobStatus: String, Codable, Sendable, CaseIterable {
    /// Waiting for its first attempt or its next one.
    case pending
    /// Claimed by a process until `claimedUntil`; a claim that ran out is taken again.
    case running
    case done
    /// Refused for good, or out of attempts.
    case failed
    /// Failed while a newer job of its key was waiting, which does its work instead.
    case superseded

    /// The statuses of a job whose work is still to do.
    package static let open: [JobStatus] = [.pending, .running]
}

/// A kind of job: the name its rows carry, the payload each holds, and the key that orders and replaces them.
package protocol JobKind: Sendable {
    associatedtype Payload: Codable & Sendable

    /// The `kind` of its rows; never changed once jobs were stored under it.
    static var name: String { get }

    /// The job's key: a newer job with the same key takes the place of one still waiting, and jobs of one key run one
    /// at a time, oldest first.
    static func key(_ payload: Payload) -> String
}

/// A job to queue: its kind's name, its key and its payload, encoded from the kind's typed payload.
package struct NewJob: Sendable, Equatable {
    package var kind: String
    package var key: String
    package var payload: String
    package var courseID: Int64?
    package var userID: Int64?

    package init<Kind: JobKind>(
        _ kind: Kind.Type, _ payload: Kind.Payload, courseID: Int64? = nil, userID: Int64? = nil
    )
        throws
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        self.kind = Kind.name
        key = Kind.key(payload)
        self.payload = String(decoding: try encoder.encode(payload), as: UTF8.self)
        self.courseID = courseID
        self.userID = userID
    }
}

/// Does the work of one kind of job: a POST to a platform, for a score.
package protocol JobCourier: Sendable {
    associatedtype Kind: JobKind

    /// Does the work of `payload` or throws; a `DeliveryFailure` that is permanent is not tried again.
    func perform(_ payload: Kind.Payload, job: Job) async throws
}

extension JobCourier {
    /// The kind whose jobs this courier takes.
    package var kindName: String { Kind.name }

    /// Reads the job's payload as its kind's and does its work; a payload that cannot be read never will be.
    package func perform(_ job: Job) async throws {
        let payload: Kind.Payload
        do {
            payload = try JSONDecoder().decode(Kind.Payload.self, from: Data(job.payload.utf8))
        } catch {
            throw DeliveryFailure(permanent: true, description: "the \(job.kind) job is not readable: \(error)")
        }
        try await perform(payload, job: job)
    }
}

extension NewJob {
    /// A job whose payload is JSON already, as its kind writes it.
    package init(kind: String, key: String, payload: String, courseID: Int64? = nil, userID: Int64? = nil) {
        self.kind = kind
        self.key = key
        self.payload = payload
        self.courseID = courseID
        self.userID = userID
    }
}
