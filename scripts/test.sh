#!/usr/bin/env bash
# Runs every test, the way CI does: starts a private PostgreSQL, builds, runs the Swift test suites
# (unit, PostgreSQL, and system tests that start the real service processes), fuzzes the parsers
# for 40 seconds each (scripts/fuzz.sh), then checks docker-compose.yml, then runs the Python client
# tests against the four processes and, for what differs in it, against mfa-all-in-one. Exits
# non-zero on any failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The layering and the format, first: they take seconds. Each target declares exactly the modules
# it imports (the build's own check below covers the package's targets; this covers other packages'
# products and unused dependencies too), and the code is as `swift format` (.swift-format) writes it.
echo "== layering and format"
python3 scripts/package-dependencies.py
# Every "contract §x.y" and "decision N" cited in code and docs names a part of docs/contract.md.
python3 scripts/contract-references.py
swift format lint --strict --parallel --recursive Sources Tests Package.swift Fuzz/Sources Fuzz/Package.swift
# SQL text reaches a statement only as TenantStore's SQLText (literals of our own code, schema-qualified
# names): PostgresNIO's raw splices stay inside the few TenantStore files that wrap them, and the
# migrations' own literal statements.
raw_sql="$(grep -rn --include=*.swift -e '(unescaped:' -e 'unsafeSQL:' Sources \
  | grep -v -e '^Sources/TenantStore/SQLText.swift:' -e '^Sources/TenantStore/CachedQuery.swift:' \
    -e '^Sources/TenantStore/TenantSchema.swift:' -e '^Sources/TenantStore/TenantMigrator.swift:' || true)"
if [ -n "$raw_sql" ]; then
  echo "raw SQL splices outside TenantStore's SQLText:" >&2
  echo "$raw_sql" >&2
  exit 1
fi
# Each table is named by its one owning repository only, and no statement's rows are decoded as a
# positional tuple (docs/architecture.md, "Statements and tables").
python3 scripts/statement-ownership.py
# Every data-service RPC method is called by at least one Swift test.
python3 scripts/method-coverage.py

# Below Linux's ephemeral range (32768-60999), so no client socket can hold it; the next port is
# tried when one is taken anyway. TEST_PG_PORT names a port to use as the first choice.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PG_PORT="${TEST_PG_PORT:-25439}"
# The server runs as the postgres user when we are root: its directory must be reachable by it.
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mfa-test.XXXXXX")"
chmod 755 "$WORK"
PGDATA_DIR="$WORK/pgdata"

cleanup() {
  bash "$ROOT/scripts/pg.sh" stop "$PGDATA_DIR" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Durability off: a test cluster is thrown away, and fsync dominates its run time. More connections
# than the stack's 300: the system test suites run side by side, and each data service keeps its
# whole pool (8) open.
for attempt in 1 2 3 4 5 6 7 8; do
  while port_in_use "$PG_PORT"; do PG_PORT=$((PG_PORT + 1)); done
  # PGROLE_CREATEROLE: the client tests' production stack creates a role per service and run.
  if PGROLE_CREATEROLE=1 PG_EXTRA_OPTIONS="-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=600" \
    bash scripts/pg.sh start "$PGDATA_DIR" "$PG_PORT" >/dev/null 2>&1; then
    break
  fi
  if [ "$attempt" = 8 ] || ! grep -q "already in use" "$PGDATA_DIR/server.log" 2>/dev/null; then
    cat "$PGDATA_DIR/server.log" >&2 || true
    exit 1
  fi
  PG_PORT=$((PG_PORT + 1))
done
echo "== PostgreSQL on 127.0.0.1:$PG_PORT"
export MFA_TEST_POSTGRES_URL="postgres://mfa:mfa@127.0.0.1:$PG_PORT"

echo "== build"
bash scripts/build-deps.sh
# Progress lines and one dependency's resource warning are noise; errors and warnings stay visible.
swift build --build-tests --explicit-target-dependency-import-check error 2>&1 | sed -E '/^\[[0-9]+\/[0-9]+\]|unhandled; explicitly declare/d'
export MFA_TEST_BIN_DIR="$(swift build --show-bin-path)"
export MFA_TEST_PG_SCRIPT="$ROOT/scripts/pg.sh"

echo "== test tools (Python: independent clients and real protocol peers such as an SMTP server; a headless browser)"
bash scripts/test-deps.sh
# A virtual environment kept between runs in the checkout (git ignores it); created on a fresh clone.
VENV="$ROOT/.venv-test"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -r client-tests/requirements.txt
export MFA_TEST_PYTHON="$VENV/bin/python"

echo "== swift test"
# Each statement type the tests run is written down, then every declared one must be there
# (scripts/statement-coverage.py: every statement run by a Swift test against PostgreSQL).
STATEMENT_LEDGER="$(mktemp)"
MFA_TEST_STATEMENT_LEDGER="$STATEMENT_LEDGER" swift test --skip-build
python3 scripts/statement-coverage.py "$STATEMENT_LEDGER"
rm -f "$STATEMENT_LEDGER"

echo "== fuzz (libFuzzer: the public body parser, the JSON-RPC envelope and WebAuthn's parsers, a bounded time each)"
bash scripts/fuzz.sh "${MFA_FUZZ_SECONDS:-40}"

echo "== docker-compose.yml"
bash scripts/validate-compose.sh

# Each test file runs in one of MFA_TEST_WORKERS (3) pytest-xdist workers, each with its own stacks,
# databases and ports (conftest.free_port): the tests mostly wait on the services, so three workers
# take a third of the time on 2 cores (16.8 → 6.3 minutes against four processes, 9.8 → 3.6 against one).
WORKERS="${MFA_TEST_WORKERS:-3}"
echo "== python tests (independent clients against the real processes)"
"$VENV/bin/python" -m pytest -q -n "$WORKERS" --dist loadfile client-tests

# One process differs from four in how the services reach each other (in-process calls: the caller
# policies, errors, deadlines and cancellation without a network), how they start, stop and fail
# together, and in their listeners, pools and tracer. These files exercise exactly that: the shape
# itself, modes, production, the hot flows and their races, refresh, faults and restarts, tenant
# provisioning, long-deadline imports, blocking functions (signing in session-token), the real
# clients, the listeners and what the ops side shows. Every other behaviour is the same code in
# both shapes and is tested above, against four processes.
ONE_PROCESS_FILES=(
  test_all_in_one.py test_deployment_modes.py test_production_stack.py
  test_mfa_totp.py test_mfa_sms.py test_mfa_policy.py test_single_use.py test_finalize_retries.py
  test_token_refresh.py test_sign_up.py test_sign_in_with_password.py
  test_mfa_faults.py test_database_restarts.py test_tenants.py test_import_users.py test_blocking_functions.py
  test_firebase_admin.py test_sdk_surface.py test_slow_clients.py test_public_tls.py test_monitoring.py test_traces.py
)
echo "== python tests again, against the four services in one process (mfa-all-in-one): what differs in it"
MFA_TEST_PROCESSES=one "$VENV/bin/python" -m pytest -q -n "$WORKERS" --dist loadfile "${ONE_PROCESS_FILES[@]/#/client-tests/}"
