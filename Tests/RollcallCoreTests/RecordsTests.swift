import RollcallCore
import Testing

@Suite("Status points", .timeLimit(.minutes(5)))
struct StatusPointsTests {
    @Test func the_standard_points_are_two_one_one_nothing() throws {
        let points = StatusPoints.standard
        #expect([points[.present], points[.late], points[.excused], points[.absent]] == [2, 1, 1, 0])
        #expect(try points.validated() == points)
    }

    @Test(arguments: [
        StatusPoints(present: 0, late: 0, excused: 0, absent: 0),
        StatusPoints(present: 2, late: 3, excused: 1, absent: 0),
        StatusPoints(present: 2, late: 1, excused: 1, absent: 5),
        StatusPoints(present: 101, late: 1, excused: 1, absent: 0),
        StatusPoints(present: 2, late: -1, excused: 1, absent: 0),
    ])
    func points_that_make_no_grade_are_refused(points: StatusPoints) {
        #expect(throws: RuleViolation.self) { try points.validated() }
    }

    @Test func every_status_may_earn_as_much_as_present() throws {
        let generous = StatusPoints(present: 100, late: 100, excused: 100, absent: 100)
        #expect(try generous.validated() == generous)
        do {
            _ = try StatusPoints(present: 1, late: 2, excused: 0, absent: 0).validated()
            Issue.record("late above present was accepted")
        } catch {
            #expect(error.code == "invalid_points")
            #expect(error.message.description.contains("late"))
        }
    }
}

@Suite("Attendance summary", .timeLimit(.minutes(5)))
struct AttendanceSummaryTests {
    @Test func nothing_counts_before_any_session() {
        let summary = AttendanceSummary(statuses: [], points: .standard)
        #expect(summary.sessions == 0)
        #expect(summary.percentage == nil)
        #expect(summary.grade == nil)
        #expect(summary.counts == [.present: 0, .late: 0, .excused: 0, .absent: 0])
        #expect(!summary.isBelow(100), "nobody is an absentee before anything counts")
    }

    @Test func late_counts_as_attended_and_excused_leaves_the_denominator() {
        let summary = AttendanceSummary(statuses: [.present, .late, .excused, .absent, .present], points: .standard)
        #expect(summary.counts == [.present: 2, .late: 1, .excused: 1, .absent: 1])
        #expect(summary.sessions == 5)
        #expect(summary.percentage == 75)  // 3 attended of 4 not excused
        #expect(summary.points == 6)  // 2 + 1 + 1 + 0 + 2
        #expect(summary.maxPoints == 10)
        #expect(summary.grade == 60)
        #expect(summary.isBelow(80))
        #expect(!summary.isBelow(75), "the threshold itself is not below")
    }

    @Test func all_excused_has_no_percentage_but_a_grade() {
        let summary = AttendanceSummary(statuses: [.excused, .excused], points: .standard)
        #expect(summary.percentage == nil)
        #expect(summary.grade == 50)
    }

    @Test func the_grade_follows_the_course_points() {
        let points = StatusPoints(present: 10, late: 5, excused: 10, absent: 0)
        let summary = AttendanceSummary(statuses: [.late, .excused, .absent, .present], points: points)
        #expect(summary.points == 25)
        #expect(summary.maxPoints == 40)
        #expect(summary.grade == 62.5)
    }

    @Test func a_session_counts_once_it_has_a_record_or_has_closed_with_the_student_on_the_roster() {
        #expect(AttendanceSummary.countedStatus(record: .late, closed: false, onRoster: true) == .late)
        #expect(AttendanceSummary.countedStatus(record: nil, closed: false, onRoster: true) == nil)
        #expect(AttendanceSummary.countedStatus(record: nil, closed: true, onRoster: true) == .absent)
        #expect(AttendanceSummary.countedStatus(record: nil, closed: true, onRoster: false) == nil)
        #expect(AttendanceSummary.countedStatus(record: .excused, closed: true, onRoster: false) == .excused)
    }

