import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import RollcallModel
import RollcallParts
import RollcallStorage
import SQLiteNIO
import Testing

@testable import RollcallServer

/// Runs `body` against a Rollcall server in process: on a fresh SQLite file (or the one in `dataDirectory`, which the
/// caller removes), or on PostgreSQL at `databaseURL`; `setup: .live` listens on a port, for WebSockets; `configure`
/// changes any other setting.
public func withServer(
    teacherApproval: Bool = false, databaseURL: String? = nil, dataDirectory: String? = nil,
    setup: TestingSetup = .router, configure: (inout Configuration) -> Void = { _ in },
    _ body: @Sendable (API) async throws -> Void
) async throws {
    try await withServer(
        migrations: Migrations.steps, teacherApproval: teacherApproval, databaseURL: databaseURL,
        dataDirectory: dataDirectory, setup: setup, configure: configure, body)
}

/// `withServer` on a build whose schema is `migrations`, as another release of Rollcall would have.
package func withServer(
    migrations: [Migrations.Step], teacherApproval: Bool = false, databaseURL: String? = nil,
    dataDirectory: String? = nil, setup: TestingSetup = .router, configure: (inout Configuration) -> Void = { _ in },
    _ body: @Sendable (API) async throws -> Void
) async throws {
    let directory =
        dataDirectory
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-test-\(UUID().uuidString)").path
    defer { if dataDirectory == nil { try? FileManager.default.removeItem(atPath: directory) } }
    var configured = Configuration(
        dataDirectory: directory, databaseURL: databaseURL, teacherApproval: teacherApproval, logLevel: .error
    )
    configure(&configured)
    let configuration = configured
    let app = try await buildApplication(configuration, passwordCost: 4, migrations: migrations)
    try await app.test(setup) { client in
        try await body(
            API(client: client, databasePath: configuration.sqlitePath, databaseURL: configuration.databaseURL))
    }
}

/// A signed-in person in a test: their id and bearer token.
public struct Account: Sendable {
    public var id: Int64
    public var email: String
    public var token: String

    public init(id: Int64, email: String, token: String) {
        self.id = id
        self.email = email
        self.token = token
    }
}

/// One answer from the API, with its JSON body read for assertions.
public struct Reply: Sendable {
    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var text: String

    public init(status: HTTPResponse.Status, headers: HTTPFields, text: String) {
        self.status = status
        self.headers = headers
        self.text = text
    }

    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// A value by dotted path, such as `course.id`.
    public func value(_ path: String) -> Any? {
        path.split(separator: ".").reduce(json as Any?) { node, key in (node as? [String: Any])?[String(key)] }
    }
    public func string(_ path: String) -> String? { value(path) as? String }
    public func int(_ path: String) -> Int64? { (value(path) as? NSNumber)?.int64Value }
    public func list(_ path: String) -> [[String: Any]] { value(path) as? [[String: Any]] ?? [] }
    public var errorCode: String? { string("error.code") }
    public var errorMessage: String? { string("error.message") }
}

/// Speaks Rollcall's API from tests.
public struct API: Sendable {
    public let client: any TestClientProtocol
    public let databasePath: String
    /// The PostgreSQL database the server uses, when it is not the SQLite file at `databasePath`.
    public let databaseURL: String?
    public static let password = "correct horse battery"

    public init(client: any TestClientProtocol, databasePath: String, databaseURL: String? = nil) {
        self.client = client
        self.databasePath = databasePath
        self.databaseURL = databaseURL
    }

    /// The server's database, opened beside it; the caller shuts it down.
    public func database() throws -> Database {
        if let databaseURL { return try Database.postgres(url: databaseURL, logger: .init(label: "test")) }
        return try Database.sqlite(path: databasePath, logger: .init(label: "test"))
    }

