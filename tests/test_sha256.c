/* Tests for sim/sha256: FIPS 180-4 / NIST CAVP test vectors, padding
 * boundaries and streaming in uneven chunks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"

static void expect_digest(const void *data, size_t len, const char *hex)
{
	uint8_t d[SHA256_DIGEST_LEN];
	char got[SHA256_HEX_LEN + 1];
	sha256(data, len, d);
	sha256_hex(d, got);
	assert_string_equal(got, hex);
}

static void test_empty(void **state)
{
	(void)state;
	expect_digest("", 0,
		      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	expect_digest(NULL, 0,
		      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_abc(void **state)
{
	(void)state;
	expect_digest("abc", 3,
		      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_448_bits(void **state)
{
	(void)state;
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	assert_int_equal(strlen(m) * 8, 448);
	expect_digest(m, strlen(m),
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_896_bits(void **state)
{
	(void)state;
	const char *m = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
			"hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	assert_int_equal(strlen(m) * 8, 896);
	expect_digest(m, strlen(m),
		      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

/* Lengths around the 56-byte padding boundary and the block size. */
static void test_padding_boundaries(void **state)
{
	(void)state;
	static const struct {
		size_t len;
		const char *hex;
	} v[] = {
		{55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
		{56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
		{63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
		{64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
		{119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
	};
	char buf[128];
	memset(buf, 'a', sizeof buf);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		expect_digest(buf, v[i].len, v[i].hex);
}

/* One million 'a' (FIPS 180-2 appendix B.3), fed in chunks of 1..97 bytes
 * so that partial blocks are carried across every offset. */
static void test_million_a_streamed(void **state)
{
	(void)state;
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[SHA256_HEX_LEN + 1];
	char chunk[97];
	memset(chunk, 'a', sizeof chunk);
	sha256_init(&ctx);
	size_t left = 1000000, step = 1;
	while (left) {
		size_t n = step < left ? step : left;
		sha256_update(&ctx, chunk, n);
		left -= n;
		step = step % sizeof chunk + 1;
	}
	sha256_update(&ctx, NULL, 0);
	sha256_final(&ctx, d);
	sha256_hex(d, hex);
	assert_string_equal(hex,
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_abc),
		cmocka_unit_test(test_448_bits),
		cmocka_unit_test(test_896_bits),
		cmocka_unit_test(test_padding_boundaries),
		cmocka_unit_test(test_million_a_streamed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