    @Test func the_percentage_stays_between_zero_and_a_hundred_for_any_record() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let statuses = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                AttendanceStatus.allCases.randomElement(using: &random)!
            }
            let summary = AttendanceSummary(statuses: statuses, points: .standard)
            #expect(summary.counts.values.reduce(0, +) == statuses.count)
            if let percentage = summary.percentage { #expect((0...100).contains(percentage)) }
            if let grade = summary.grade { #expect((0...100).contains(grade)) }
        }
    }
}

@Suite("CSV", .timeLimit(.minutes(5)))
struct CSVTests {
    @Test func plain_rows_split_on_commas_and_line_ends() throws {
        let rows = try CSV.parse("name,email\r\nAda,ada@x.edu\nGrace,grace@x.edu")
        #expect(rows.map(\.fields) == [["name", "email"], ["Ada", "ada@x.edu"], ["Grace", "grace@x.edu"]])
        #expect(rows.map(\.line) == [1, 2, 3])
    }

    @Test func quoted_fields_hold_commas_quotes_and_line_breaks() throws {
        let rows = try CSV.parse("\"Hopper, Grace\",\"said \"\"hi\"\"\",\"two\nlines\"\nnext,row,here\n")
        #expect(rows[0].fields == ["Hopper, Grace", "said \"hi\"", "two\nlines"])
        #expect(rows[1].fields == ["next", "row", "here"])
        #expect(rows[1].line == 3, "the line count includes the break inside the quoted field")
    }

    @Test func blank_lines_and_a_byte_order_mark_are_skipped_and_empty_fields_kept() throws {
        let rows = try CSV.parse("\u{FEFF}a,,c\n\n\r\n,b,\n")
        #expect(rows.map(\.fields) == [["a", "", "c"], ["", "b", ""]])
        #expect(rows.map(\.line) == [1, 4])
        #expect(try CSV.parse("") == [])
        #expect(try CSV.parse("\"\",x").map(\.fields) == [["", "x"]])
    }

    @Test func malformed_quotes_name_their_line() {
        #expect(throws: CSV.ParseError.unterminatedQuote(line: 2)) { try CSV.parse("ok\n\"never closed,x\ny") }
        #expect(throws: CSV.ParseError.textAfterQuote(line: 1)) { try CSV.parse("\"closed\"then more,x") }
        #expect(CSV.ParseError.unterminatedQuote(line: 2).message.description.contains("Line 2"))
    }

    @Test(arguments: ["-3.5", "+2", "-0.25e3", "-7", "+1E-2", "-.5"])
    func plain_signed_numbers_stay_numbers(field: String) throws {
        #expect(try CSV.parse(CSV.line([field]))[0].fields == [field])
    }

    @Test func written_lines_read_back_to_the_same_fields() throws {
        let fields = ["Hopper, Grace", "\"quoted\"", "two\nlines", "", "plain", "Ünïcödé 名前", "-3.5"]
        let rows = try CSV.parse(CSV.line(fields) + CSV.line(["x"]))
        #expect(rows.map(\.fields) == [fields, ["x"]])
    }

    @Test(arguments: [
        "=HYPERLINK(\"http://evil\")", "+1+1", "-2+3", "@SUM(A1)", "-inf", "-nan", "+0x1p4", "+infinity", "-NaN",
        "-1e", "+.", "-",
    ])
    func formulas_are_written_as_text(field: String) throws {
        let rows = try CSV.parse(CSV.line([field]))
        #expect(rows[0].fields == ["'" + field])
    }

