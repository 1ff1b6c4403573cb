extension Result where Failure == any Error {
    /// `body`'s value or its error, kept for later: two calls made at once can both finish before
    /// the contract's check order decides which refusal, if any, is the answer.
    static func capturing(_ body: () async throws -> Success) async -> Self {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}
