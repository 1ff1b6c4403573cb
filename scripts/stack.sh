#!/usr/bin/env bash
# The local stack: PostgreSQL (a private cluster), development certificates and the four services,
# built from this checkout.
#
#   scripts/stack.sh up [--attach]   build, start everything, wait until ready, print the gateway URL.
#                                    --attach stays in the foreground; Ctrl-C stops the stack.
#   scripts/stack.sh down            stop the services and PostgreSQL (data is kept for the next up)
#   scripts/stack.sh status          each service's /readyz
#
# Environment: BUILD_CONFIGURATION (release|debug, default release), STACK_BIN_DIR (run the
# executables in this directory instead of building; scripts/bench-pairs.sh's BENCH_BEFORE), STACK_DIR (default .stack),
# STACK_PG_PORT (default 54329), STACK_PROCESSES (four: one process per service, the default;
# one: the four services in one process, mfa-all-in-one, calling each other in-process). Services read their configuration from the environment
# (deploy/configuration.md); the defaults describe exactly this layout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
STACK_DIR="${STACK_DIR:-$ROOT/.stack}"
PG_PORT="${STACK_PG_PORT:-54329}"
CONFIGURATION="${BUILD_CONFIGURATION:-release}"
PROCESSES="${STACK_PROCESSES:-four}"
case "$PROCESSES" in four|one) ;; *) echo "STACK_PROCESSES must be four or one" >&2; exit 2 ;; esac
SERVICES=(factor-registry challenge-issuer session-token gateway)
declare -A OPS_PORT=([factor-registry]=9101 [challenge-issuer]=9102 [session-token]=9103 [gateway]=9104)
declare -A DATABASE=([factor-registry]=factor_registry [challenge-issuer]=challenge_issuer [session-token]=session_token [gateway]=)

log() { printf '[stack] %s\n' "$*"; }

# PostgreSQL's server runs as the postgres user when we are root; it must be able to reach the
# data directory, which a checkout under a private home directory does not allow. Then the data
# goes to a directory of its own under /var/lib, still private to this checkout.
pg_datadir() {
  local wanted="$STACK_DIR/pgdata"
  if [ "$(id -u)" = 0 ] && id postgres >/dev/null 2>&1; then
    mkdir -p "$STACK_DIR"
    if ! runuser -u postgres -- test -x "$STACK_DIR" 2>/dev/null; then
      local key; key="$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)"
      wanted="/var/lib/mfa-backend-stack/$key/pgdata"
      mkdir -p "$(dirname "$wanted")"; chmod 755 /var/lib/mfa-backend-stack "$(dirname "$wanted")"
    fi
  fi
  echo "$wanted"
}

ensure_toolchain() {
  command -v swift >/dev/null || { echo "swift is not on PATH (Swift 6.2 or newer is needed)" >&2; exit 1; }
  # curl is used to wait for readiness.
  if ! command -v curl >/dev/null; then
    local sudo=""; [ "$(id -u)" != 0 ] && sudo="sudo"
    $sudo apt-get update -qq && $sudo apt-get install -y -qq curl >/dev/null
  fi
  bash "$ROOT/scripts/build-deps.sh"
}

# A service database's URL. By default through PostgreSQL's Unix socket (its data directory, as
# scripts/pg.sh starts it): on one machine that spares the loopback TCP stack on every statement
# (docs/performance-history.md, session 10). STACK_PG_TRANSPORT=tcp connects to 127.0.0.1 instead.
database_url() {
  if [ "${STACK_PG_TRANSPORT:-socket}" = tcp ]; then
    echo "postgres://mfa:mfa@127.0.0.1:$PG_PORT/$1"
  else
    local directory; directory="$(pg_datadir)"
    directory="${directory//%/%25}"; directory="${directory// /%20}"
    echo "postgres://mfa:mfa@localhost:$PG_PORT/$1?host=$directory"
  fi
}

# The process a service runs in: its own, or the single all-in-one process.
process_of() { if [ "$PROCESSES" = one ]; then echo all-in-one; else echo "$1"; fi; }

is_running() { [ -f "$STACK_DIR/run/$1.pid" ] && kill -0 "$(cat "$STACK_DIR/run/$1.pid")" 2>/dev/null; }

