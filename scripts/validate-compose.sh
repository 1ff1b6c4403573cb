#!/usr/bin/env bash
# Checks docker-compose.yml and docker-compose.all-in-one.yml for syntax and schema errors. Debian's docker-compose 1.29 does this
# without a Docker engine, so it runs on build machines too; build contexts must exist, though.
set -euo pipefail

if ! command -v docker-compose >/dev/null 2>&1; then
    # Escalate only when needed and possible (CI containers usually run as root without sudo).
    sudo=()
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    fi
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose
fi

# Relative paths in the compose file (build context, init.sql) resolve from the repository root.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for file in docker-compose.yml docker-compose.all-in-one.yml; do
    docker-compose -f "$file" config -q
    echo "$file: valid"
done