    /// Sends a request; `json` is serialised, `raw` is sent as is with `contentType`.
    @discardableResult
    public func call(
        _ method: HTTPRequest.Method, _ path: String, as account: Account? = nil, json: Any? = nil,
        raw: [UInt8]? = nil, contentType: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extra
        if let account { headers[.authorization] = "Bearer \(account.token)" }
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
            headers[.contentType] = contentType ?? "application/json"
        } else if let raw {
            body = ByteBuffer(bytes: raw)
            if let contentType { headers[.contentType] = contentType }
        }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body)
        return Reply(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }

    /// Registers an account through the API and signs it in with a bearer token; a teacher's address is confirmed
    /// unless `confirmed` is false.
    public func register(
        _ name: String, role: String = "student", email: String? = nil, studentNumber: String? = nil,
        confirmed: Bool = true
    ) async throws -> Account {
        let email = email ?? "\(name.lowercased().replacingOccurrences(of: " ", with: "."))@school.test"
        var body: [String: Any] = [
            "name": name, "email": email, "password": Self.password, "role": role, "signIn": "token",
        ]
        if let studentNumber { body["studentNumber"] = studentNumber }
        let registered = try await call(.post, "/api/v1/auth/register", json: body)
        #expect(registered.status == .created, "registering \(email): \(registered.text)")
        let account = Account(
            id: registered.int("user.id") ?? 0, email: email, token: registered.string("token") ?? "")
        // A teacher reaches students only from a confirmed address; most tests are about something else.
        if role == "teacher" && confirmed { try await confirmEmail(account) }
        return account
    }

    /// Confirms the account's address through the API, with a link token issued straight in the database as the
    /// mailed one would be.
    public func confirmEmail(_ account: Account) async throws {
        let token = try await database().closing { database in
            try await AccessTokenStore(database: database).issueVerification(userID: account.id)
        }
        let confirmed = try await call(.post, "/api/v1/auth/verify-email", json: ["token": token])
        #expect(confirmed.status == .ok, "confirming \(account.email): \(confirmed.text)")
    }

    public func signIn(_ email: String, password: String = API.password) async throws -> Account {
        let reply = try await call(.post, "/api/v1/auth/tokens", json: ["email": email, "password": password])
        #expect(reply.status == .created, "signing in \(email): \(reply.text)")
        return Account(id: reply.int("user.id") ?? 0, email: email, token: reply.string("token") ?? "")
    }

    /// An admin, made the way an operator would: straight in the database.
    public func admin() async throws -> Account {
        let database = try database()
        do {
            let hash = try await PasswordHasher(cost: 4).hash(Self.password)
            _ = try await UserStore(database: database).create(
                NewUser(
                    name: "Admin", email: "admin@school.test", passwordHash: hash, role: .admin, studentNumber: nil,
                    approved: true, emailVerified: true
                )
            )
        } catch {
            try? await database.shutdown()
            throw error
        }
        try await database.shutdown()
        return try await signIn("admin@school.test")
    }

    /// A teacher with one course; answers the course id and join code.
    public func teacherWithCourse(_ name: String = "Tess Teacher") async throws -> (Account, Int64, String) {
        let teacher = try await register(name, role: "teacher")
        let course = try await call(.post, "/api/v1/courses", as: teacher, json: ["name": "Biology 101"])
        #expect(course.status == .created, "\(course.text)")
        return (teacher, course.int("course.id") ?? 0, course.string("course.joinCode") ?? "")
    }

    /// Every row of every table, as text: equal snapshots mean nothing stored was lost or changed.
    /// On PostgreSQL it is empty: the same refusals are compared row by row on SQLite.
    public func snapshot() async throws -> [String: [String]] {
        if databaseURL != nil { return [:] }
        let connection = try await SQLiteConnection.open(storage: .file(path: databasePath))
        do {
            var result: [String: [String]] = [:]
            let tables = try await connection.query("SELECT name FROM sqlite_master WHERE type = 'table'")
                .compactMap { $0.column("name")?.string }
            for table in tables where table != "sqlite_sequence" && table != "attempt_counters" {
                result[table] = try await connection.query("SELECT * FROM \(table) ORDER BY rowid").map { row in
                    row.columns.map { "\($0.name)=\($0.data)" }.joined(separator: ",")
                }
            }
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The texts of the text messages to `phone`, newest first, read from the database.
    public func texts(to phone: String) async throws -> [String] {
        let database = try Database.sqlite(path: databasePath, logger: .init(label: "test"))
        let messages = try await Outbox(database: database, logger: .init(label: "test")).list()
        try await database.shutdown()
        return messages.filter { $0.channel == "sms" && $0.recipient == phone }.map(\.body)
    }

    /// The code of the newest text message to `phone`.
    public func textedCode(to phone: String) async throws -> String {
        let text = try #require(try await texts(to: phone).first, "a text message to \(phone)")
        return String(try #require(text.firstMatch(of: /^(\d{6}) is your/)?.1, "a code in “\(text)”"))
    }

    /// Registers `name` with `phone` confirmed (straight in the database), asks for a sign-in code, and answers it.
    public func phoneSignInCode(_ name: String, _ phone: String) async throws -> String {
        try await confirmPhone(try await register(name), phone)
        let asked = try await call(.post, "/api/v1/auth/phone-code", json: ["phone": phone])
        #expect(asked.status == .accepted, "\(asked.text)")
        return try await textedCode(to: phone)
    }

    /// Makes `phone` the account's confirmed number, straight in the database.
    public func confirmPhone(_ account: Account, _ phone: String) async throws {
        try await Database.sqlite(path: databasePath, logger: .init(label: "test")).closing { database in
            try await UserStore(database: database).confirmPhone(id: account.id, phone: phone)
        }
    }

    /// Signs `account` in by a code texted to its confirmed `phone`, asking the browser to be remembered; answers
    /// the remembered device's cookie, as a `Cookie` header's value.
    public func rememberedDevice(_ account: Account, _ phone: String) async throws -> String {
        let asked = try await call(.post, "/api/v1/auth/phone-code", json: ["phone": phone])
        #expect(asked.status == .accepted, "\(asked.text)")
        let signedIn = try await call(
            .post, "/api/v1/auth/phone-session",
            json: ["phone": phone, "code": try await textedCode(to: phone), "rememberDevice": true],
            headers: [.userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) Chrome/131.0.0.0 Mobile Safari/537.36"])
        #expect(signedIn.status == .ok, "\(signedIn.text)")
        let cookies = signedIn.headers[values: .setCookie].compactMap { $0.firstMatch(of: /^rollcall_device=([^;]+)/) }
        let cookie = try #require(cookies.first, "a device cookie").1
        return "rollcall_device=\(cookie)"
    }
}

extension API {
    /// Sends a bad request and checks the refusal: its status, its stable code, a message, and that nothing changed.
    public func expectRefused(
        _ method: HTTPRequest.Method, _ path: String, as account: Account? = nil, json: Any? = nil,
        raw: [UInt8]? = nil, contentType: String? = nil, headers: HTTPFields = [:], status: HTTPResponse.Status,
        code: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = try await snapshot()
        let reply = try await call(
            method, path, as: account, json: json, raw: raw, contentType: contentType, headers: headers)
        #expect(reply.status == status, "\(method) \(path): \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.errorCode == code, "\(method) \(path): \(reply.text)", sourceLocation: sourceLocation)
        #expect((reply.errorMessage ?? "").count > 10, "a sentence for the person", sourceLocation: sourceLocation)
        let after = try await snapshot()
        #expect(before == after, "a refused request changed stored data", sourceLocation: sourceLocation)
    }
}

extension Database {
    /// Runs `body`, then closes every connection whether it threw or not: an unclosed SQLite connection traps.
    public func closing<T: Sendable>(_ body: (Database) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            try await shutdown()
            return result
        } catch {
            try? await shutdown()
            throw error
        }
    }
}
