import AuthVocabulary

/// The kind a factor provider serves, in the plugins' own vocabulary: plugins depend on the plugin
/// kit alone, and this is the same type the contracts between services carry.
public typealias FactorKind = AuthVocabulary.FactorKind
