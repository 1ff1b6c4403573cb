import JSONRPC

extension JSONValue {
    /// The string, unless it is empty: the contract answers an empty member as a missing one.
    var nonEmptyString: String? {
        guard let text = stringValue, !text.isEmpty else { return nil }
        return text
    }
}
