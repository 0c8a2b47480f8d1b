/*
 * sha256 — SHA-256 message digest (FIPS 180-4, section 6.2), used to record
 * the content hash of machine, cost-profile and scenario files in results
 * (provenance: a result row names the exact bytes it was computed from).
 *
 * Streaming interface (init / update / final) plus a one-shot helper.
 * Invariants: ctx->buflen < 64 between calls; ctx->bytes counts every byte
 * passed to sha256_update().  No allocation, no failure modes: inputs of any
 * length up to 2^61 - 1 bytes are digested.
 */
#ifndef NUMASIM_SHA256_H
#define NUMASIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64

struct sha256_ctx {
	uint32_t h[8];         /* intermediate hash value H(i) */
	uint64_t bytes;        /* message length so far, in bytes */
	uint8_t buf[64];       /* partial block */
	size_t buflen;
};

void sha256_init(struct sha256_ctx *ctx);
void sha256_update(struct sha256_ctx *ctx, const void *data, size_t len);
/* Pad, finish and write the 32-byte digest; ctx must be re-initialised
 * before reuse. */
void sha256_final(struct sha256_ctx *ctx, uint8_t out[SHA256_DIGEST_LEN]);

/* Digest of one buffer. */
void sha256(const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN]);
/* Lower-case hex of a digest into hex[SHA256_HEX_LEN + 1] (NUL-terminated). */
void sha256_hex(const uint8_t digest[SHA256_DIGEST_LEN],
		char hex[SHA256_HEX_LEN + 1]);

#endif
