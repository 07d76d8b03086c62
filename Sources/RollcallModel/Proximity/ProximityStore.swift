import Crypto
import Foundation
import RollcallCore
import RollcallProtocol
import RollcallStorage
import SQLKit

/// A pseudo-ID handed to a phone: its value, which only the phone and this answer ever hold, and its window.
package struct IssuedPseudoID: Codable, Sendable, Equatable {
    package var id: String
    package var windowStart: Date
}

/// One upload as Rollcall counted it: what came, what was kept, what no pseudo-ID of Rollcall's explains.
package struct ProximityUpload: Codable, Sendable, Equatable {
    package var id: Int64
    package var requestId: Int64?
    package var received: Int
    package var kept: Int
    /// Heard pseudo-IDs Rollcall never issued, or heard outside their window, or the phone's own: ignored.
    package var unknown: Int
    package var createdAt: Date
}

/// A health officer's request that the person of a report upload what their phone heard.
package struct ProximityRequest: Codable, Sendable, Equatable {
    package var id: Int64
    package var reportId: Int64
    package var personId: Int64
    package var createdAt: Date
    package var answeredAt: Date?
}

/// A person's proximity as they see it: whether it is on, how far their pseudo-IDs reach, their uploads, and the
/// requests waiting for them.
package struct ProximityStanding: Codable, Sendable, Equatable {
    package var on: Bool
    package var since: Date?
    package var idsUntil: Date?
    package var windowSeconds: Int
    package var encountersUploaded: Int
    package var uploads: [ProximityUpload]
    package var requests: [ProximityRequest]
}

/// Why a proximity request cannot be taken.
package enum ProximityRefusal: Error, Equatable {
    case off
    case requestNotFound
}

