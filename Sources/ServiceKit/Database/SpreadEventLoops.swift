import Dispatch
import NIOCore

/// NIO's shared event loops as a group that hands out its loops in turn, even to a caller that runs
/// on one of them.
///
/// A connection pool opens its connections from one background task, and NIO's `any()` answers
/// "the loop you are on", so every PostgreSQL connection of a pool would sit on one loop. With Swift
/// concurrency on the same loops (ServiceMain), a request continues on the loop of the connection
/// that answered it, so the whole process's work would gather on one core: measured, one loop at
/// 76 % of a core and the other at 15 % while the machine sat 16 % idle.
final class SpreadEventLoops: EventLoopGroup, Sendable {
    private let base: any EventLoopGroup

    init(_ base: any EventLoopGroup) {
        self.base = base
    }

    func next() -> any EventLoop { base.next() }

    func any() -> any EventLoop { base.next() }

    func makeIterator() -> EventLoopIterator { base.makeIterator() }

    /// The shared loops belong to the process, not to this view: nothing to shut down here.
    func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        queue.async { callback(nil) }
    }

    func _preconditionSafeToSyncShutdown(file: StaticString, line: UInt) {}
}
