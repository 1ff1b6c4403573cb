import Testing

/// The in-process statement suites of this target that start factor-registry with its two peers, each test on
/// databases of its own, run one test at a time: side by side, dozens of three-service starts
/// starve one another (and the rest of the run) of a 2-core machine's CPU, and a tenant's
/// provisioning then times out.
@Suite(.serialized) enum RegistryStatements {}
