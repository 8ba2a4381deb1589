#ifndef REORDER_CJWT_SHIM_H
#define REORDER_CJWT_SHIM_H
// libjwt 1.10 (Debian libjwt-dev) decodes, verifies and signs JWTs. ReorderAuth also calls
// libcrypto for what libjwt 1.10 does not do: a constant-time HMAC comparison (libjwt compares
// with strcmp), telling the type and curve of a public key, and verifying against a key parsed
// once (libjwt parses the PEM text again on every verify).
#include <jwt.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

/// EVP_PKEY_EC and EVP_PKEY_RSA are macros of macros (NID_*): returned as plain ints.
static inline int reorder_evp_pkey_ec(void) { return EVP_PKEY_EC; }
static inline int reorder_evp_pkey_rsa(void) { return EVP_PKEY_RSA; }

#endif
