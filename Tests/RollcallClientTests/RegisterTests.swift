import ClientTestSupport
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import OpenAPIRuntime
import ServerTestSupport
import Testing

@testable import RollcallClient

/// `Rollcall.register` signs the new account in with the registration itself, and still signs in against a server
/// from before that, which registers without signing in.
@Suite("Registering through RollcallClient", .timeLimit(.minutes(5)))
struct RegisterTests {
    /// One request; against a server that does not know `signIn`, a second one signs in.
    @Test(arguments: [(false, ["register"]), (true, ["register", "createAccessToken"])])
    func registering_signs_in(againstAnOldServer old: Bool, sending operations: [String]) async throws {
        try await withServer(setup: .live) { api in
            let sent = Requests(base: Rollcall.defaultTransport(), forgetSignIn: old)
            let client = Rollcall(serverURL: try api.serverURL(), token: nil, transport: sent)
            let (student, user) = try await client.register(
                name: "Rae Register", email: "rae@school.test", password: API.password)
            #expect(sent.operations == operations)
            #expect(try await student.me().id == user.id)
        }
    }

    /// Passes requests to a real server, noting each; with `forgetSignIn`, registrations go without their `signIn`,
    /// as a server that does not know the field reads them.
    final class Requests: ClientTransport, Sendable {
        let base: any ClientTransport
        let forgetSignIn: Bool
        private let sent = NIOLockedValueBox<[String]>([])
        var operations: [String] { sent.withLockedValue { $0 } }

        init(base: any ClientTransport, forgetSignIn: Bool) {
            self.base = base
            self.forgetSignIn = forgetSignIn
        }

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
            -> (HTTPResponse, HTTPBody?)
        {
            sent.withLockedValue { $0.append(operationID) }
            guard forgetSignIn, operationID == "register", let body else {
                return try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
            }
            var fields = try #require(
                try JSONSerialization.jsonObject(with: try await Data(collecting: body, upTo: 1 << 16))
                    as? [String: Any])
            #expect(fields.removeValue(forKey: "signIn") as? String == "token")
            let stripped = HTTPBody(try JSONSerialization.data(withJSONObject: fields))
            return try await base.send(request, body: stripped, baseURL: baseURL, operationID: operationID)
        }
    }
}
