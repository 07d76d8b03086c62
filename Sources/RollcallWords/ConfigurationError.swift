/// A setting that cannot be used, naming the variable so the person starting Rollcall can fix it.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var variable: String
    public var problem: String
    public var description: String { "\(variable) \(problem)." }

    public init(variable: String, problem: String) {
        self.variable = variable
        self.problem = problem
    }
}
