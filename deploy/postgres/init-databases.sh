#!/bin/sh
# Creates one login role and one database per data service, each database owned by its service's
# role and closed to every other role (REVOKE ... FROM PUBLIC): a service's credentials open its own
# database and nothing else, and no service runs as a superuser.
#
# The postgres image runs it once, on an empty data directory (docker-entrypoint-initdb.d), as the
# superuser POSTGRES_USER; the client tests' production stack runs it against their own cluster
# (psql's usual PGHOST/PGPORT/PGUSER/PGPASSWORD, and a role with CREATEDB and CREATEROLE suffices).
#
# Environment:
#   FACTOR_REGISTRY_DB_PASSWORD, CHALLENGE_ISSUER_DB_PASSWORD, SESSION_TOKEN_DB_PASSWORD  required
#   MFA_DB_NAME_PREFIX  optional: put before every role and database name (several stacks, or test
#                       runs, sharing one server)
#
# No `set -u` and no `exit`: the image sources this file instead of running it when it has lost its
# executable bit, and both would then change or end the image's own entrypoint.
set -e

create_service_database() {
    psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet ${POSTGRES_USER:+--username="$POSTGRES_USER"} \
        --dbname="${POSTGRES_DB:-postgres}" \
        -v name="${MFA_DB_NAME_PREFIX:-}$1" -v password="$2" <<'SQL'
-- psql quotes the values: :"name" as an identifier, :'password' as a literal.
CREATE ROLE :"name" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'password';
-- CREATE DATABASE ... OWNER needs the creator to be a member of the owner unless it is a superuser.
SELECT NOT rolsuper AS creator_needs_membership FROM pg_roles WHERE rolname = current_user \gset
\if :creator_needs_membership
GRANT :"name" TO CURRENT_USER;
\endif
CREATE DATABASE :"name" OWNER :"name";
REVOKE ALL ON DATABASE :"name" FROM PUBLIC;
SQL
}

create_service_database factor_registry "${FACTOR_REGISTRY_DB_PASSWORD:?factor-registry's database password is not set}"
create_service_database challenge_issuer "${CHALLENGE_ISSUER_DB_PASSWORD:?challenge-issuer's database password is not set}"
create_service_database session_token "${SESSION_TOKEN_DB_PASSWORD:?session-token's database password is not set}"
