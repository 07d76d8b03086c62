import Foundation
import NIOSSL
import RollcallWords

/// The certificate chain and private key Rollcall serves HTTPS with (`ROLLCALL_TLS_CERT`, `ROLLCALL_TLS_KEY`), PEM
/// files as Let's Encrypt or a campus CA hands them out.
public struct TLSFiles: Sendable, Equatable {
    /// The server's certificate, then any intermediates.
    public var certificatePath: String
    public var keyPath: String

    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    /// Both settings or neither: one alone is a mistake worth stopping for.
    package static func fromEnvironment(certificate: String?, key: String?) throws -> TLSFiles? {
        switch (certificate, key) {
        case (nil, nil):
            return nil
        case (let certificate?, let key?):
            return TLSFiles(certificatePath: certificate, keyPath: key)
        case (_?, nil):
            throw ConfigurationError(
                variable: "ROLLCALL_TLS_KEY",
                problem: "must name the private key's PEM file when ROLLCALL_TLS_CERT is set")
        case (nil, _?):
            throw ConfigurationError(
                variable: "ROLLCALL_TLS_CERT",
                problem: "must name the certificate's PEM file when ROLLCALL_TLS_KEY is set")
        }
    }

    /// Reads both files; a missing, unreadable or malformed file stops the server, naming its variable.
    package func serverConfiguration() throws -> TLSConfiguration {
        let chain = try Self.read(certificatePath, variable: "ROLLCALL_TLS_CERT", what: "certificate") { bytes in
            try NIOSSLCertificate.fromPEMBytes(bytes)
        }
        guard !chain.isEmpty else {
            throw ConfigurationError(
                variable: "ROLLCALL_TLS_CERT", problem: "names \(certificatePath), which holds no PEM certificate")
        }
        let key = try Self.read(keyPath, variable: "ROLLCALL_TLS_KEY", what: "private key") { bytes in
            try NIOSSLPrivateKey(bytes: bytes, format: .pem)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ConfigurationError(
                variable: "ROLLCALL_TLS_KEY",
                problem: "names \(keyPath), which does not fit the certificate in \(certificatePath) (\(error))")
        }
        return configuration
    }

    private static func read<Value>(
        _ path: String, variable: String, what: String, _ parse: ([UInt8]) throws -> Value
    ) throws -> Value {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ConfigurationError(variable: variable, problem: "names \(path), which does not exist")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(variable: variable, problem: "names \(path), which cannot be read")
        }
        do {
            return try parse(Array(data))
        } catch {
            throw ConfigurationError(
                variable: variable, problem: "names \(path), which is not a PEM \(what) (\(error))")
        }
    }
}
