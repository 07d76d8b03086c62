/// Which plural form a language uses for a number, read from a catalog's `Plural-Forms` header, the C expression
/// gettext has always used ("nplurals=2; plural=(n > 1);" for French), so that adding a language is adding a file.
public struct PluralRule: Sendable {
    /// How many forms the language has.
    public let count: Int
    private let expression: Expression

    /// English, German, Spanish: one for 1, the other form for every other number.
    public static let english = PluralRule(count: 2, expression: .binary("!=", .n, .constant(1)))

    private init(count: Int, expression: Expression) {
        self.count = count
        self.expression = expression
    }

    /// Reads a `Plural-Forms` header value; nil when it is not one.
    public init?(header: String) {
        var count: Int?
        var expression: Expression?
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "nplurals": count = Int(pair[1])
            case "plural":
                var parser = Parser(text: pair[1])
                expression = parser.parse()
            default: continue
            }
        }
        guard let count, count >= 1, let expression else { return nil }
        self.init(count: count, expression: expression)
    }

    /// The index of the form for `n`, never outside the forms the language has.
    public func form(for n: Int) -> Int {
        let value = expression.value(n: n)
        return value >= 0 && value < count ? value : count - 1
    }

    indirect enum Expression: Sendable {
        case n
        case constant(Int)
        case not(Expression)
        case binary(String, Expression, Expression)
        case choice(Expression, Expression, Expression)

        func value(n: Int) -> Int {
            switch self {
            case .n: return n
            case .constant(let value): return value
            case .not(let inner): return inner.value(n: n) == 0 ? 1 : 0
            case .choice(let test, let yes, let no): return test.value(n: n) != 0 ? yes.value(n: n) : no.value(n: n)
            case .binary(let op, let left, let right):
                let a = left.value(n: n)
                // `&&` and `||` look at the right side only when they must, as C does.
                if op == "&&" { return a != 0 && right.value(n: n) != 0 ? 1 : 0 }
                if op == "||" { return a != 0 || right.value(n: n) != 0 ? 1 : 0 }
                let b = right.value(n: n)
                switch op {
                case "==": return a == b ? 1 : 0
                case "!=": return a != b ? 1 : 0
                case "<": return a < b ? 1 : 0
                case "<=": return a <= b ? 1 : 0
                case ">": return a > b ? 1 : 0
                case ">=": return a >= b ? 1 : 0
                case "%": return b == 0 ? 0 : a % b
                case "+": return a &+ b
                case "-": return a &- b
                case "*": return a &* b
                case "/": return b == 0 ? 0 : a / b
                default: return 0
                }
            }
        }
    }

    /// A recursive descent over C's precedence: `?:`, `||`, `&&`, equality, comparison, `+ -`, `* / %`, `!`.
    struct Parser {
        private var tokens: [String]
        private var position = 0

        init(text: String) {
            var tokens: [String] = []
            var characters = Array(text)[...]
            while let first = characters.first {
                if first.isWhitespace {
                    characters.removeFirst()
                } else if first.isNumber {
                    let digits = characters.prefix(while: \.isNumber)
                    tokens.append(String(digits))
                    characters.removeFirst(digits.count)
                } else {
                    let two = String(characters.prefix(2))
                    if ["==", "!=", "<=", ">=", "&&", "||"].contains(two) {
                        tokens.append(two)
                        characters.removeFirst(2)
                    } else {
                        tokens.append(String(first))
                        characters.removeFirst()
                    }
                }
            }
            self.tokens = tokens
        }

        mutating func parse() -> Expression? {
            guard let expression = choice(), position == tokens.count else { return nil }
            return expression
        }

        private var next: String? { position < tokens.count ? tokens[position] : nil }

        private mutating func take(_ token: String) -> Bool {
            guard next == token else { return false }
            position += 1
            return true
        }

        private mutating func choice() -> Expression? {
            guard let test = binary(level: 0) else { return nil }
            guard take("?") else { return test }
            guard let yes = choice(), take(":"), let no = choice() else { return nil }
            return .choice(test, yes, no)
        }

        private static let levels: [[String]] = [
            ["||"], ["&&"], ["==", "!="], ["<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%"],
        ]

        private mutating func binary(level: Int) -> Expression? {
            guard level < Self.levels.count else { return unary() }
            guard var left = binary(level: level + 1) else { return nil }
            while let op = next, Self.levels[level].contains(op) {
                position += 1
                guard let right = binary(level: level + 1) else { return nil }
                left = .binary(op, left, right)
            }
            return left
        }

        private mutating func unary() -> Expression? {
            if take("!") { return unary().map(Expression.not) }
            if take("(") {
                guard let inner = choice(), take(")") else { return nil }
                return inner
            }
            guard let token = next else { return nil }
            position += 1
            if token == "n" { return .n }
            return Int(token).map(Expression.constant)
        }
    }
}
