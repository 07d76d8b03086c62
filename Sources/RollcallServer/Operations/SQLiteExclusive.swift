import Foundation
import NIOPosix
import RollcallStorage
import SQLKit

/// The server's SQLite file held by the command alone, which is how a running server is told from a stopped one.
///
/// Every connection to a WAL database holds a shared lock on its file for as long as it is open, and a server keeps
/// its connections open while it runs. Asking for the exclusive lock without waiting therefore fails while any server
/// (or any other process) has the file open, and once it is granted no server can open the file until it is let go.
/// SQLite keeps these locks between the connections of one process too, so a server in the same process is seen.
final class SQLiteExclusive: @unchecked Sendable {
    // Used by one task, the command's, from taking to letting go.
    private let connection: SQLiteFileConnection
    let path: String

    /// Takes the file at `path` for the command alone, or refuses because something has it open.
    init(path: String) throws {
        self.path = path
        connection = try SQLiteFileConnection(path: path, create: false, pragmas: ["PRAGMA busy_timeout = 0"])
        do {
            try connection.run("PRAGMA locking_mode = EXCLUSIVE", binds: []) { _ in }
            try connection.run("BEGIN EXCLUSIVE", binds: []) { _ in }
            try connection.run("COMMIT", binds: []) { _ in }
        } catch let failure as SQLiteFailure where failure.code & 0xFF == 5 {  // SQLITE_BUSY
            connection.close()
            throw OperationRefused(
                message:
                    "A Rollcall server (or another program) has \(path) open: stop every server of this data directory first."
            )
        } catch {
            connection.close()
            throw error
        }
    }

    /// Folds the WAL into the file and leaves it in rollback-journal mode, so that no `-wal` file of this database
    /// stays beside the path to be read into whatever file comes to bear its name.
    func settle() throws {
        try connection.run("PRAGMA wal_checkpoint(TRUNCATE)", binds: []) { _ in }
        try connection.run("PRAGMA journal_mode = DELETE", binds: []) { _ in }
    }

    /// The held connection through SQLKit, to read the file while no one else can write it.
    var sql: any SQLDatabase {
        SQLiteFileDatabase(
            connection: connection, logger: Operations.logger, eventLoop: MultiThreadedEventLoopGroup.singleton.next())
    }

    /// Lets the file go: the next server to start may open it.
    func release() {
        connection.close()
    }
}
