import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresKit
import SQLKit

/// SQLKit's queries on one leased PostgreSQL connection: each statement Rollcall sends again is a named prepared
/// statement, parsed and described once per connection, then bound and executed by name; and every statement has a
/// deadline, after which its connection is closed, so that a server gone silent never holds a caller.
///
/// PostgresNIO prepares only statements whose name, text and parameter types are static
/// (`PostgresPreparedStatement`), while SQLKit renders its statements at run time. `PreparedText` bridges the two:
/// its static requirements read a task-local that `execute` binds around the one call, which reads them before it
/// first suspends. PostgresKit's encoding of SQLKit's binds is internal, so the binds PostgresNIO can encode itself
/// are encoded here, dates to the microsecond, for unnamed statements too; a statement with any other bind goes out
/// unnamed, through PostgresKit.
struct PostgresSession: SQLDatabase {
    let connection: PostgresConnection
    let statements: PreparedStatements
    let watch: StatementWatch
    let deadline: Duration

    var logger: Logger { connection.logger }
    var eventLoop: any EventLoop { connection.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { nil }
    var dialect: any SQLDialect { PostgresDialect() }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        // A statement written to a closed connection is never answered: its handlers are gone, and the failed write
        // reaches no one. Refused here at once; one that meets the close on its way is let go by the watch.
        guard !connection.isClosed else { throw DatabaseUnavailable() }
        let (text, binds) = serialize(query)
        let connection = connection
        let deadline =
            text == "COMMIT" || text == "ROLLBACK" ? min(deadline, PostgresPrimary.transactionEndDeadline) : deadline
        let encoded = PreparedStatements.encode(binds)
        let prepared = encoded.flatMap { statements.prepared(text, types: $0.types, bindings: $0.bindings) }
        do {
            try await watch.run(on: connection, deadline: deadline) {
                if let (statement, bindings) = prepared {
                    try await PreparedText.$current.withValue(statement) {
                        for try await row in try await connection.execute(
                            PreparedText(bindings: bindings), logger: connection.logger)
                        {
                            onRow(row.sql())
                        }
                    }
                } else if let (_, bindings) = encoded {
                    // Unnamed, but bound as a named statement would be: a date is stored alike either way.
                    let unnamed = PostgresQuery(unsafeSQL: text, binds: bindings)
                    for try await row in try await connection.query(unnamed, logger: connection.logger) {
                        onRow(row.sql())
                    }
                } else {
                    try await connection.sql(queryLogLevel: nil).execute(sql: query, onRow)
                }
            }
        } catch {
            statements.forget(text, after: error)
            // Closed before the connection goes back to the pool: a server that says it is ending the connection
            // (57P01) may still hold the socket open a moment, and a close the watch began may still be on its way.
            if PostgresPrimary.isOutage(error) { try? await connection.close() }
            throw error
        }
    }
}

/// A statement rendered at run time, as PostgresNIO's prepared-statement protocol sees it.
struct PreparedText: PostgresPreparedStatement {
    /// The statement `execute` is running now.
    @TaskLocal static var current = PreparedStatements.Statement(name: "", text: "", types: [])

    static var name: String { current.name }
    static var sql: String { current.text }
    static var bindingDataTypes: [PostgresDataType] { current.types }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// The names Rollcall's statements are prepared under, shared by every connection of a pool. A statement's name
/// stands for its text and its parameters' types, so a statement bound once with a null and once with a value is
/// two statements, each bound with the types it was prepared for.
final class PreparedStatements: Sendable {
    /// One statement's text and types, and the name it is prepared under on every connection.
    struct Statement: Sendable {
        var name: String
        var text: String
        var types: [PostgresDataType]
    }

    private struct Key: Hashable {
        var text: String
        var types: [PostgresDataType]
    }

    private struct State {
        /// Statements seen once: a statement is prepared from its second use, so that one-off text (a migration, a
        /// list of a rare length) never takes a name.
        var seen: Set<Key> = []
        var named: [Key: Statement] = [:]
        /// Texts that go out unnamed: the server refused to prepare them, or they change the schema, control a
        /// transaction or answer whole rows (`isPreparable`).
        var refused: Set<String> = []
        var lastName = 0
    }

    private let state = NIOLockedValueBox(State())
    /// Names per pool: a server keeps each connection's statements until it closes, so their number stays bounded.
    static let limit = 2_000

