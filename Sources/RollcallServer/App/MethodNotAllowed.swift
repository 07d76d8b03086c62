import HTTPTypes
import Hummingbird

extension Router where Context == AppRequestContext {
    /// Answers every method a path does not take with 405 and the methods it does take in `Allow`, as the API
    /// description promises, instead of the router's 404. Call it once every route is added.
    func answerOtherMethods() {
        let methods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete]
        let byPath = Dictionary(grouping: routes, by: \.path.description)
        for (_, routes) in byPath {
            let path = routes[0].path
            let taken = Set(routes.map(\.method))
            let allow = methods.filter(taken.contains).map(\.rawValue).joined(separator: ", ")
            for method in methods where !taken.contains(method) {
                on(path, method: method) { _, _ -> Response in
                    var error = AppError(
                        .methodNotAllowed, "method_not_allowed", "This address does not accept \(method.rawValue).")
                    error.headers[.allow] = allow
                    throw error
                }
            }
        }
    }
}
