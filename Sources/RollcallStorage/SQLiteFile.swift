import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
// The SQLite library SQLiteNIO builds, reached directly: Rollcall's own connections prepare each statement once and
// keep it. It must be this copy and no other: two SQLite libraries in one process would each keep their own POSIX
// locks on the same file, and SQLite's locking relies on there being one.
import VaporCSQLite

/// One connection to Rollcall's SQLite file, which keeps every statement it has prepared for the next time the same
/// SQL comes.
///
/// SQLite spent about half of its time parsing statements that SQLiteNIO prepared afresh for every call. Here the
/// statements run on the calling thread, one task at a time (`SQLiteConnections` hands the connection out), so a
/// statement costs no hop to a thread pool and back: a WAL commit at `synchronous = NORMAL` writes to the page cache
/// and does not wait for the disk.
package final class SQLiteFileConnection: @unchecked Sendable {
    // Touched by one task at a time, which `SQLiteConnections` guarantees.
    private let handle: OpaquePointer
    private var statements: [String: Prepared] = [:]
    /// How many statements this connection has had SQLite prepare, kept ones and those prepared again.
    package private(set) var preparations = 0
    /// Enough for every statement Rollcall writes by hand; statements with a varying number of rows (the check-in
    /// groups, `IN` lists) come in many lengths, and when the cache is full it starts again.
    package static let statementsKept = 256

    /// A prepared statement and the names of its result columns.
    private final class Prepared {
        package let statement: OpaquePointer
        package var columns: SQLiteColumns

        package init(statement: OpaquePointer) {
            self.statement = statement
            columns = SQLiteColumns(statement)
        }
    }

    /// Opens (creating if asked) the file at `path` and applies `pragmas`.
    package init(path: String, create: Bool, pragmas: [String]) throws {
        var handle: OpaquePointer?
        // NOMUTEX: one task at a time uses a connection, so SQLite's own per-connection mutex would only cost.
        let flags =
            SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE | (create ? SQLITE_OPEN_CREATE : 0)
        let opened = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard opened == SQLITE_OK, let handle else {
            let failure = SQLiteFailure(code: opened, message: handle.map(Self.message) ?? "cannot open \(path)")
            sqlite_nio_sqlite3_close_v2(handle)
            throw failure
        }
        self.handle = handle
        do {
            for pragma in pragmas { try run(pragma, binds: []) { _ in } }
        } catch {
            close()
            throw error
        }
    }

    private static func message(_ handle: OpaquePointer) -> String {
        String(cString: sqlite_nio_sqlite3_errmsg(handle))
    }

    /// Runs `sql` with `binds`, handing each result row to `onRow`.
    package func run(_ sql: String, binds: [SQLiteData], _ onRow: (SQLiteFileRow) -> Void) throws {
        let prepared = try prepare(sql)
        let statement = prepared.statement
        // The bindings stay until the next run binds every parameter again: clearing them would mark the statement
        // for preparing anew whenever SQLite's planner looked at a bound value (an `=` against a parameter is enough).
        defer { sqlite_nio_sqlite3_reset(statement) }
        for (offset, value) in binds.enumerated() {
            try check(bind(value, at: Int32(offset + 1), in: statement))
        }
        while true {
            let stepped = sqlite_nio_sqlite3_step(statement)
            if stepped == SQLITE_DONE { return }
            guard stepped == SQLITE_ROW else { throw failure(stepped) }
            let count = sqlite_nio_sqlite3_column_count(statement)
            // A statement is prepared again by SQLite itself after the schema changes, `SELECT *` perhaps with
            // other columns.
            if Int(count) != prepared.columns.names.count { prepared.columns = SQLiteColumns(statement) }
            var values: [SQLiteData] = []
            values.reserveCapacity(Int(count))
            for column in 0..<count { values.append(Self.value(of: statement, at: column)) }
            onRow(SQLiteFileRow(columns: prepared.columns, values: values))
        }
    }

    private func prepare(_ sql: String) throws -> Prepared {
        if let kept = statements[sql] { return kept }
        var statement: OpaquePointer?
        let prepared = sqlite_nio_sqlite3_prepare_v3(
            handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        preparations += 1
        if statements.count >= Self.statementsKept { finalizeAll() }
        let kept = Prepared(statement: statement)
        statements[sql] = kept
        return kept
    }

    /// How many times SQLite prepared the kept statement for `sql` again by itself (after a schema change, or when a
    /// bound value may change its plan); `nil` when it is not kept.
    package func reprepared(_ sql: String) -> Int32? {
        statements[sql].map { sqlite_nio_sqlite3_stmt_status($0.statement, SQLITE_STMTSTATUS_REPREPARE, 0) }
    }

    private func bind(_ value: SQLiteData, at index: Int32, in statement: OpaquePointer) -> Int32 {
        switch value {
        case .integer(let value): sqlite_nio_sqlite3_bind_int64(statement, index, Int64(value))
        case .float(let value): sqlite_nio_sqlite3_bind_double(statement, index, value)
        case .text(let value):
            sqlite_nio_sqlite3_bind_text64(
                statement, index, value, UInt64(value.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
        case .blob(let value):
            value.withUnsafeReadableBytes {
                sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), Self.transient)
            }
        case .null: sqlite_nio_sqlite3_bind_null(statement, index)
        }
    }

    /// Tells SQLite to copy a bound value, which lives only as long as the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func value(of statement: OpaquePointer, at column: Int32) -> SQLiteData {
        switch sqlite_nio_sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(Int(sqlite_nio_sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT: return .float(sqlite_nio_sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite_nio_sqlite3_column_text(statement, column) else { return .null }
            let length = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
        case SQLITE_BLOB:
            let length = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            var buffer = ByteBufferAllocator().buffer(capacity: length)
            if let bytes = sqlite_nio_sqlite3_column_blob(statement, column) {
                buffer.writeBytes(UnsafeRawBufferPointer(start: bytes, count: length))
            }
            return .blob(buffer)
        default: return .null
        }
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw failure(code) }
    }

    private func failure(_ code: Int32) -> SQLiteFailure {
        SQLiteFailure(code: code, message: Self.message(handle))
    }

    private func finalizeAll() {
        for kept in statements.values { sqlite_nio_sqlite3_finalize(kept.statement) }
        statements = [:]
    }

    /// Finalizes every kept statement and closes the connection: SQLite connections must be closed explicitly.
    package func close() {
        finalizeAll()
        sqlite_nio_sqlite3_close_v2(handle)
    }
}

/// An error SQLite reported, with its (extended) result code.
package struct SQLiteFailure: Error, CustomStringConvertible {
    package let code: Int32
    package let message: String

    /// The disk (or `max_page_count`) has no room for the write.
    package var isFull: Bool { code & 0xFF == SQLITE_FULL }

    package var description: String { "SQLite error \(code): \(message)" }
}

/// The names of a statement's result columns, shared by its rows.
package final class SQLiteColumns: Sendable {
    package let names: [String]

    package init(_ statement: OpaquePointer) {
        names = (0..<sqlite_nio_sqlite3_column_count(statement)).map { column in
            sqlite_nio_sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
        }
    }

    package func offset(of name: String) -> Int? { names.firstIndex(of: name) }
}

/// One result row, its values decoded as SQLiteKit decodes them.
package struct SQLiteFileRow: SQLRow {
    package let columns: SQLiteColumns
    package let values: [SQLiteData]

    private static let decoder = SQLiteDataDecoder()

    package var allColumns: [String] { columns.names }

    package func contains(column: String) -> Bool { columns.offset(of: column) != nil }

    package func decodeNil(column: String) throws -> Bool {
        guard let offset = columns.offset(of: column) else { return true }
        return values[offset] == .null
    }

    package func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let offset = columns.offset(of: column) else {
            throw DecodingError.keyNotFound(
                SQLiteColumnName(stringValue: column),
                .init(codingPath: [], debugDescription: "No column \(column) in \(columns.names)"))
        }
        return try Self.decoder.decode(D.self, from: values[offset])
    }
}

