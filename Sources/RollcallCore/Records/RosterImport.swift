/// A roster file read and checked row by row before anything is stored: either every row is good, or the teacher
/// gets every bad row with what is wrong with it.
public enum RosterImport {
    /// One student the file names.
    public struct Entry: Equatable, Sendable {
        public var line: Int
        public var name: String
        public var email: String
        public var studentNumber: String?

        public init(line: Int, name: String, email: String, studentNumber: String?) {
            self.line = line
            self.name = name
            self.email = email
            self.studentNumber = studentNumber
        }
    }

    /// What is wrong with one row, by its line in the file.
    public struct RowError: Equatable, Sendable {
        public var line: Int
        /// Stable, like every error code Rollcall gives (`invalid_email`, `duplicate_email`…).
        public var code: String
        public var message: Phrase

        public init(line: Int, code: String, message: Phrase) {
            self.line = line
            self.code = code
            self.message = message
        }
    }

    public static let maxRows = 2000

    /// Column headers Rollcall recognises, in English, French, German and Spanish: lower-cased, without accents,
    /// spaces, dashes, dots and underscores.
    static let nameHeaders: Set<String> = [
        "name", "fullname", "student", "studentname", "nom", "nomcomplet", "etudiant", "vollername", "studierende",
        "nombre", "nombrecompleto", "estudiante", "alumno",
    ]
    /// A full name's column, taken before any other.
    static let fullNameHeaders: Set<String> = ["fullname", "studentname", "nomcomplet", "vollername", "nombrecompleto"]
    /// Given and family names in columns of their own, as French, German and Spanish exports have them ("Nom;Prénom":
    /// "Nom" alone is the family name, which would greet "Hello PÉREZ"): both are joined, given name first.
    static let givenNameHeaders: Set<String> = ["prenom", "prenoms", "firstname", "givenname", "vorname", "nombre"]
    static let familyNameHeaders: Set<String> = [
        "nom", "nomdefamille", "lastname", "surname", "familyname", "nachname", "name", "apellido", "apellidos",
    ]
    static let emailHeaders: Set<String> = [
        "email", "emailaddress", "mail", "courriel", "adresseelectronique", "mel", "emailadresse", "correo",
        "correoelectronico",
    ]
    static let numberHeaders: Set<String> = [
        "studentnumber", "number", "studentid", "id", "matriculationnumber", "numero", "numeroetudiant", "matricule",
        "matrikelnummer", "matrikelnr", "numerodeestudiante", "matricula",
    ]

    /// Checks every row: columns name, email and student number (optional), found by a header row when there is
    /// one, else in that order. Answers the entries, or every row's problem.
    public static func check(_ rows: [CSV.Row]) -> Result<[Entry], RowErrors> {
        let (entries, errors) = read(rows)
        return errors.isEmpty ? .success(entries) : .failure(RowErrors(errors))
    }

    /// The rows that read as students, and every row that does not, so that a caller can add its own checks of the
    /// good rows and report every problem of a file at once.
    public static func read(_ rows: [CSV.Row]) -> (entries: [Entry], errors: [RowError]) {
        guard !rows.isEmpty else {
            return ([], [RowError(line: 1, code: "empty_file", message: "The file has no students in it.")])
        }
        var columns = (name: [0], email: 1, number: 2 as Int?)
        var body = rows[...]
        if let header = headerColumns(rows[0].fields) {
            columns = header
            body = rows.dropFirst()
        }
        guard body.count <= maxRows else {
            return (
                [],
                [
                    RowError(
                        line: body.first?.line ?? 1, code: "too_many_rows",
                        message: "Import at most \(maxRows) students at a time; this file has \(body.count).")
                ]
            )
        }
        var entries: [Entry] = []
        var errors: [RowError] = []
        var emails: [String: Int] = [:]
        var numbers: [String: Int] = [:]
        for row in body {
            do {
                let (name, email, number) = try student(row, columns: columns)
                if let first = emails[email] {
                    errors.append(
                        RowError(
                            line: row.line, code: "duplicate_email",
                            message: "\(email) is already on line \(first) of this file."))
                    continue
                }
                if let number, let first = numbers[number] {
                    errors.append(
                        RowError(
                            line: row.line, code: "duplicate_student_number",
                            message: "Student number \(number) is already on line \(first) of this file."))
                    continue
                }
                emails[email] = row.line
                if let number { numbers[number] = row.line }
                entries.append(Entry(line: row.line, name: name, email: email, studentNumber: number))
            } catch {
                errors.append(
                    RowError(line: row.line, code: error.code, message: error.message))
            }
        }
        if entries.isEmpty && errors.isEmpty {
            errors.append(RowError(line: 1, code: "empty_file", message: "The file has a header but no students."))
        }
        return (entries, errors)
    }

    /// One row's name, address and student number, each checked as an account's.
    private static func student(_ row: CSV.Row, columns: (name: [Int], email: Int, number: Int?)) throws(RuleViolation)
        -> (name: String, email: String, number: String?)
    {
        func field(_ index: Int?) -> String {
            guard let index, index < row.fields.count else { return "" }
            return row.fields[index].trimmingWhitespace()
        }
        let name = try AccountRules.name(columns.name.map { field($0) }.joined(separator: " "))
        let email = try AccountRules.email(field(columns.email))
        let rawNumber = field(columns.number)
        return (name, email, rawNumber.isEmpty ? nil : try AccountRules.studentNumber(rawNumber))
    }

    /// Every bad row of a file.
    public struct RowErrors: Error, Equatable, Sendable {
        public var rows: [RowError]
        public init(_ rows: [RowError]) { self.rows = rows }
    }

    /// The columns named by a header row, or `nil` when the first row is a student.
    static func headerColumns(_ fields: [String]) -> (name: [Int], email: Int, number: Int?)? {
        let keys = fields.map { field in
            String(
                field.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                    .filter { !$0.isWhitespace && $0 != "_" && $0 != "-" && $0 != "." })
        }
        guard let email = keys.firstIndex(where: emailHeaders.contains) else { return nil }
        let given = keys.firstIndex(where: givenNameHeaders.contains)
        let family = keys.firstIndex(where: familyNameHeaders.contains)
        let name: [Int] =
            if let full = keys.firstIndex(where: fullNameHeaders.contains) {
                [full]
            } else if let given, let family {
                [given, family]
            } else {
                [keys.firstIndex(where: nameHeaders.contains) ?? (email == 0 ? 1 : 0)]
            }
        return (name, email, keys.firstIndex(where: numberHeaders.contains))
    }
}
