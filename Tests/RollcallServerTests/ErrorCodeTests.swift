import Foundation
import RollcallCore
import RollcallProtocol
import Testing

@testable import RollcallServer

/// The stable error codes: one enum, each code documented where clients read the API.
@Suite("Error codes", .timeLimit(.minutes(5)))
struct ErrorCodeTests {
    static let description: String = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/RollcallWords/Resources/openapi.yaml").path
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }()

    @Test func every_code_is_lower_snake_case() {
        for code in ErrorCode.allCases {
            #expect(
                code.rawValue.allSatisfy { $0.isLowercase || $0 == "_" } && !code.rawValue.hasPrefix("_"),
                "\(code.rawValue)")
        }
    }

    @Test func every_code_is_documented_in_the_api_description() {
        #expect(!Self.description.isEmpty, "openapi.yaml is read")
        // `<thing>_not_found` is documented as a family; every other code by name.
        let undocumented = ErrorCode.allCases.map(\.rawValue).filter { code in
            !code.hasSuffix("_not_found") && !Self.description.contains("`\(code)`")
        }
        #expect(undocumented.isEmpty, "codes clients cannot look up: \(undocumented)")
    }
}