private struct SQLiteColumnName: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}

/// A connection of `SQLiteConnections` seen through SQLKit, while its task holds it.
package struct SQLiteFileDatabase: SQLDatabase {
    package let connection: SQLiteFileConnection
    package let logger: Logger
    package let eventLoop: any EventLoop

    package init(connection: SQLiteFileConnection, logger: Logger, eventLoop: any EventLoop) {
        self.connection = connection
        self.logger = logger
        self.eventLoop = eventLoop
    }

    private static let encoder = SQLiteDataEncoder()

    package var version: (any SQLDatabaseReportedVersion)? { nil }
    package var dialect: any SQLDialect { SQLiteDialect() }
    package var queryLogLevel: Logger.Level? { .debug }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try run(query, onRow)
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        eventLoop.makeCompletedFuture { try run(query, onRow) }
    }

    private func run(_ query: any SQLExpression, _ onRow: (any SQLRow) -> Void) throws {
        let (sql, binds) = serialize(query)
        logger.debug("Executing query", metadata: ["sql": "\(sql)"])
        try connection.run(sql, binds: binds.map { try Self.encoder.encode($0) }) { onRow($0) }
    }
}

/// SQLite connections handed to one task at a time, opened when first needed and kept, up to `limit`; a task that
/// finds them all taken waits its turn, first come first served.
package final class SQLiteConnections: Sendable {
    private struct State {
        package var idle: [SQLiteFileConnection] = []
        package var opened = 0
        package var waiting: [CheckedContinuation<SQLiteFileConnection, any Error>] = []
        package var closed = false
    }

    private let limit: Int
    private let open: @Sendable () throws -> SQLiteFileConnection
    private let state = NIOLockedValueBox(State())
    private let logger: Logger
    private let eventLoop: any EventLoop

    package init(limit: Int, logger: Logger, open: @escaping @Sendable () throws -> SQLiteFileConnection) {
        self.limit = limit
        self.logger = logger
        self.open = open
        eventLoop = MultiThreadedEventLoopGroup.singleton.next()
    }

    /// Runs `body` with a connection of its own for as long as it runs.
    package func with<Result>(_ body: (SQLiteFileDatabase) async throws -> Result) async throws -> Result {
        let connection = try await take()
        defer { giveBack(connection) }
        return try await body(SQLiteFileDatabase(connection: connection, logger: logger, eventLoop: eventLoop))
    }

    private enum Taken {
        case connection(SQLiteFileConnection)
        case openNew
        case wait
    }

    private func take() async throws -> SQLiteFileConnection {
        let taken: Taken = try state.withLockedValue { state in
            guard !state.closed else { throw DatabaseUnavailable() }
            if let connection = state.idle.popLast() { return .connection(connection) }
            guard state.opened < limit else { return .wait }
            state.opened += 1
            return .openNew
        }
        switch taken {
        case .connection(let connection): return connection
        case .openNew:
            do {
                return try open()
            } catch {
                state.withLockedValue { $0.opened -= 1 }
                throw error
            }
        case .wait:
            return try await withCheckedThrowingContinuation { waiter in
                let answer: Result<SQLiteFileConnection, any Error>? = state.withLockedValue { state in
                    if state.closed { return .failure(DatabaseUnavailable()) }
                    // A connection given back between the two locks is waiting in `idle`.
                    if let connection = state.idle.popLast() { return .success(connection) }
                    state.waiting.append(waiter)
                    return nil
                }
                if let answer { waiter.resume(with: answer) }
            }
        }
    }

    private func giveBack(_ connection: SQLiteFileConnection) {
        let (next, close): (CheckedContinuation<SQLiteFileConnection, any Error>?, Bool) = state.withLockedValue {
            state in
            if state.closed { return (nil, true) }
            if !state.waiting.isEmpty { return (state.waiting.removeFirst(), false) }
            state.idle.append(connection)
            return (nil, false)
        }
        if close { connection.close() }
        next?.resume(returning: connection)
    }

    /// Closes the idle connections, and each one in use as it is given back; whoever waits is refused.
    package func shutdown() {
        let (idle, waiting) = state.withLockedValue { state in
            state.closed = true
            defer {
                state.idle = []
                state.waiting = []
            }
            return (state.idle, state.waiting)
        }
        for connection in idle { connection.close() }
        for waiter in waiting { waiter.resume(throwing: DatabaseUnavailable()) }
    }
}
