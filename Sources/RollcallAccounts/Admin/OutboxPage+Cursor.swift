import Hummingbird
import RollcallModel
import RollcallWords

extension OutboxPage {
    /// `?before=ID`: the page after the one whose `nextCursor` this is.
    static func cursor(_ request: Request) throws -> Int64? {
        guard let text = request.query("before") else { return nil }
        guard let before = Int64(text), before > 0 else {
            throw AppError(
                .badRequest, .invalidBefore,
                "“before” must be the nextCursor of the page before, a message id such as 42.")
        }
        return before
    }
}