/// Pseudo-IDs, the encounters phones upload, a session's "heard by" counts, and the sightings a report reads.
///
/// Pseudo-IDs are kept as an HMAC under a key of Rollcall's own, so reading the table does not give the broadcast
/// values; a heard value is hashed the same way to find its row.
package struct ProximityStore: Sendable {
    package let database: Database
    package let keys: ServerKeys

    package init(database: Database, keys: ServerKeys) {
        self.database = database
        self.keys = keys
    }

    private struct PseudoRow {
        package var id: Int64
        package var userId: Int64
        package var idHash: String
        package var windowStart: Date

        /// Read column by column: an upload reads 5,000 of these, and Codable's decoding of them cost more than the
        /// query.
        init(row: any SQLRow) throws {
            id = try row.decode(column: "id", as: Int64.self)
            userId = try row.decode(column: "user_id", as: Int64.self)
            idHash = try row.decode(column: "id_hash", as: String.self)
            windowStart = try row.decode(column: "window_start", as: Date.self)
        }
    }

    /// The keyed hash a pseudo-ID is kept and found by.
    package func hashes(_ values: [String]) async throws -> [String] {
        let key = try await keys.key(named: "proximity_ids")
        return values.map { value in
            let bytes = Data(hexadecimal: value)
            return Data(HMAC<SHA256>.authenticationCode(for: bytes, using: key)).base64EncodedString()
        }
    }

    package func standing(of userID: Int64) async throws -> ProximityStanding {
        try await database.read { sql in
            let since =
                try await sql.select().column("proximity_since").from("users").where("id", .equal, userID)
                .first(decodingColumn: "proximity_since", as: Date?.self) ?? nil
            let until =
                try await sql.select().column(SQLFunction("MAX", args: SQLColumn("window_start")), as: "last")
                .from("proximity_ids").where("user_id", .equal, userID)
                .first(decodingColumn: "last", as: Date?.self) ?? nil
            let count =
                try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
                .from("proximity_encounters").where("uploader_id", .equal, userID)
                .first(decodingColumn: "n", as: Int.self) ?? 0
            let uploads = try await sql.select().column("*").from("proximity_uploads").where("user_id", .equal, userID)
                .orderBy("id", .descending).limit(20).all(decoding: ProximityUpload.self, with: .rollcall)
            let requests = try await sql.select().column("*").from("proximity_requests")
                .where("person_id", .equal, userID).orderBy("id", .descending).limit(20)
                .all(decoding: ProximityRequest.self, with: .rollcall)
            return ProximityStanding(
                on: since != nil, since: since,
                idsUntil: until.map { $0.addingTimeInterval(Double(Proximity.windowSeconds)) },
                windowSeconds: Proximity.windowSeconds, encountersUploaded: count, uploads: uploads,
                requests: requests)
        }
    }

    /// Turns proximity on, or off: off forgets everything of it, so nothing the person's phone broadcast or heard
    /// can be read any more.
    package func set(on: Bool, userID: Int64, now: Date) async throws {
        try await database.transaction { sql in
            if on {
                try await sql.update("users").set("proximity_since", to: SQLBind(now)).where("id", .equal, userID)
                    .where(SQLColumn("proximity_since"), .is, SQLLiteral.null).run()
                return
            }
            try await sql.update("users").set("proximity_since", to: SQLLiteral.null).where("id", .equal, userID).run()
            try await Self.forget(userID, in: sql)
        }
    }

    /// Deletes a person's pseudo-IDs (and so what anyone heard of them), what they uploaded, and their counts in
    /// sessions and the room's events that named them, in the caller's transaction.
    package static func forget(_ userID: Int64, in sql: any SQLDatabase) async throws {
        try await HeardEvents.forget(userID, in: sql)
        try await sql.raw(
            """
            DELETE FROM proximity_encounters
            WHERE uploader_id = \(bind: userID)
               OR pseudo_id IN (SELECT id FROM proximity_ids WHERE user_id = \(bind: userID))
            """
        ).run()
        try await sql.delete(from: "proximity_ids").where("user_id", .equal, userID).run()
        try await sql.delete(from: "proximity_uploads").where("user_id", .equal, userID).run()
        try await sql.raw(
            "DELETE FROM session_proximity WHERE student_id = \(bind: userID) OR heard_by = \(bind: userID)"
        ).run()
    }

    /// Whether the request is one made to this person.
    package func isRequest(_ requestID: Int64, of userID: Int64) async throws -> Bool {
        try await database.read { sql in
            try await sql.select().column("id").from("proximity_requests").where("id", .equal, requestID)
                .where("person_id", .equal, userID).first() != nil
        }
    }

    package func isOn(_ userID: Int64) async throws -> Bool {
        try await database.read { sql in try await Self.isOn(userID, in: sql) }
    }

    package static func isOn(_ userID: Int64, in sql: any SQLDatabase) async throws -> Bool {
        guard
            let row = try await sql.select().column("proximity_since").from("users").where("id", .equal, userID).first()
        else { return false }
        return try !row.decodeNil(column: "proximity_since")
    }

    /// Fresh pseudo-IDs from the current window for `days`: those issued earlier for windows still to come are
    /// dropped (a phone asking again may have lost them), those already broadcast stay valid.
    package func issue(userID: Int64, days: Int, now: Date) async throws -> [IssuedPseudoID] {
        let windows = Proximity.windows(from: now, through: now.addingTimeInterval(Double(days) * 86_400))
        let issued = windows.map { IssuedPseudoID(id: Self.randomID(), windowStart: $0) }
        // Checked before the key is read: a refused request leaves even the key unmade.
        guard try await isOn(userID) else { throw ProximityRefusal.off }
        let hashes = try await hashes(issued.map(\.id))
        try await database.transaction { sql in
            guard try await Self.isOn(userID, in: sql) else { throw ProximityRefusal.off }
            try await sql.delete(from: "proximity_ids").where("user_id", .equal, userID)
                .where("window_start", .greaterThan, SQLBind(Proximity.windowStart(at: now))).run()
            for chunk in Array(zip(issued, hashes)).chunked(into: 500) {
                var insert = sql.insert(into: "proximity_ids").columns(
                    "user_id", "id_hash", "window_start", "issued_at")
                for (pseudo, hash) in chunk {
                    insert = insert.values(SQLBind(userID), SQLBind(hash), SQLBind(pseudo.windowStart), SQLBind(now))
                }
                try await insert.run()
            }
        }
        return issued
    }

    /// Keeps an upload's encounters (checked already), merged with what the person uploaded before; heard values
    /// Rollcall never issued, heard outside their window, or the person's own are counted and dropped.
    ///
    /// Written in parts of `writePart` encounters, each its own short transaction: on SQLite a transaction holds the
    /// one write lock, and 5,000 merges in one would hold every check-in behind it. A part written before a failure
    /// stays, which changes nothing a repeated upload would not: the same encounter uploaded again only widens.
    package func upload(
        _ encounters: [Proximity.Encounter], userID: Int64, requestID: Int64?, now: Date
    ) async throws -> ProximityUpload {
        guard try await isOn(userID) else { throw ProximityRefusal.off }
        if let requestID, try await !isRequest(requestID, of: userID) { throw ProximityRefusal.requestNotFound }
        let hashes = try await hashes(encounters.map(\.heard))
        let known = try await database.read { sql in try await Self.pseudoRows(hashes, in: sql) }
        var kept: [(row: PseudoRow, encounter: Proximity.Encounter)] = []
        for (encounter, hash) in zip(encounters, hashes) {
            guard let row = known[hash], row.userId != userID,
                Proximity.fits(
                    windowStart: row.windowStart, firstSeen: encounter.firstSeen, lastSeen: encounter.lastSeen)
            else { continue }
            kept.append((row, encounter))
        }
        for part in kept.chunked(into: Self.writePart) {
            try await database.transaction { sql in
                guard try await Self.isOn(userID, in: sql) else { throw ProximityRefusal.off }
                try await Self.merge(part, uploader: userID, in: sql)
            }
        }
        let keptCount = kept.count
        return try await database.transaction { sql in
            guard try await Self.isOn(userID, in: sql) else { throw ProximityRefusal.off }
            if let requestID {
                guard
                    try await sql.update("proximity_requests").set("answered_at", to: SQLBind(now))
                        .where("id", .equal, requestID).where("person_id", .equal, userID).returning("id").first()
                        != nil
                else { throw ProximityRefusal.requestNotFound }
            }
            let id = try await sql.insert(into: "proximity_uploads")
                .columns("user_id", "request_id", "received", "kept", "unknown", "created_at")
                .values(
                    SQLBind(userID), SQLBind(requestID), SQLBind(encounters.count), SQLBind(keptCount),
                    SQLBind(encounters.count - keptCount), SQLBind(now)
                ).returning("id").first(decodingColumn: "id", as: Int64.self)
            return ProximityUpload(
                id: id ?? 0, requestId: requestID, received: encounters.count, kept: keptCount,
                unknown: encounters.count - keptCount, createdAt: now)
        }
    }

    /// Encounters one transaction of an upload merges.
    package static let writePart = 400

    /// Merges encounters into what the uploader sent before, in one statement.
    private static func merge(
        _ part: [(row: PseudoRow, encounter: Proximity.Encounter)], uploader userID: Int64, in sql: any SQLDatabase
    ) async throws {
        var rows: [SQLQueryString] = []
        for (row, encounter) in part {
            rows.append(
                "(\(bind: userID), \(bind: row.id), \(bind: encounter.firstSeen), \(bind: encounter.lastSeen), \(bind: encounter.signal))"
            )
        }
        // The same encounter uploaded again widens to cover both, so an upload repeated changes nothing.
        try await sql.raw(
            """
            INSERT INTO proximity_encounters (uploader_id, pseudo_id, first_seen, last_seen, signal)
            VALUES \(rows.joined(separator: ", "))
            ON CONFLICT (uploader_id, pseudo_id) DO UPDATE SET
              first_seen = CASE WHEN excluded.first_seen < proximity_encounters.first_seen
                THEN excluded.first_seen ELSE proximity_encounters.first_seen END,
              last_seen = CASE WHEN excluded.last_seen > proximity_encounters.last_seen
                THEN excluded.last_seen ELSE proximity_encounters.last_seen END,
              signal = CASE WHEN excluded.signal > proximity_encounters.signal
                THEN excluded.signal ELSE proximity_encounters.signal END
            """
        ).run()
    }

    private static func pseudoRows(_ hashes: [String], in sql: any SQLDatabase) async throws -> [String: PseudoRow] {
        var found: [String: PseudoRow] = [:]
        for chunk in Array(Set(hashes)).chunked(into: 500) {
            let rows = try await sql.select().columns("id", "user_id", "id_hash", "window_start").from("proximity_ids")
                .where("id_hash", .in, SQLBind.group(chunk)).all().map(PseudoRow.init(row:))
            for row in rows { found[row.idHash] = row }
        }
        return found
    }

    /// Records, for a check-in in a session that asks for it, whose phones the student's phone heard just now;
    /// answers the classmates newly counted. Values not issued, not of the last few minutes, the student's own, and
    /// those of anyone not on the course's roster are dropped: a relayed pseudo-ID must not name a stranger to the
    /// teacher. A classmate not checked in to this session by their own scan waits unannounced (`announce`), so
    /// that nobody absent is vouched for.
    package func heard(_ values: [String], by studentID: Int64, sessionID: Int64, now: Date) async throws -> [Int64] {
        guard !values.isEmpty else { return [] }
        let hashes = try await hashes(values)
        let earliest = Proximity.windowStart(at: now.addingTimeInterval(-Proximity.heardRecently))
        let latest = now.addingTimeInterval(Proximity.clockSkew)
        // Read before the write lock is taken: a check-in is the hot path, and the pseudo-IDs of the last minutes
        // do not change under it.
        let speakers = Set(
            try await database.read { sql in try await Self.pseudoRows(hashes, in: sql) }.values
                .filter { $0.userId != studentID && $0.windowStart >= earliest && $0.windowStart <= latest }
                .map(\.userId)
        ).sorted()
        guard !speakers.isEmpty else { return [] }
        return try await database.transaction { sql in
            // Inside the write: a classmate whose check-in commits meanwhile is either seen here or finds this row
            // waiting when they announce.
            let classmates = try await Self.classmates(speakers, sessionID: sessionID, in: sql)
            guard !classmates.isEmpty else { return [] }
            // One statement for the whole room: a phone in a hall of 200 hears up to 199 classmates.
            var insert = sql.insert(into: "session_proximity").columns(
                "session_id", "student_id", "heard_by", "created_at", "announced")
            for (classmate, here) in classmates {
                insert = insert.values(
                    SQLBind(sessionID), SQLBind(classmate), SQLBind(studentID), SQLBind(now), SQLBind(here))
            }
            let inserted = try await insert.ignoringConflicts().returning("student_id")
                .all(decodingColumn: "student_id", as: Int64.self)
            let newly = inserted.filter { classmates[$0] == true }.sorted()
            if !newly.isEmpty {
                try await SessionEvents.append(
                    .heard(SessionChange.Heard(studentIds: newly, heardBy: studentID)), sessionID: sessionID, in: sql)
            }
            return newly
        }
    }

    /// Those of `people` on the session's course roster, each with whether their own check-in put them in the room:
    /// marks by hand say nothing of where their phone was.
    private static func classmates(
        _ people: [Int64], sessionID: Int64, in sql: any SQLDatabase
    ) async throws -> [Int64: Bool] {
        let scanned = [RecordSource.qr, .typed, .spot, .api].map(\.rawValue)
        let rows = try await sql.raw(
            """
            SELECT enrollments.student_id,
              CASE WHEN attendance.status IN ('present', 'late') AND attendance.source IN (\(binds: scanned))
                THEN 1 ELSE 0 END AS here
            FROM sessions JOIN enrollments ON enrollments.course_id = sessions.course_id
            LEFT JOIN attendance ON attendance.session_id = sessions.id
              AND attendance.student_id = enrollments.student_id
            WHERE sessions.id = \(bind: sessionID) AND enrollments.student_id IN (\(binds: people))
            """
        ).all()
        var found: [Int64: Bool] = [:]
        for row in rows {
            found[try row.decode(column: "student_id", as: Int64.self)] =
                try row.decode(column: "here", as: Int.self) == 1
        }
        return found
    }

    /// A student has just checked in themselves: the classmates' phones that heard theirs before now count, each
    /// told to the room as a `heard` event in the same transaction, so the room and its events agree.
    package func announce(_ studentID: Int64, sessionID: Int64) async throws {
        // A read first: most check-ins were heard by nobody before, and must not queue for the write lock.
        let waiting = try await database.read { sql in
            try await sql.select().column("heard_by").from("session_proximity").where("session_id", .equal, sessionID)
                .where("student_id", .equal, studentID).where("announced", .equal, false).first() != nil
        }
        guard waiting else { return }
        try await database.transaction { sql in
            let hearers = try await sql.update("session_proximity").set("announced", to: SQLBind(true))
                .where("session_id", .equal, sessionID).where("student_id", .equal, studentID)
                .where("announced", .equal, false).returning("heard_by")
                .all(decodingColumn: "heard_by", as: Int64.self).sorted()
            guard !hearers.isEmpty else { return }
            try await SessionEvents.append(
                hearers.map { (sessionID, .heard(SessionChange.Heard(studentIds: [studentID], heardBy: $0))) }, in: sql)
        }
    }

    /// Every encounter a report reads: the person's phone hearing others, and others' phones hearing the person's,
    /// last heard within the window; with the names of everyone in them.
    package func sightings(of personID: Int64, from: Date, until: Date) async throws
        -> (sightings: [Proximity.Sighting], names: [Int64: String])
    {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT proximity_encounters.uploader_id AS listener, proximity_ids.user_id AS speaker,
                  proximity_encounters.first_seen, proximity_encounters.last_seen
                FROM proximity_encounters JOIN proximity_ids ON proximity_ids.id = proximity_encounters.pseudo_id
                WHERE (proximity_encounters.uploader_id = \(bind: personID) OR proximity_ids.user_id = \(bind: personID))
                  AND proximity_encounters.last_seen >= \(bind: from) AND proximity_encounters.first_seen <= \(bind: until)
                """
            ).all()
            let sightings = try rows.map { row in
                Proximity.Sighting(
                    listener: try row.decode(column: "listener", as: Int64.self),
                    speaker: try row.decode(column: "speaker", as: Int64.self),
                    firstSeen: try row.decode(column: "first_seen", as: Date.self),
                    lastSeen: try row.decode(column: "last_seen", as: Date.self))
            }
            let people = Set(sightings.flatMap { [$0.listener, $0.speaker] })
            var names: [Int64: String] = [:]
            for chunk in Array(people).chunked(into: 500) {
                for row in try await sql.select().columns("id", "name").from("users")
                    .where("id", .in, SQLBind.group(chunk)).all()
                {
                    names[try row.decode(column: "id", as: Int64.self)] = try row.decode(
                        column: "name", as: String.self)
                }
            }
            return (sightings, names)
        }
    }

    /// Asks the person of a report for their phone's encounters; asking again answers the same request.
    package func request(reportID: Int64, personID: Int64, by officerID: Int64, now: Date) async throws
        -> ProximityRequest
    {
        try await database.transaction { sql in
            try await sql.insert(into: "proximity_requests")
                .columns("report_id", "person_id", "requested_by", "created_at")
                .values(SQLBind(reportID), SQLBind(personID), SQLBind(officerID), SQLBind(now))
                .ignoringConflicts().run()
            guard
                let request = try await sql.select().column("*").from("proximity_requests")
                    .where("report_id", .equal, reportID).first(decoding: ProximityRequest.self, with: .rollcall)
            else { throw NotSaved(what: "proximity request") }
            return request
        }
    }

    /// The request made for a report, if any.
    package func request(reportID: Int64) async throws -> ProximityRequest? {
        try await database.read { sql in
            try await sql.select().column("*").from("proximity_requests").where("report_id", .equal, reportID)
                .first(decoding: ProximityRequest.self, with: .rollcall)
        }
    }

    package static func randomID() -> String {
        SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }.hexadecimal
    }
}

extension Data {
    /// Bytes from hexadecimal digits already checked (`Proximity.pseudoID`).
    package init(hexadecimal text: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for character in text.utf8 {
            let value: UInt8 =
                switch character {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
                default: character - UInt8(ascii: "A") + 10
                }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        self.init(bytes)
    }

    /// The bytes as lowercase hexadecimal digits.
    package var hexadecimal: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension Array {
    /// The elements in consecutive slices of at most `size`, so that one statement binds a bounded number of values.
    package func chunked(into size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
