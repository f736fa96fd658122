#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#endif
