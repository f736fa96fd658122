#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/ec.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

/* A self-signed certificate (P-256, SHA-256, valid `days`) for `san` (e.g.
   "DNS:localhost,IP:127.0.0.1"), written as PEM to cert_path and key_path (0600).
   Returns 0, or -1 with the reason in err. Macros and variadics of OpenSSL live here. */
static inline int bd_make_self_signed(const char *common_name, const char *san, int days, const char *cert_path,
                                      const char *key_path, char *err, size_t errlen) {
    int ok = -1;
    EVP_PKEY *pkey = NULL;
    X509 *x509 = NULL;
    X509_EXTENSION *ext = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    if (ctx == NULL || EVP_PKEY_keygen_init(ctx) <= 0 ||
        EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, NID_X9_62_prime256v1) <= 0 || EVP_PKEY_keygen(ctx, &pkey) <= 0) {
        snprintf(err, errlen, "cannot make a key");
        goto done;
    }
    x509 = X509_new();
    unsigned char serial[16];
    RAND_bytes(serial, sizeof serial);
    serial[0] &= 0x7f;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x509));
    BN_free(bn);
    X509_set_version(x509, 2);
    X509_gmtime_adj(X509_getm_notBefore(x509), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x509), (long)days * 86400);
    X509_set_pubkey(x509, pkey);
    X509_NAME *name = X509_get_subject_name(x509);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)common_name, -1, -1, 0);
    X509_set_issuer_name(x509, name);
    X509V3_CTX v3;
    X509V3_set_ctx(&v3, x509, x509, NULL, NULL, 0);
    ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, san);
    if (ext == NULL || !X509_add_ext(x509, ext, -1)) {
        snprintf(err, errlen, "cannot add the names %s", san);
        goto done;
    }
    if (!X509_sign(x509, pkey, EVP_sha256())) {
        snprintf(err, errlen, "cannot sign the certificate");
        goto done;
    }
    int fd = open(key_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FILE *key_file = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (key_file == NULL || !PEM_write_PrivateKey(key_file, pkey, NULL, NULL, 0, NULL, NULL)) {
        snprintf(err, errlen, "cannot write %s", key_path);
        if (key_file) fclose(key_file);
        goto done;
    }
    fclose(key_file);
    FILE *cert_file = fopen(cert_path, "w");
    if (cert_file == NULL || !PEM_write_X509(cert_file, x509)) {
        snprintf(err, errlen, "cannot write %s", cert_path);
        if (cert_file) fclose(cert_file);
        goto done;
    }
    fclose(cert_file);
    ok = 0;
done:
    X509_EXTENSION_free(ext);
    X509_free(x509);
    EVP_PKEY_free(pkey);
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* The certificate's SHA-256 fingerprint as AA:BB:…, or -1. Also its end of validity
   (seconds from now, negative once expired) in *seconds_left. */
static inline int bd_certificate_facts(const char *pem, char *out, size_t outlen, long *seconds_left) {
    BIO *bio = BIO_new_mem_buf(pem, -1);
    X509 *x509 = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    if (x509 == NULL) return -1;
    unsigned char digest[32];
    unsigned int length = 0;
    X509_digest(x509, EVP_sha256(), digest, &length);
    size_t at = 0;
    for (unsigned int i = 0; i < length && at + 3 < outlen; i++) at += (size_t)snprintf(out + at, outlen - at, i ? ":%02X" : "%02X", digest[i]);
    int days = 0, secs = 0;
    ASN1_TIME_diff(&days, &secs, NULL, X509_get0_notAfter(x509));
    *seconds_left = (long)days * 86400 + secs;
    X509_free(x509);
    return 0;
}
#endif
