#!/usr/bin/env bash
# A private PostgreSQL cluster for the local stack and the tests: its own data directory, port and
# socket directory, nothing under /etc or /var/log. Works as root (CI) and as a normal user.
#
#   scripts/pg.sh start DATADIR PORT   initialise if needed, start, create role and databases
#   scripts/pg.sh stop DATADIR         stop (fast shutdown)
#   scripts/pg.sh status DATADIR       exit 0 when running
#
# PGROLE_CREATEROLE=1 also lets the role create roles: test clusters only, where the client tests'
# production stack creates a role per service and run (deploy/postgres/init-databases.sh). In PostgreSQL
# 15 CREATEROLE can grant itself nearly a superuser's powers, so the local stack's role never has it
# (nor pg_signal_backend, which test clusters grant so a test's teardown can end those roles' sessions).
set -euo pipefail

PGROLE="${PGROLE:-mfa}"
PGPASSWORD_APP="${PGPASSWORD_APP:-mfa}"
DATABASES=(factor_registry challenge_issuer session_token)

find_bin() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

install_postgres() {
  echo "PostgreSQL not found; installing Debian's postgresql package..." >&2
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
}

PGBIN="$(find_bin)"
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
  install_postgres
  PGBIN="$(find_bin)"
fi

# initdb refuses to run as root: run the server as the postgres user then.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cmd="${1:-}"; datadir="${2:-}"
[ -n "$cmd" ] && [ -n "$datadir" ] || { echo "usage: $0 start|stop|status DATADIR [PORT]" >&2; exit 2; }
mkdir -p "$(dirname "$datadir")"
datadir="$(cd "$(dirname "$datadir")" && pwd)/$(basename "$datadir")"

case "$cmd" in
  start)
    port="${3:?port required}"
    if [ ! -f "$datadir/PG_VERSION" ]; then
      mkdir -p "$datadir"
      if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$datadir"; fi
      chmod 700 "$datadir"
      as_pg "$PGBIN/initdb" -D "$datadir" -U postgres -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
      fresh=1
    fi
    if ! as_pg "$PGBIN/pg_ctl" -D "$datadir" status >/dev/null 2>&1; then
      # commit_delay: under load (4+ other transactions open) a commit waits up to 0.5 ms so that one
      # WAL flush covers several commits; every commit is still flushed before it is acknowledged.
      # Measured in docs/performance-history.md (session 9): +13 % TOTP sign-ins per second on 2 cores.
      as_pg "$PGBIN/pg_ctl" -D "$datadir" -l "$datadir/server.log" -w -t 60 start \
        -o "-p $port -k $datadir -c listen_addresses=127.0.0.1 -c max_connections=300 -c commit_delay=500 -c commit_siblings=4 ${PG_EXTRA_OPTIONS:-}" >/dev/null
    fi
    "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 30
    psql_pg() { as_pg "$PGBIN/psql" -q -h "$datadir" -p "$port" -U postgres -v ON_ERROR_STOP=1 "$@"; }
    if [ "$(psql_pg -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$PGROLE'")" != 1 ]; then
      psql_pg -c "CREATE ROLE \"$PGROLE\" LOGIN CREATEDB PASSWORD '$PGPASSWORD_APP'"
    fi
    if [ "${PGROLE_CREATEROLE:-}" = 1 ]; then
      psql_pg -c "ALTER ROLE \"$PGROLE\" CREATEROLE"
      # A test dropping its databases WITH (FORCE) ends the per-service roles' lingering connections.
      psql_pg -c "GRANT pg_signal_backend TO \"$PGROLE\""
    fi
    for db in "${DATABASES[@]}"; do
      if [ "$(psql_pg -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]; then
        psql_pg -c "CREATE DATABASE \"$db\" OWNER \"$PGROLE\""
      fi
    done
    echo "postgres://$PGROLE:$PGPASSWORD_APP@127.0.0.1:$port"
    ;;
  stop)
    if [ -f "$datadir/postmaster.pid" ]; then
      as_pg "$PGBIN/pg_ctl" -D "$datadir" -m fast -w stop >/dev/null || true
    fi
    ;;
  status)
    as_pg "$PGBIN/pg_ctl" -D "$datadir" status >/dev/null 2>&1
    ;;
  *)
    echo "unknown command $cmd" >&2; exit 2 ;;
esac
