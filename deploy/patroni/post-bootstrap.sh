#!/bin/sh
# Patroni's bootstrap.post_bootstrap: run once, on the member that initialised the cluster, before
# any replica exists, with a superuser connection string as $1 (over the Unix socket) and PGPASSFILE
# set. Creates the services' roles and databases exactly as deploy/postgres/init-databases.sh does
# for compose: that script, given the connection string as the database to connect to. Its passwords
# (FACTOR_REGISTRY_DB_PASSWORD, CHALLENGE_ISSUER_DB_PASSWORD, SESSION_TOKEN_DB_PASSWORD) come from
# Patroni's environment (patroni.env.example).
#
# Install the two side by side (/etc/patroni/post-bootstrap.sh, /etc/patroni/init-databases.sh), or
# name the other's path in MFA_INIT_DATABASES. The schemas inside each database are the services'
# own: each creates and migrates them itself on the leader (docs/operations.md).
set -e
here="$(cd "$(dirname "$0")" && pwd)"
script="${MFA_INIT_DATABASES:-$here/init-databases.sh}"
[ -f "$script" ] || script="$here/../postgres/init-databases.sh"  # run from a checkout of the repository
POSTGRES_DB="$1" sh "$script"
