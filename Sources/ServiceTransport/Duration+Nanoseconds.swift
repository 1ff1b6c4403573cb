extension Duration {
    /// The whole nanoseconds of a duration: what NIO's `TimeAmount` and Dispatch's deadlines take.
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