    /// The statement to execute by name, with its bindings; `nil` for a statement to send unnamed.
    func prepared(_ text: String, types: [PostgresDataType], bindings: PostgresBindings) -> (
        Statement, PostgresBindings
    )? {
        let key = Key(text: text, types: types)
        let statement = state.withLockedValue { state -> Statement? in
            if let named = state.named[key] { return named }
            guard !state.refused.contains(text), state.named.count < Self.limit else { return nil }
            // Read once per text, not on every statement: a text not to prepare is remembered with the refused.
            guard Self.isPreparable(text) else {
                if state.refused.count < Self.limit { state.refused.insert(text) }
                return nil
            }
            guard state.seen.remove(key) != nil else {
                if state.seen.count < Self.limit { state.seen.insert(key) }
                return nil
            }
            state.lastName += 1
            let named = Statement(name: "rollcall_\(state.lastName)", text: text, types: types)
            state.named[key] = named
            return named
        }
        return statement.map { ($0, bindings) }
    }

    /// Takes the name away from `text` after the server refused it. A plan that may not change its result type (the
    /// schema changed under the statement) or a name the server does not know is prepared again under a new name;
    /// a text the server would not prepare goes out unnamed from then on, since PostgresNIO remembers the refusal
    /// for that name on that connection.
    func forget(_ text: String, after error: any Error) {
        guard let error = error as? PSQLError, error.code == .server, let code = error.serverInfo?[.sqlState] else {
            return
        }
        state.withLockedValue { state in
            if code == "0A000" || code == "26000" {
                state.named = state.named.filter { $0.key.text != text }
            } else if code.hasPrefix("42") {
                state.refused.insert(text)
            }
        }
    }

    /// Statements that read or change rows; schema changes and transaction control go out as they are. So does a
    /// statement that answers `*`: a column added by a newer process's migration changes its result, and PostgreSQL
    /// refuses a prepared statement whose result changed (0A000) where an unnamed one just answers the new column.
    private static func isPreparable(_ text: String) -> Bool {
        let start = text.prefix(7).uppercased()
        guard ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains(where: { start.hasPrefix($0) }) else {
            return false
        }
        return !text.replacingOccurrences(of: "COUNT(*)", with: "", options: .caseInsensitive).contains("*")
    }

    /// The binds encoded as PostgresNIO encodes its own types, with their types, dates to the nearest microsecond;
    /// `nil` when one needs PostgresKit's encoder (a value that is only `Encodable`).
    static func encode(_ binds: [any Encodable & Sendable]) -> (types: [PostgresDataType], bindings: PostgresBindings)?
    {
        var bindings = PostgresBindings(capacity: binds.count)
        var types: [PostgresDataType] = []
        types.reserveCapacity(binds.count)
        for bind in binds {
            if (bind as Any?).isNil {
                bindings.appendNull()
                types.append(.null)
            } else if let date = bind as? Date {
                bindings.append(Microsecond(date))
                types.append(.timestamptz)
            } else if let value = bind as? any PostgresThrowingDynamicTypeEncodable {
                do {
                    try bindings.append(value, context: .default)
                } catch {
                    return nil
                }
                types.append(value.psqlType)
            } else {
                return nil
            }
        }
        return (types, bindings)
    }
}

/// A date as PostgreSQL keeps it, to the nearest microsecond. PostgresNIO's own encoding cuts, and a date sent as
/// `.712` is held as `.71199999…`: cut, it would be stored as `.711999` and answered a millisecond early.
struct Microsecond: PostgresNonThrowingEncodable {
    let date: Date

    init(_ date: Date) {
        self.date = date
    }

    static var psqlType: PostgresDataType { .timestamptz }
    static var psqlFormat: PostgresFormat { .binary }

    /// PostgreSQL's epoch, 2000-01-01 in UTC.
    private static let epoch = Date(timeIntervalSince1970: 946_684_800)

    func encode<Encoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<Encoder>)
    {
        buffer.writeInteger(Int64((date.timeIntervalSince(Self.epoch) * 1_000_000).rounded()))
    }
}

extension Optional where Wrapped == Any {
    /// Whether the value, seen through any number of optionals, is none.
    fileprivate var isNil: Bool {
        switch self {
        case .none: true
        case .some(let value): (value as? any OptionalValue)?.isNone ?? false
        }
    }
}

/// An optional whose wrapped type is not known here.
private protocol OptionalValue {
    var isNone: Bool { get }
}

extension Optional: OptionalValue {
    fileprivate var isNone: Bool {
        switch self {
        case .none: true
        case .some(let value): (value as? any OptionalValue)?.isNone ?? false
        }
    }
}
