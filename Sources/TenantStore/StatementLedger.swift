import Foundation
import Synchronization

/// Which statement types have run in this process, written down only when a test asks for it: the
/// test command's proof that every statement type is run by a Swift test against PostgreSQL
/// (`scripts/statement-coverage.py`).
///
/// Nothing but a test calls ``keep(appendingTo:)``, and no setting reaches it: a service keeps
/// nothing, at the cost of one relaxed atomic load per statement.
public enum StatementLedger {
    private static let keeping = Atomic<Bool>(false)
    private static let ledger = Mutex<Ledger>(Ledger())

    private struct Ledger {
        var file: FileHandle?
        var seen: Set<ObjectIdentifier> = []
    }

    /// From now on, appends the name of each statement type (`Module.Owner.Statement`) to the file at
    /// `path` the first time this process runs it. Later calls keep the first file.
    public static func keep(appendingTo path: String) throws {
        try ledger.withLock { ledger in
            guard ledger.file == nil else { return }
            if !FileManager.default.fileExists(atPath: path) {
                FileManager.default.createFile(atPath: path, contents: nil)
            }
            let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try file.seekToEnd()
            ledger.file = file
        }
        keeping.store(true, ordering: .relaxed)
    }

    static func ran<S: Statement>(_ type: S.Type) {
        guard keeping.load(ordering: .relaxed) else { return }
        ledger.withLock { ledger in
            guard let file = ledger.file, ledger.seen.insert(ObjectIdentifier(type)).inserted else { return }
            // One short write per type, under the lock: this process is the file's only writer while
            // it runs (`swift test` runs its test processes one after another).
            try? file.write(contentsOf: Data((String(reflecting: type) + "\n").utf8))
        }
    }
}