up() {
  local started; started=$(date +%s)
  ensure_toolchain
  mkdir -p "$STACK_DIR/logs" "$STACK_DIR/run"
  log "PostgreSQL on 127.0.0.1:$PG_PORT"
  bash "$ROOT/scripts/pg.sh" start "$(pg_datadir)" "$PG_PORT" >/dev/null
  local bin
  if [ -n "${STACK_BIN_DIR:-}" ]; then
    bin="$STACK_BIN_DIR"
    log "running the executables in $bin (not building)"
  else
    if [ -d "$ROOT/.build/$CONFIGURATION" ]; then
      log "building ($CONFIGURATION; after a change, seconds to a few minutes)..."
    else
      log "building ($CONFIGURATION) for the first time: dependencies included, about 15 minutes on 2 cores..."
    fi
    # Progress every tenth of the steps, errors and warnings as they come.
    swift build -c "$CONFIGURATION" 2>&1 | awk '
      /^\[[0-9]+\/[0-9]+\]/ {
        split(substr($1, 2, length($1) - 2), step, "/")
        percent = int(100 * step[1] / step[2])
        if (percent < last) last = 0
        if (percent >= last + 10) { printf "[stack] building: %d%% (%d of %d steps)\n", percent, step[1], step[2]; last = percent; fflush() }
        next
      }
      /error|warning: |Build complete/ { print; fflush() }
    ' || true
    bin="$(swift build -c "$CONFIGURATION" --show-bin-path)"
  fi
  for service in "${SERVICES[@]}" mfa-all-in-one; do
    [ -x "$bin/$service" ] || { echo "build failed: $bin/$service missing" >&2; exit 1; }
  done
  "$bin/mfa-dev-pki" "$STACK_DIR/certs" | sed 's/^/[stack] /'
  # Everything else is the services' defaults (deploy/configuration.md); the environment wins.
  # Development mode is asked for here, explicitly: a service told nothing runs in production
  # (contract decision 16).
  export MFA_MODE="${MFA_MODE:-development}"
  export MFA_TLS_DIRECTORY="${MFA_TLS_DIRECTORY:-$STACK_DIR/certs}" MFA_PUBLIC_TLS_PORT="${MFA_PUBLIC_TLS_PORT:-8443}"
  export MFA_SMS_PRICES_FILE="${MFA_SMS_PRICES_FILE:-$ROOT/deploy/sms-prices.json}"
  if [ "$PROCESSES" = one ]; then
    if is_running all-in-one; then log "all-in-one already running"; else
      # One process, so each service's database is set under its own key (MFA_FACTOR_REGISTRY_POSTGRES_URL...).
      env MFA_FACTOR_REGISTRY_POSTGRES_URL="$(database_url factor_registry)" \
        MFA_CHALLENGE_ISSUER_POSTGRES_URL="$(database_url challenge_issuer)" \
        MFA_SESSION_TOKEN_POSTGRES_URL="$(database_url session_token)" \
        nohup "$bin/mfa-all-in-one" >>"$STACK_DIR/logs/all-in-one.log" 2>&1 &
      echo $! >"$STACK_DIR/run/all-in-one.pid"
    fi
  else
    for service in "${SERVICES[@]}"; do
      if is_running "$service"; then log "$service already running"; continue; fi
      local url=""
      [ -n "${DATABASE[$service]}" ] && url="$(database_url "${DATABASE[$service]}")"
      env ${url:+MFA_POSTGRES_URL="${MFA_POSTGRES_URL:-$url}"} \
        nohup "$bin/$service" >>"$STACK_DIR/logs/$service.log" 2>&1 &
      echo $! >"$STACK_DIR/run/$service.pid"
    done
  fi
  log "waiting for every /readyz..."
  local deadline=$(( $(date +%s) + ${STACK_READY_TIMEOUT:-90} ))
  for service in "${SERVICES[@]}"; do
    local process; process="$(process_of "$service")"
    until curl -fsS "http://127.0.0.1:${OPS_PORT[$service]}/readyz" >/dev/null 2>&1; do
      if ! is_running "$process"; then
        echo "$process exited; last log lines:" >&2; tail -n 20 "$STACK_DIR/logs/$process.log" >&2; exit 1
      fi
      if [ "$(date +%s)" -ge "$deadline" ]; then
        echo "$service not ready in time:" >&2
        curl -sS "http://127.0.0.1:${OPS_PORT[$service]}/readyz" >&2 || true
        tail -n 20 "$STACK_DIR/logs/$process.log" >&2; exit 1
      fi
      sleep 0.5
    done
    log "$service ready (ops http://127.0.0.1:${OPS_PORT[$service]})"
  done
  log "stack up in $(( $(date +%s) - started ))s; logs in $STACK_DIR/logs"
  echo
  echo "Gateway: http://127.0.0.1:8080"
  echo "         https://127.0.0.1:${MFA_PUBLIC_TLS_PORT:-8443} (HTTP/2 or HTTP/1.1; development CA: $STACK_DIR/certs/ca.pem)"
  echo "Demo:    http://127.0.0.1:8080/demo in a browser (sign up, a TOTP QR code, SMS, sign in with a second factor)"
  echo "Try:     curl -s http://127.0.0.1:8080/"
  echo "Admin:   $bin/mfa-admin --help   (the development admin token is \"owner\": MFA_ADMIN_TOKEN=owner)"
  echo "Stop:    scripts/stack.sh down"
}

down() {
  # Whichever way the stack was started (STACK_PROCESSES does not need repeating here).
  for service in gateway session-token challenge-issuer factor-registry all-in-one; do
    if is_running "$service"; then
      local pid; pid="$(cat "$STACK_DIR/run/$service.pid")"
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
      log "$service stopped"
    fi
    rm -f "$STACK_DIR/run/$service.pid"
  done
  bash "$ROOT/scripts/pg.sh" stop "$(pg_datadir)" && log "PostgreSQL stopped"
}

status() {
  for service in "${SERVICES[@]}"; do
    printf '%-17s ' "$service"
    curl -sS "http://127.0.0.1:${OPS_PORT[$service]}/readyz" 2>/dev/null || printf 'not running'
    echo
  done
}

case "${1:-up}" in
  up)
    up
    if [ "${2:-}" = "--attach" ]; then
      trap 'echo; down; exit 0' INT TERM
      log "attached; Ctrl-C stops the stack"
      tail -n 0 -F "$STACK_DIR"/logs/*.log & wait
    fi
    ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up [--attach] | down | status" >&2; exit 2 ;;
esac