    @Test func random_text_never_crashes_the_reader() {
        var random = SeededRandom(seed: 11)
        let alphabet: [Character] = ["a", ",", "\"", "\n", "\r", " ", "é"]
        for _ in 0..<2000 {
            let text = String(
                (0..<Int.random(in: 0...30, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            do {
                let rows = try CSV.parse(text)
                #expect(rows.allSatisfy { !$0.fields.isEmpty && $0.line >= 1 })
            } catch {
                #expect(!error.message.description.isEmpty)
            }
        }
    }
}

@Suite("Roster import", .timeLimit(.minutes(5)))
struct RosterImportTests {
    func rows(_ text: String) throws -> [CSV.Row] { try CSV.parse(text) }

    @Test func a_file_without_a_header_is_name_email_number() throws {
        let entries = try RosterImport.check(rows("Ada Lovelace, ADA@x.edu ,s-1\nGrace Hopper,grace@x.edu,")).get()
        #expect(
            entries == [
                .init(line: 1, name: "Ada Lovelace", email: "ada@x.edu", studentNumber: "S-1"),
                .init(line: 2, name: "Grace Hopper", email: "grace@x.edu", studentNumber: nil),
            ])
    }

    @Test func a_header_row_may_put_the_columns_in_any_order() throws {
        let text = "Student number;ignored,E-mail,Full name\n7,grace@x.edu,Grace Hopper\n,ada@x.edu,Ada"
        let entries = try RosterImport.check(rows(text)).get()
        #expect(entries.map(\.email) == ["grace@x.edu", "ada@x.edu"])
        #expect(entries.map(\.name) == ["Grace Hopper", "Ada"])
        let header = try RosterImport.check(rows("email,name,student_id\nada@x.edu,Ada,A1")).get()
        #expect(header == [.init(line: 2, name: "Ada", email: "ada@x.edu", studentNumber: "A1")])
    }

    @Test func given_and_family_names_in_their_own_columns_make_the_full_name() throws {
        // "Nom" alone is the family name in a French export: greeting by it said "Hello PÉREZ".
        let french = try RosterImport.check(rows("Nom,Prénom,Courriel\nPÉREZ,María,maria@x.edu")).get()
        #expect(french.map(\.name) == ["María PÉREZ"])
        let german = try RosterImport.check(rows("Name,Vorname,E-Mail\nWeber,Jonas,jonas@x.edu")).get()
        #expect(german.map(\.name) == ["Jonas Weber"])
        let spanish = try RosterImport.check(rows("Apellidos,Nombre,Correo\nGarcía López,Ana,ana@x.edu")).get()
        #expect(spanish.map(\.name) == ["Ana García López"])
        let full = try RosterImport.check(rows("Nom complet,Courriel\nMaría Pérez,maria@x.edu")).get()
        #expect(full.map(\.name) == ["María Pérez"])
    }

    @Test func every_bad_row_is_reported_with_its_line_and_nothing_is_accepted() throws {
        let text = """
            name,email,student number
            Ada,ada@x.edu,1
            ,nobody@x.edu,
            Bob,not-an-email,
            Cy,ADA@x.edu,
            Di,di@x.edu,has space
            Ed,ed@x.edu,1
            """
        guard case .failure(let errors) = RosterImport.check(try rows(text)) else {
            Issue.record("a file with bad rows was accepted")
            return
        }
        #expect(errors.rows.map(\.line) == [3, 4, 5, 6, 7])
        #expect(
            errors.rows.map(\.code) == [
                "invalid_name", "invalid_email", "duplicate_email", "invalid_student_number",
                "duplicate_student_number",
            ])
        #expect(errors.rows[2].message.description.contains("line 2"))
        #expect(errors.rows.allSatisfy { $0.message.description.count > 10 })
    }

    @Test func empty_files_and_huge_files_are_refused() throws {
        #expect(throws: RosterImport.RowErrors.self) { try RosterImport.check([]).get() }
        #expect(throws: RosterImport.RowErrors.self) { try RosterImport.check(rows("name,email")).get() }
        let many = (0...RosterImport.maxRows).map { "S\($0),s\($0)@x.edu" }.joined(separator: "\n")
        guard case .failure(let errors) = RosterImport.check(try rows(many)) else {
            Issue.record("too many rows were accepted")
            return
        }
        #expect(errors.rows.map(\.code) == ["too_many_rows"])
    }
}

/// Files as French, German and older Windows spreadsheets save them, and exports for them.
@Suite("CSV of every spreadsheet", .timeLimit(.minutes(5)))
struct SpreadsheetCSVTests {
    @Test func the_encoding_is_found_from_the_bytes() throws {
        let utf8 = Array("Name,Email\nJosé Müller,jm@school.test\n".utf8)
        #expect(CSV.decode(utf8)?.encoding == .utf8)
        #expect(CSV.decode([0xEF, 0xBB, 0xBF] + utf8)?.text.hasPrefix("Name") == true, "the mark is dropped")
        // Windows-1252: ü is 0xFC, € is 0x80, ’ is 0x92.
        let windows: [UInt8] = Array("Jos".utf8) + [0xE9, 0x20, 0x4D, 0xFC] + Array("ller ".utf8) + [0x80, 0x92]
        let read = try #require(CSV.decode(windows))
        #expect(read.encoding == .windows1252 && read.text == "José Müller €’")
        #expect(CSV.decode([0x41, 0x81]) == nil, "0x81 is not a Windows-1252 character")
        #expect(CSV.decode([0x41, 0x00, 0x42]) == nil, "a NUL: not a text file")
        // UTF-16 with its mark, little- and big-endian, as "Unicode text" saves it.
        let little: [UInt8] = [0xFF, 0xFE] + "Åsa\tå".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(CSV.decode(little)?.text == "Åsa\tå" && CSV.decode(little)?.encoding == .utf16)
        let big: [UInt8] = [0xFE, 0xFF] + "Åsa".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(CSV.decode(big)?.text == "Åsa")
        #expect(CSV.decode([0xFF, 0xFE, 0x41]) == nil, "an odd number of bytes")
    }

