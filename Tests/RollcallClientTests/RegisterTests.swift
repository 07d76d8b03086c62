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
    @Test func registering_signs_in_with_one_request() async throws {
        try await withServer(setup: .live) { api in
            let sent = Requests(base: Rollcall.defaultTransport(), forgetSignIn: false)
            let client = Rollcall(serverURL: try api.serverURL(), token: nil, transport: sent)
            let (student, user) = try await client.register(
                name: "Rae Register", email: "rae@school.test", password: API.password)
            #expect(sent.operations == ["register"])
            #expect(try await student.me().id == user.id)
        }
    }

    @Test func against_a_server_that_does_not_sign_in_it_signs_in_after() async throws {
        try await withServer(setup: .live) { api in
            let sent = Requests(base: Rollcall.defaultTransport(), forgetSignIn: true)
            let client = Rollcall(serverURL: try api.serverURL(), token: nil, transport: sent)
            let (student, user) = try await client.register(
                name: "Old Server", email: "old@school.test", password: API.password)
            #expect(sent.operations == ["register", "createAccessToken"])
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
