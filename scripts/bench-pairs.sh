#!/usr/bin/env bash
# Alternating pairs (docs/performance.md): the default four-process stack, then the one-process stack
# (mfa-all-in-one), each from a fresh database and a fresh STACK_DIR, the same `mfa-bench load` run
# against each, so the ratio between them is measured in the same minutes of the machine. The
# benchmark project hashes passwords cheaply (scrypt N=1024 r=8 p=1): the users and pending
# credentials are made through the public API, and the default N=2^14 would be the bottleneck.
#
#   scripts/bench-pairs.sh PAIRS [mfa-bench load options...]
#   scripts/bench-pairs.sh 2 --scenarios totp-finalize,sms-signin,refresh --pending 14000
#   scripts/bench-pairs.sh 2 --scenarios totp-finalize --users 300 --rate 300
#
# Each run's line goes to standard output prefixed with its shape and pair; the JSON results go to
# BENCH_OUT (default bench-results/), one file per run. Loopback only, like mfa-bench itself.
#
# BENCH_BEFORE=DIR compares builds instead of shapes: each pair runs the four-process stack from the
# executables in DIR (copied from an earlier checkout's .build/release), then from this checkout's;
# the load generator is this checkout's for both.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PAIRS="${1:?usage: scripts/bench-pairs.sh PAIRS [mfa-bench load options...]}"
shift
OUT="${BENCH_OUT:-$ROOT/bench-results}"
mkdir -p "$OUT"
swift build -c release --product mfa-bench >/dev/null
BIN="$(swift build -c release --show-bin-path)"

if [ -n "${BENCH_BEFORE:-}" ]; then RUNS=(before now); else RUNS=(four one); fi

for pair in $(seq 1 "$PAIRS"); do
  for processes in "${RUNS[@]}"; do
    dir="$(mktemp -d "${TMPDIR:-/tmp}/mfa-bench-stack.XXXXXX")"
    # PostgreSQL runs as its own user when we are root: the directory must be reachable by it.
    chmod 755 "$dir"
    case "$processes" in
      before) shape=four; bin_dir="$BENCH_BEFORE" ;;
      now) shape=four; bin_dir="$BIN" ;;
      *) shape="$processes"; bin_dir="" ;;
    esac
    STACK_DIR="$dir" STACK_PROCESSES="$shape" STACK_BIN_DIR="$bin_dir" PASSWORDS_SCRYPT_PROJECTS=demo-project=1024:8:1 \
      scripts/stack.sh up >"$dir/up.log" 2>&1 || { cat "$dir/up.log" >&2; exit 1; }
    "$BIN/mfa-bench" load --password-hashing "scrypt N=1024 r=8 p=1 (benchmark project)" \
      --output "$OUT/$processes-$pair.json" "$@" 2>"$dir/bench.log" | sed "s/^/$processes process(es), pair $pair: /"
    # Resident memory of each process right after the load (the target: under 100 MB per service).
    for pidfile in "$dir"/run/*.pid; do
      printf '%s process(es), pair %s: RSS %s %s KiB\n' "$processes" "$pair" "$(basename "$pidfile" .pid)" \
        "$(ps -o rss= -p "$(cat "$pidfile")" | tr -d ' ')"
    done
    # How many calls the gateway's streams to each peer carried (a build that batches counts them).
    if [ "$shape" = four ]; then
      curl -fsS http://127.0.0.1:9104/metrics 2>/dev/null | awk -v prefix="$processes process(es), pair $pair: " '
        /^mfa_rpc_client_(calls|streams)_total/ {
          match($0, /peer="[^"]*"/); peer = substr($0, RSTART + 6, RLENGTH - 7)
          if ($1 ~ /calls/) calls[peer] += $2; else streams[peer] += $2
        }
        END { for (peer in calls) if (streams[peer] > 0)
          printf "%sgateway to %s: %.2f calls per stream (%d calls)\n", prefix, peer, calls[peer] / streams[peer], calls[peer] }' || true
    fi
    STACK_DIR="$dir" scripts/stack.sh down >/dev/null 2>&1
    rm -rf "$dir"
  done
done
