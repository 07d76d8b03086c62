#if os(Linux)
    import AsyncHTTPClient
    import Foundation
    import HTTPTypes
    import NIOCore
    import NIOHTTP1
    import OpenAPIRuntime

    /// Sends each request through AsyncHTTPClient with its body whole: one buffer of known length.
    ///
    /// A streamed body of known length fails with `bodyLengthMismatch` when the server refuses the request (any
    /// status from 300) after the request's head and before the stream has ended: AsyncHTTPClient stops sending the
    /// body, then counts it short. Rollcall refuses that early whenever a token may not make a call, so a `forbidden`
    /// came back as "could not be reached". A body given whole is written together with the head, before any answer
    /// can be read. Rollcall's request bodies are small JSON documents and CSV files, held in memory anyway.
    struct WholeBodyTransport: ClientTransport {
        /// Why a request could not be sent.
        struct InvalidAddress: Error, CustomStringConvertible {
            var description: String
        }

        var client: HTTPClient = .shared
        /// How long one request may take, answer included.
        var timeout: TimeAmount = .minutes(1)

        func send(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
        ) async throws -> (HTTPResponse, HTTPBody?) {
            var outgoing = HTTPClientRequest(url: try Self.address(of: request, under: baseURL))
            outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
            for field in request.headerFields {
                outgoing.headers.add(name: field.name.canonicalName, value: field.value)
            }
            if let body {
                outgoing.body = .bytes(ByteBuffer(bytes: try await [UInt8](collecting: body, upTo: .max)))
            }
            let answer = try await client.execute(outgoing, timeout: timeout)

            var fields = HTTPFields()
            for header in answer.headers {
                guard let name = HTTPField.Name(header.name) else { continue }
                fields.append(HTTPField(name: name, value: header.value))
            }
            let response = HTTPResponse(status: .init(code: Int(answer.status.code)), headerFields: fields)
            switch request.method {
            case .head, .connect, .trace: return (response, nil)
            default:
                let length = fields[.contentLength].flatMap { Int64($0) }.map(HTTPBody.Length.known) ?? .unknown
                let content = HTTPBody(
                    answer.body.map { $0.readableBytesView }, length: length, iterationBehavior: .single)
                return (response, content)
            }
        }

        /// The request's path and query, under the base URL's own path.
        static func address(of request: HTTPRequest, under baseURL: URL) throws -> String {
            if var address = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
                let target = URLComponents(string: request.path ?? "")
            {
                address.percentEncodedPath += target.percentEncodedPath
                address.percentEncodedQuery = target.percentEncodedQuery
                if let url = address.url { return url.absoluteString }
            }
            throw InvalidAddress(description: "\(request.path ?? "") under \(baseURL.absoluteString)")
        }
    }
#endif
