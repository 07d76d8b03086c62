import Foundation
import Logging
import NIOConcurrencyHelpers
import RollcallWords

/// Watches the SQLite file under a running server. Deleted (or replaced) under it, the open connections would go on
/// writing to a file nobody will find again; a full disk fails writes. Either way writes are refused with a clear
/// answer, and `/healthz` says so.
package final class StorageWatch: Sendable {
    /// The device and inode of a file: the same path may name another file later.
    package struct Identity: Equatable, Sendable {
        package var device: UInt64
        package var inode: UInt64

        package init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    package let path: String
    private let identity: Identity
    private let logger: Logger
    private struct State {
        package var full = false
        package var goneReported = false
    }

    private let state = NIOLockedValueBox(State())

    /// Makes sure `path` (the database file, created when missing) can be written, and notes which file it is.
    /// A directory Rollcall cannot write stops the server here, naming the setting.
    package init(path: String, logger: Logger) throws {
        self.path = path
        self.logger = logger
        self.identity = try Self.probe(path)
    }

    private static func probe(_ path: String) throws -> Identity {
        func refuse(_ what: String) -> ConfigurationError {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            return ConfigurationError(
                variable: "ROLLCALL_DATA_DIR",
                problem: "names “\(directory)”, where Rollcall cannot keep its database: \(what)")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw refuse("the directory cannot be created (\(error.localizedDescription))")
        }
        // SQLite writes a journal beside the file, so the directory must take new files as well as the file itself.
        let scratch = directory + "/.rollcall-write-check-\(getpid())"
        let scratchDescriptor = open(scratch, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard scratchDescriptor >= 0 else {
            throw refuse("no file can be created in it (\(String(cString: strerror(errno))))")
        }
        close(scratchDescriptor)
        unlink(scratch)
        let descriptor = open(path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else {
            throw refuse("rollcall.sqlite cannot be opened for writing (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw refuse("rollcall.sqlite cannot be examined (\(String(cString: strerror(errno))))")
        }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The file at `path` now, if any.
    private func current() -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Throws `DatabaseFileGone` when the file the server opened is no longer at its path. A `stat`, cheap beside
    /// the transaction it precedes.
    package func checkFile() throws {
        guard current() != identity else { return }
        let first = state.withLockedValue { state in
            defer { state.goneReported = true }
            return !state.goneReported
        }
        if first {
            logger.critical(
                "the database file was deleted or replaced under the running server; writes are refused until restart",
                metadata: ["path": "\(path)"])
        }
        throw DatabaseFileGone()
    }

    /// Throws what `/healthz` reports: the file gone, or the disk full at the last write.
    package func checkHealth() throws {
        try checkFile()
        if state.withLockedValue({ $0.full }) { throw StorageFull() }
    }

    /// Runs a write, noting whether the disk was full: a full disk fails it with `StorageFull`, and the next write
    /// that succeeds clears it.
    package func writing<Result>(_ body: () async throws -> Result) async throws -> Result {
        try checkFile()
        do {
            let result = try await body()
            state.withLockedValue { $0.full = false }
            return result
        } catch let error as SQLiteFailure {
            guard error.isFull else { throw error }
            let first = state.withLockedValue { state in
                defer { state.full = true }
                return !state.full
            }
            if first { logger.critical("the disk holding the database is full", metadata: ["path": "\(path)"]) }
            throw StorageFull()
        }
    }
}
