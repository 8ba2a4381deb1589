#ifndef REORDER_CJWT_SHIM_H
#define REORDER_CJWT_SHIM_H
// libjwt 1.10 (Debian libjwt-dev) verifies and signs JWTs. ReorderAuth also calls libcrypto for
// what libjwt 1.10 does not do: a constant-time HMAC comparison (libjwt compares with strcmp) and
// telling the type and curve of a public key (libjwt re-reads the PEM on every verify and says
// only "EINVAL").
#include <jwt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

/// EVP_PKEY_EC and EVP_PKEY_RSA are macros of macros (NID_*): returned as plain ints.
static inline int reorder_evp_pkey_ec(void) { return EVP_PKEY_EC; }
static inline int reorder_evp_pkey_rsa(void) { return EVP_PKEY_RSA; }

#endif
