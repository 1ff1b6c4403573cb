#!/bin/sh
# Hands services their own key material from the PKI directory that mfa-dev-pki wrote: the CA
# certificate, and for each named service its certificate, its private key and its master key (when
# it has one: session-token, challenge-issuer). The CA's private key is never copied.
#
#   distribute.sh PKI_DIR DEST_DIR SERVICE...
#
# docker-compose's certs job calls it once per service volume (once for mfa-all-in-one's, with all
# four services); the client tests' production stack calls it the same way. With CERTS_OWNER
# (uid:gid) set, the copies belong to that user: the services' images run as uid 10001.
set -eu

pki="$1"
dest="$2"
shift 2
[ "$#" -gt 0 ] || { echo "usage: distribute.sh PKI_DIR DEST_DIR SERVICE..." >&2; exit 2; }

# Copies are made private first, then opened up where they are public (certificates), so a key is
# never readable by others, not even for a moment.
umask 077
mkdir -p "$dest"

# copy MODE FILE: one file from the PKI into DEST_DIR, with MODE and CERTS_OWNER.
copy() {
    cp "$pki/$2" "$dest/$2.new"
    if [ -n "${CERTS_OWNER:-}" ]; then chown "$CERTS_OWNER" "$dest/$2.new"; fi
    chmod "$1" "$dest/$2.new"
    mv -f "$dest/$2.new" "$dest/$2"
}

copy 0644 ca.pem
for service in "$@"; do
    copy 0644 "$service.pem"
    copy 0400 "$service-key.pem"
    if [ -f "$pki/$service-master.key" ]; then
        copy 0400 "$service-master.key"
    fi
done

# Only the owner may list the directory; the services mount it read-only.
if [ -n "${CERTS_OWNER:-}" ]; then chown "$CERTS_OWNER" "$dest"; fi
chmod 0700 "$dest"
