import Foundation
import HummingbirdBcrypt
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// bcrypt, run on threads of its own because each hash takes a deliberate tenth of a second or more.
///
/// Not on the event loops, which would stall every request they serve, and not on the shared `NIOThreadPool`, where
/// SQLite's statements run: a registration storm there queues the check-ins' reads behind the hashes. The threads
/// are as many as the cores, and yield to every other thread of the machine, so that a room checking in during a
/// storm of sign-ups still gets the processor first.
package struct PasswordHasher: Sendable {
    /// bcrypt's work factor, `Configuration.bcryptCost` in production; tests lower it so that a suite of sign-ins
    /// runs in seconds.
    package let cost: UInt8
    /// A hash of nothing in particular, checked against when an address is unknown.
    package let decoy: String
    private let pool: NIOThreadPool

    package init(cost: UInt8, pool: NIOThreadPool = PasswordHasher.pool) {
        self.cost = cost
        self.pool = pool
        self.decoy = Bcrypt.hash("no such account", cost: cost)
    }

    /// The process's hashing threads, one per core, started on first use and kept for the life of the process.
    package static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: System.coreCount)
        pool.start()
        return pool
    }()

    package func hash(_ password: String) async throws -> String {
        let cost = cost
        return try await pool.runIfActive {
            Self.yieldToRequests()
            return Bcrypt.hash(password, cost: cost)
        }
    }

    package func verify(_ password: String, hash: String) async throws -> Bool {
        try await pool.runIfActive {
            Self.yieldToRequests()
            return Bcrypt.verify(password, hash: hash)
        }
    }

    /// Puts the calling thread in Linux's idle class (`SCHED_IDLE`; for one thread alone, since a thread id of 0
    /// names the calling thread): it runs on whatever the request threads leave, and any of them that wakes takes
    /// the core at once, so that check-ins keep their latency while a storm of sign-ups waits its turn. Repeating it
    /// changes nothing.
    private static func yieldToRequests() {
        #if os(Linux)
            // SCHED_IDLE in <sched.h>, which Swift's Glibc module does not export.
            let idleClass: Int32 = 5
            var parameters = sched_param()
            _ = sched_setscheduler(0, idleClass, &parameters)
        #endif
    }
}
