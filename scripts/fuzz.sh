#!/usr/bin/env bash
# Fuzzes what reads the network's bytes first, with libFuzzer (the Swift toolchain's
# `-sanitize=fuzzer`, and AddressSanitizer): the public API's body parser (FuzzPublicBody), the
# JSON-RPC envelope (FuzzRPCEnvelope) and WebAuthn's parsers (FuzzWebAuthn). Each runs for SECONDS (default 40) from the seeds in
# Fuzz/Corpus/<target>; what it finds new stays in a scratch corpus, never in the repository. A
# crash, a failed check, a hang over 10 s or a leak fails the run and leaves the input in the
# scratch directory, named by libFuzzer, with the command to replay it.
#
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${1:-40}"
# Its own build directory: the instrumentation applies to every module it compiles.
SCRATCH="${MFA_FUZZ_BUILD:-$ROOT/.build-fuzz}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mfa-fuzz.XXXXXX")"

# lld: gold stops with an internal error on the instrumented link.
swift build --package-path "$ROOT/Fuzz" --scratch-path "$SCRATCH" -c release \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld 2>&1 \
  | sed -E '/^\[[0-9]+\/[0-9]+\]|unhandled; explicitly declare/d'
BIN="$(swift build --package-path "$ROOT/Fuzz" --scratch-path "$SCRATCH" -c release --show-bin-path)"

# libFuzzer reports a crash itself; Swift's backtracer on top of AddressSanitizer can hang instead.
export SWIFT_BACKTRACE=enable=no
status=0
for target in public-body:FuzzPublicBody rpc-envelope:FuzzRPCEnvelope webauthn:FuzzWebAuthn; do
  corpus="${target%%:*}"
  binary="${target##*:}"
  mkdir -p "$WORK/$corpus"
  echo "== $binary: ${SECONDS_EACH}s"
  # Bodies up to the public limit's first MiB are what the gateway reads; 64 KiB covers the shapes.
  if ! (cd "$WORK" && "$BIN/$binary" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 "$WORK/$corpus" "$ROOT/Fuzz/Corpus/$corpus" 2>"$WORK/$binary.log"); then
    tail -40 "$WORK/$binary.log" >&2
    echo "$binary failed; the input is in $WORK (replay: $BIN/$binary <file>)" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added|cov:" "$WORK/$binary.log" | tail -3
  fi
done
[ "$status" = 0 ] && rm -rf "$WORK"
exit "$status"
