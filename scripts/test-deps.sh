#!/usr/bin/env bash
# The Debian packages the tests need besides the build's, installed when missing (as root, or with
# sudo): chromium and chromium-driver, the headless browser the demo page's test drives with
# selenium, zbar-tools, whose zbarimg reads the QR codes the tests are shown, and haproxy, the load
# balancer in front of several instances of each service.
set -euo pipefail

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v zbarimg >/dev/null || missing+=(zbar-tools)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
[ "${#missing[@]}" = 0 ] && exit 0

echo "installing ${missing[*]} (needed by the tests)..." >&2
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
