import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

/// A French teacher's roster from Excel (semicolons, Windows-1252), names in the language's order, and exports a
/// French or German spreadsheet opens as it should.
@Suite("Spreadsheets of every language", .timeLimit(.minutes(5)))
struct SpreadsheetTests {
    @Test func a_semicolon_roster_in_windows_1252_is_read_and_its_names_sorted_by_collation() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, student: "Zoé Zola")
            // As Excel in French saves "CSV (séparateur : point-virgule)": Windows-1252, semicolons.
            var file: [UInt8] = Array("Nom;Courriel;Numéro\r\n".utf8)
            for (name, email) in [
                ("Björn Schröder", "bjorn@school.test"), ("Björn Ångström", "angstrom@school.test"),
                ("Émile Durand", "emile@school.test"),
            ] {
                _ = try await api.register(name, email: email)
                file += Array(name.unicodeScalars.map { UInt8($0.value) }) + Array(";\(email);\r\n".utf8)
            }
            let imported = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/roster-import", as: room.teacher, raw: file,
                contentType: "text/csv")
            #expect(imported.status == .ok, "\(imported.text)")
            #expect(imported.int("enrolled") == 3)
            #expect(imported.string("separator") == "semicolon" && imported.string("encoding") == "windows-1252")

            // The roster, the room and the grid list names as English sorts them, not by their bytes.
            let expected = ["Björn Ångström", "Björn Schröder", "Émile Durand", "Zoé Zola"]
            let roster = try await api.call(.get, "/api/v1/courses/\(room.courseID)/students", as: room.teacher)
            #expect(roster.list("students").compactMap { $0["name"] as? String } == expected, "\(roster.text)")
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            let order = expected.compactMap { page.text.range(of: ">\($0)</a>")?.lowerBound }
            #expect(order.count == 4 && order == order.sorted(), "the room's rows")
            let csv = try await api.csv("/api/v1/courses/\(room.courseID)/report.csv", as: room.teacher)
            #expect(csv.dropFirst().prefix(4).map { $0.first ?? "" } == expected, "the export's rows")
        }
    }

    @Test func exports_take_semicolons_and_decimal_commas_when_asked() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            #expect(try await room.checkIn(api, room.student).status == .created)
            _ = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher,
                json: ["title": "Cours 2, partie A"])
            let path = "/api/v1/courses/\(room.courseID)/report.csv"
            let english = try await api.call(.get, path, as: room.teacher)
            let french = try await api.call(.get, path + "?separator=semicolon", as: room.teacher)
            #expect(french.status == .ok)
            #expect(english.text.contains("\"Cours 2, partie A ("), "\(english.text)")
            #expect(french.text.contains(";Cours 2, partie A ("), "a comma needs no quotes between semicolons")
            // Cass attended the session that counts so far: 100.0 %, which French spreadsheets read as 100,0.
            #expect(english.text.contains(",100.0,") && french.text.contains(";100,0;"), "\(french.text)")
            let tab = try await api.call(.get, path + "?separator=tab", as: room.teacher)
            #expect(tab.text.contains("\tCours 2, partie A ("))
            try await api.expectRefused(
                .get, path + "?separator=pipe", as: room.teacher, status: .badRequest, code: "invalid_separator")
        }
    }
}