    @Test func the_separator_is_found_from_the_first_row() {
        #expect(CSV.separator(of: "name,email\na;b,c") == .comma)
        #expect(CSV.separator(of: "Nom;Courriel;Numéro\nA;b;c") == .semicolon)
        #expect(
            CSV.separator(of: "\"Dupont, Jean\";jean@school.test\n") == .semicolon, "a comma in quotes does not count")
        #expect(CSV.separator(of: "\n\nname\temail\n") == .tab, "blank lines first")
        #expect(CSV.separator(of: "a,b;c\n") == .comma, "a tie is commas")
        #expect(CSV.separator(of: "Jean Dupont\n") == .comma, "one column")
    }

    @Test func semicolons_and_tabs_are_read_like_commas() throws {
        let rows = try CSV.parse("Nom;Courriel\n\"Dupont; Jean\";jean@school.test\n", separator: .semicolon)
        #expect(rows.map(\.fields) == [["Nom", "Courriel"], ["Dupont; Jean", "jean@school.test"]])
        #expect(try CSV.parse("a,b\tc\n", separator: .tab).map(\.fields) == [["a,b", "c"]])
    }

    @Test func an_export_for_french_spreadsheets_takes_semicolons_and_decimal_commas() throws {
        let text =
            CSV.line(["Name", "Points", "Rate"]) + CSV.line(["Dupont, Jean", "2.5", "10"]) + "\r\n"
            + CSV.line(["=cmd", "-1.25", "1.2.3"])
        let french = try CSV.reseparated(text, as: .semicolon)
        #expect(french == "Name;Points;Rate\r\nDupont, Jean;2,5;10\r\n\r\n'=cmd;-1,25;1.2.3\r\n")
        #expect(try CSV.reseparated(text, as: .comma) == text)
        #expect(try CSV.reseparated(CSV.line(["a;b", "x\ny"]), as: .semicolon) == "\"a;b\";\"x\ny\"\r\n")
    }
}
