import Crypto
import Foundation
import Hummingbird
import RollcallCore
import RollcallProtocol
import RollcallStorage
import SQLKit

/// A browser remembered after a texted-code sign-in, so that the phone is not asked for a code again for 30 days.
package struct RememberedDevice: Codable, Sendable, Equatable {
    package var id: Int64
    package var userId: Int64
    /// The confirmed number the code went to; the device stops working when the person's number changes.
    package var phone: String
    /// The browser and system, as the Devices page shows them.
    package var name: String
    package var createdAt: Date
    package var lastUsedAt: Date?
    package var expiresAt: Date
}

/// Remembered browsers: the cookie holds a random secret and its HMAC under a server key, so a made-up or altered
/// cookie is refused before the database is asked; the database keeps only the secret's digest, so forgetting a
/// device (deleting its row) ends it at once, with every session it started.
package struct RememberedDevices: Sendable {
    package let database: Database
    package let keys: ServerKeys
    package let tokens: AccessTokenStore

    package init(database: Database, keys: ServerKeys, tokens: AccessTokenStore) {
        self.database = database
        self.keys = keys
        self.tokens = tokens
    }

    package static let lifetime: TimeInterval = 30 * 24 * 3600
    package static let cookieName = "rollcall_device"

    /// Remembers this browser for `userID` at `phone`; answers the device and the cookie value, shown only once.
    package func remember(userID: Int64, phone: String, name: String, now: Date = Date()) async throws -> (
        device: RememberedDevice, cookie: String
    ) {
        let secret = OpaqueToken.make()
        let cookie = "\(secret).\(try await signature(of: secret))"
        let name = String(name.prefix(80))
        let expires = now.addingTimeInterval(Self.lifetime)
        let id = try await database.write { sql in
            try await sql.insert(into: "remembered_devices")
                .columns("user_id", "token_hash", "phone", "name", "created_at", "expires_at")
                .values(
                    SQLBind(userID), SQLBind(OpaqueToken.digest(secret)), SQLBind(phone), SQLBind(name), SQLBind(now),
                    SQLBind(expires)
                )
                .returning("id").first(decodingColumn: "id", as: Int64.self)
        }
        guard let id else { throw NotStored(.rememberedDeviceNotFound, what: "remembered device") }
        let device = RememberedDevice(
            id: id, userId: userID, phone: phone, name: name, createdAt: now, lastUsedAt: nil, expiresAt: expires)
        return (device, cookie)
    }

    /// The unexpired device a cookie stands for, if its signature holds and it was not forgotten.
    package func device(cookie: String, now: Date = Date()) async throws -> RememberedDevice? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 43, parts[1].count == 43 else { return nil }
        let secret = String(parts[0])
        guard PhoneCodes.constantTimeEqual(try await signature(of: secret), String(parts[1])) else { return nil }
        return try await database.read { sql in
            try await sql.select().column("*").from("remembered_devices")
                .where("token_hash", .equal, OpaqueToken.digest(secret)).where("expires_at", .greaterThan, now)
                .first(decoding: RememberedDevice.self, with: .rollcall)
        }
    }

    /// The device and its person when this browser's cookie still stands for someone who may sign in with it: the
    /// device unexpired and not forgotten, the account active, and the number still theirs and confirmed.
    package func recognised(_ request: Request, users: UserStore) async throws -> (
        device: RememberedDevice, user: User
    )? {
        guard let cookie = request.cookies[Self.cookieName]?.value, let device = try await device(cookie: cookie),
            let user = try await users.find(id: device.userId),
            !user.disabled, user.deletedAt == nil, user.phoneConfirmedAt != nil, user.phone == device.phone
        else { return nil }
        return (device, user)
    }

    /// The id of the device this browser's cookie stands for, whoever it belongs to.
    package func current(_ request: Request) async throws -> Int64? {
        guard let cookie = request.cookies[Self.cookieName]?.value else { return nil }
        return try await device(cookie: cookie)?.id
    }

    package func markUsed(id: Int64, at now: Date = Date()) async throws {
        try await database.write { sql in
            try await sql.update("remembered_devices").set("last_used_at", to: SQLBind(now)).where("id", .equal, id)
                .run()
        }
    }

    /// The person's remembered devices that have not run out, the newest first.
    package func list(userID: Int64, now: Date = Date()) async throws -> [RememberedDevice] {
        try await database.read { sql in
            try await sql.select().column("*").from("remembered_devices").where("user_id", .equal, userID)
                .where("expires_at", .greaterThan, now).orderBy("id", .descending)
                .all(decoding: RememberedDevice.self, with: .rollcall)
        }
    }

    /// Forgets one of the person's devices and signs out every session it started; `false` when it is not theirs.
    package func forget(id: Int64, userID: Int64) async throws -> Bool {
        let signedOut: [String]? = try await database.transaction { sql in
            guard
                try await sql.delete(from: "remembered_devices").where("id", .equal, id)
                    .where("user_id", .equal, userID).returning("id").first() != nil
            else { return nil }
            return try await Self.signOut(devices: [id], sql: sql)
        }
        guard let signedOut else { return false }
        await tokens.forget(tokenHashes: signedOut)
        return true
    }

    /// Forgets, in the transaction that changes a person's number, the devices remembered for any other number
    /// than the one they now have confirmed (every device when none is), and signs out the sessions those started.
    /// The caller forgets the person's cached sign-ins; the other processes hear of the deletes from the database.
    package static func forgetStale(userID: Int64, sql: any SQLDatabase) async throws {
        let confirmed =
            try await sql.raw(
                "SELECT phone FROM users WHERE id = \(bind: userID) AND phone_confirmed_at IS NOT NULL"
            ).first(decodingColumn: "phone", as: String?.self) ?? nil
        var stale = sql.select().column("id").from("remembered_devices").where("user_id", .equal, userID)
        if let confirmed { stale = stale.where("phone", .notEqual, confirmed) }
        let ids = try await stale.all(decodingColumn: "id", as: Int64.self)
        guard !ids.isEmpty else { return }
        try await sql.delete(from: "remembered_devices").where("id", .in, SQLBind.group(ids)).run()
        _ = try await signOut(devices: ids, sql: sql)
    }

    /// Deletes the sessions the given devices started, after the devices themselves: a sign-in from one of them that
    /// is under way holds the device's row (`AccessTokenStore.issue`), so its session is written before this delete
    /// reads, or not at all.
    private static func signOut(devices ids: [Int64], sql: any SQLDatabase) async throws -> [String] {
        try await sql.delete(from: "access_tokens").where("device_id", .in, SQLBind.group(ids))
            .returning("token_hash").all(decodingColumn: "token_hash", as: String.self)
    }

    private func signature(of secret: String) async throws -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data(secret.utf8), using: try await keys.key(named: "remembered_devices"))
        return Base64URL.encode(Array(mac))
    }
}
