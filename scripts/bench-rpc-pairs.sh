#!/usr/bin/env bash
# Alternating `mfa-bench rpc` runs (docs/performance.md, "A call between services"): an empty
# service.ping to factor-registry over mutual TLS and HTTP/2, the stack of the executables in
# BENCH_BEFORE (an earlier checkout's .build/release), then this checkout's, each a fresh stack. Each
# build calls with its own `mfa-bench` (its RPC client is half of what is measured; a build whose
# client batches also prints how many calls a stream carried). Each line ends with the CPU the
# called process used over the run's 12 s (warm-up and measurement), in clock ticks (`getconf
# CLK_TCK` per second).
#
#   BENCH_BEFORE=DIR scripts/bench-rpc-pairs.sh ROUNDS [mfa-bench rpc options...]
#   BENCH_BEFORE=DIR scripts/bench-rpc-pairs.sh 3
#   BENCH_BEFORE=DIR scripts/bench-rpc-pairs.sh 1 --concurrency 1
#
# Loopback only, like mfa-bench itself.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ROUNDS="${1:?usage: BENCH_BEFORE=DIR scripts/bench-rpc-pairs.sh ROUNDS [mfa-bench rpc options...]}"
shift
BEFORE="${BENCH_BEFORE:?BENCH_BEFORE must name a directory of earlier executables}"
swift build -c release >/dev/null
NOW="$(swift build -c release --show-bin-path)"

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

for round in $(seq 1 "$ROUNDS"); do
  for build in before now; do
    dir="$(mktemp -d "${TMPDIR:-/tmp}/mfa-rpc-bench.XXXXXX")"
    # PostgreSQL runs as its own user when we are root: the directory must be reachable by it.
    chmod 755 "$dir"
    bin_dir=$([ "$build" = before ] && echo "$BEFORE" || echo "$NOW")
    STACK_DIR="$dir" STACK_BIN_DIR="$bin_dir" scripts/stack.sh up >"$dir/up.log" 2>&1 || { cat "$dir/up.log" >&2; exit 1; }
    called="$(cat "$dir/run/factor-registry.pid")"
    start="$(ticks "$called")"
    output="$("$bin_dir/mfa-bench" rpc --duration 10 --certificates "$dir/certs" "$@" 2>/dev/null)"
    line="$(grep '/s, p50' <<<"$output" || true)"
    batching="$(grep '^calls per stream' <<<"$output" || true)"
    echo "$build, round $round: $line${batching:+; $batching}; called side's CPU $(( $(ticks "$called") - start )) ticks"
    STACK_DIR="$dir" scripts/stack.sh down >/dev/null 2>&1
    rm -rf "$dir"
  done
done
