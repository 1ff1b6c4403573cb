// The parts of the system's OpenSSL 3 libcrypto that RS256Signing uses (Debian: libssl-dev).
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
