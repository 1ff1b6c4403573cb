#!/usr/bin/env bash
# The Debian packages the tests need besides the build's, installed when missing (as root, or with
# sudo): chromium and chromium-driver, the headless browser the demo page's test drives with
# selenium, zbar-tools, whose zbarimg reads the QR codes the tests are shown, haproxy, the load
# balancer in front of several instances of each service, and patroni with etcd-server, the
# automatic PostgreSQL failover of deploy/patroni (client-tests/test_patroni_failover.py).
set -euo pipefail

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v zbarimg >/dev/null || missing+=(zbar-tools)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
command -v patroni >/dev/null || missing+=(patroni)
command -v etcd >/dev/null || missing+=(etcd-server)
[ "${#missing[@]}" = 0 ] && exit 0

echo "installing ${missing[*]} (needed by the tests)..." >&2
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null

# Where services start on installation, Debian's etcd-server starts a system etcd on 2379. The test
# runs an etcd of its own on free loopback ports and data in its temporary directory; a system one
# would only hold the port and a data directory nobody uses, so it is stopped and not started again.
if [[ " ${missing[*]} " == *" etcd-server "* ]]; then
  if command -v systemctl >/dev/null && systemctl is-active --quiet etcd 2>/dev/null; then
    $sudo systemctl disable --now etcd >/dev/null 2>&1 || true
  elif [ -x /etc/init.d/etcd ] && /etc/init.d/etcd status >/dev/null 2>&1; then
    $sudo /etc/init.d/etcd stop >/dev/null 2>&1 || true
  fi
fi
