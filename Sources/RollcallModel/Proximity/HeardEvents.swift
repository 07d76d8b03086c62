import Foundation
import RollcallCore
import RollcallProtocol
import RollcallStorage
import SQLKit

/// The room's `heard` events name people as much as the counts do: whoever forgets their proximity, or their
/// account, leaves the events of every session they were heard in or heard others in, not only the counts.
package enum HeardEvents {
    private struct Row: Decodable {
        package var id: Int64
        package var payload: String
    }

    /// Takes the person out of every `heard` event, in the caller's transaction, before their counts go: the
    /// counts say which sessions to look in. An event that named only them, or was theirs, goes whole.
    package static func forget(_ userID: Int64, in sql: any SQLDatabase) async throws {
        let sessions = try await sql.raw(
            """
            SELECT DISTINCT session_id FROM session_proximity
            WHERE student_id = \(bind: userID) OR heard_by = \(bind: userID)
            """
        ).all(decodingColumn: "session_id", as: Int64.self)
        for chunk in sessions.chunked(into: 500) {
            let events = try await sql.select().columns("id", "payload").from("session_events")
                .where("kind", .equal, SessionEventKind.heard.rawValue)
                .where("session_id", .in, SQLBind.group(chunk))
                .all(decoding: Row.self, with: .rollcall)
            for event in events {
                try await rewrite(event, without: userID, in: sql)
            }
        }
    }

    private static func rewrite(_ event: Row, without userID: Int64, in sql: any SQLDatabase) async throws {
        var heard = try StoredJSON.decode(event.payload, as: SessionChange.Heard.self, row: "a heard event")
        guard heard.heardBy == userID || heard.studentIds.contains(userID) else { return }
        heard.studentIds.removeAll { $0 == userID }
        if heard.heardBy == userID || heard.studentIds.isEmpty {
            try await sql.delete(from: "session_events").where("id", .equal, event.id).run()
            return
        }
        try await sql.update("session_events").set("payload", to: try SessionChange.heard(heard).payload())
            .where("id", .equal, event.id).run()
    }
}
