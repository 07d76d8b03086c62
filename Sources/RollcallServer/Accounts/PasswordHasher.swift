import HummingbirdBcrypt
import NIOPosix

/// bcrypt, run off the event loops because each hash takes a deliberate quarter second at the default cost.
struct PasswordHasher: Sendable {
    /// 12 in production; tests lower it so that a suite of sign-ins runs in seconds.
    let cost: UInt8
    /// A hash of nothing in particular, checked against when an address is unknown.
    let decoy: String

    init(cost: UInt8) {
        self.cost = cost
        self.decoy = Bcrypt.hash("no such account", cost: cost)
    }

    func hash(_ password: String) async throws -> String {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
