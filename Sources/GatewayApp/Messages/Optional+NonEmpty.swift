extension String? {
    /// The string, unless it is empty: the contract answers an empty member as a missing one.
    var nonEmpty: String? {
        guard let text = self, !text.isEmpty else { return nil }
        return text
    }
}
