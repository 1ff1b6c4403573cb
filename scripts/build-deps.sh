#!/usr/bin/env bash
# The Debian packages the build needs besides Swift itself, installed when missing (as root, or with
# sudo): libssl-dev, OpenSSL 3's libcrypto and headers, which RS256Signing links to sign ID tokens, and
# libqrencode-dev, which draws the QR codes of TOTP enrollments (the demo page, mfa-admin).
set -euo pipefail

missing=()
[ -f /usr/include/openssl/evp.h ] || missing+=(libssl-dev)
[ -f /usr/include/qrencode.h ] || missing+=(libqrencode-dev)
[ "${#missing[@]}" = 0 ] && exit 0

echo "installing ${missing[*]} (needed by the build)..." >&2
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
