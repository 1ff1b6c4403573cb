#!/usr/bin/env bash
# Checks docker-compose.yml and docker-compose.all-in-one.yml: compose's own syntax and schema check
# (Debian's docker-compose 1.29 does it without a Docker engine, so it runs on build machines too;
# build contexts must exist, though), then scripts/check_compose.py on what compose made of each file
# (production mode, each service only its own key material, only the gateway's ports published, no
# private key made readable). Both with deploy/compose.env.example as the operator's .env: as it is,
# compose must refuse it (its secrets are empty on purpose); filled in, both files must pass.
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

# Relative paths in the compose file (build context, init script) resolve from the repository root.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
example=deploy/compose.env.example
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A Python with PyYAML: the test tools' (scripts/test.sh), else the one Debian's docker-compose runs on.
python=""
for candidate in "${MFA_TEST_PYTHON:-}" .venv-test/bin/python /usr/bin/python3 python3; do
    if [ -n "$candidate" ] && "$candidate" -c 'import yaml' >/dev/null 2>&1; then
        python="$candidate"
        break
    fi
done
[ -n "$python" ] || { echo "validate-compose: no Python with PyYAML found" >&2; exit 1; }

# The example as it ships: every required secret empty, so compose must stop and say where to set it.
for file in docker-compose.yml docker-compose.all-in-one.yml; do
    if docker-compose --env-file "$example" -f "$file" config -q 2>"$work/refused"; then
        echo "$file: starts with $example's empty secrets; every secret must be required" >&2
        exit 1
    fi
    grep -q "set it in .env" "$work/refused" || { cat "$work/refused" >&2; exit 1; }
done

# The example filled in as its comments say (a generated value for each empty required variable).
while IFS= read -r line; do
    if [[ "$line" =~ ^(MFA_[A-Z0-9_]+)=$ ]]; then
        echo "${BASH_REMATCH[1]}=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    else
        echo "$line"
    fi
done <"$example" >"$work/filled.env"

for file in docker-compose.yml docker-compose.all-in-one.yml; do
    docker-compose --env-file "$work/filled.env" -f "$file" config -q
    docker-compose --env-file "$work/filled.env" -f "$file" config >"$work/config.yml"
    "$python" scripts/check_compose.py "$work/config.yml" "$file"
    echo "$file: valid"
done
