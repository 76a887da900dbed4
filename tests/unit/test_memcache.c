/* memcached's text protocol as net.memcached speaks it (src/net/memcache.c):
 * the responses to a get and a set parsed whole, a byte at a time and in
 * pieces, to the same result; what is refused and why; the requests and
 * keys written out; the SET:GET mix read. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/net/memcache.h"

#define L(s) s, sizeof(s) - 1

struct rcase {
	const char *name;
	enum mc_op op;
	const char *in;
	size_t len;
	int r;                 /* what the whole input gives */
	enum mc_status status; /* r == 1 */
	uint64_t value_len;
	size_t used;           /* r == 1: the bytes that were the response */
};

static const struct rcase rcases[] = {
	{ "hit", MC_GET, L("VALUE k1 0 5\r\nhello\r\nEND\r\n"), 1, MC_HIT, 5, 26 },
	{ "hit with flags and cas", MC_GET, L("VALUE k1 4294967295 3 77\r\nabc\r\nEND\r\n"), 1, MC_HIT, 3, 36 },
	{ "an empty value", MC_GET, L("VALUE k1 0 0\r\n\r\nEND\r\n"), 1, MC_HIT, 0, 21 },
	{ "a value holding END and \\r\\n", MC_GET, L("VALUE k1 0 7\r\nEND\r\n\r\n\r\nEND\r\n"), 1, MC_HIT, 7, 28 },
	{ "miss", MC_GET, L("END\r\n"), 1, MC_MISS, 0, 5 },
	{ "stored", MC_SET, L("STORED\r\n"), 1, MC_STORED, 0, 8 },
	{ "not stored", MC_SET, L("NOT_STORED\r\n"), 1, MC_NOT_STORED, 0, 12 },
	{ "error to a get", MC_GET, L("ERROR\r\n"), 1, MC_ERROR, 0, 7 },
	{ "client error to a set", MC_SET, L("CLIENT_ERROR bad data chunk\r\n"), 1, MC_CLIENT_ERROR, 0, 29 },
	{ "server error to a set", MC_SET, L("SERVER_ERROR out of memory storing object\r\n"), 1, MC_SERVER_ERROR, 0,
	  43 },
	{ "server error without a message", MC_GET, L("SERVER_ERROR\r\n"), 1, MC_SERVER_ERROR, 0, 14 },
	{ "incomplete line", MC_GET, L("VALUE k1 0 5\r"), 0, 0, 0, 0 },
	{ "incomplete value", MC_GET, L("VALUE k1 0 5\r\nhel"), 0, 0, 0, 0 },
	{ "no END yet", MC_GET, L("VALUE k1 0 5\r\nhello\r\n"), 0, 0, 0, 0 },
	{ "another key", MC_GET, L("VALUE k2 0 5\r\nhello\r\nEND\r\n"), -EINVAL, 0, 0, 0 },
	{ "a key longer", MC_GET, L("VALUE k10 0 5\r\nhello\r\nEND\r\n"), -EINVAL, 0, 0, 0 },
	{ "two values to one key", MC_GET, L("VALUE k1 0 1\r\na\r\nVALUE k1 0 1\r\nb\r\nEND\r\n"), -EINVAL, 0, 0, 0 },
	{ "a value too long for its count", MC_GET, L("VALUE k1 0 3\r\nhello\r\nEND\r\n"), -EINVAL, 0, 0, 0 },
	{ "a bare \\n", MC_SET, L("STORED\n"), -EINVAL, 0, 0, 0 },
	{ "lower case", MC_SET, L("stored\r\n"), -EINVAL, 0, 0, 0 },
	{ "a set's answer to a get", MC_GET, L("STORED\r\n"), -EINVAL, 0, 0, 0 },
	{ "a get's answer to a set", MC_SET, L("END\r\n"), -EINVAL, 0, 0, 0 },
	{ "EXISTS to a set", MC_SET, L("EXISTS\r\n"), -EINVAL, 0, 0, 0 },
	{ "flags over 32 bits", MC_GET, L("VALUE k1 4294967296 1\r\na\r\nEND\r\n"), -EINVAL, 0, 0, 0 },
	{ "a negative count", MC_GET, L("VALUE k1 0 -1\r\nEND\r\n"), -EINVAL, 0, 0, 0 },
	{ "two spaces", MC_GET, L("VALUE k1  0 1\r\na\r\nEND\r\n"), -EINVAL, 0, 0, 0 },
	{ "a trailing space", MC_GET, L("VALUE k1 0 1 \r\na\r\nEND\r\n"), -EINVAL, 0, 0, 0 },
	{ "a count too large", MC_GET, L("VALUE k1 0 1073741825\r\n"), -EMSGSIZE, 0, 0, 0 },
	{ "a count beyond 64 bits", MC_GET, L("VALUE k1 0 99999999999999999999\r\n"), -EINVAL, 0, 0, 0 },
	{ "a control character", MC_SET, L("SERVER_ERROR a\tb\r\n"), -EINVAL, 0, 0, 0 },
	{ "a NUL", MC_SET, L("STO\0RED\r\n"), -EINVAL, 0, 0, 0 },
	{ "ERRORS", MC_SET, L("ERRORS\r\n"), -EINVAL, 0, 0, 0 },
	{ "CLIENT_ERRORX", MC_SET, L("CLIENT_ERRORX\r\n"), -EINVAL, 0, 0, 0 },
	{ "HTTP", MC_GET, L("HTTP/1.1 400 Bad Request\r\n\r\n"), -EINVAL, 0, 0, 0 },
	{ "no \\r\\n after the value", MC_GET, L("VALUE k1 0 1\r\naXEND\r\n"), -EINVAL, 0, 0, 0 },
	{ "bytes after the response", MC_SET, L("STORED\r\nSTORED\r\n"), 1, MC_STORED, 0, 8 },
};

/* in fed in pieces of n bytes: what the parser returned last, the bytes it took */
static int feed(struct mc_resp *p, const struct rcase *c, size_t n, size_t *total)
{
	size_t off = 0;
	int r = 0;

	mc_resp_init(p, c->op, "k1", 2);
	*total = 0;
	while (off < c->len) {
		size_t k = n < c->len - off ? n : c->len - off, used;

		r = mc_resp_feed(p, c->in + off, k, &used);
		if (r < 0)
			return r;
		*total += used;
		if (r == 1)
			return r;
		assert_int_equal(used, k);
		off += k;
	}
	return r;
}

static void responses(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rcases) / sizeof(rcases[0]); i++) {
		const struct rcase *c = &rcases[i];
		static const size_t pieces[] = { SIZE_MAX, 1, 2, 3, 7 };

		for (size_t j = 0; j < sizeof(pieces) / sizeof(pieces[0]); j++) {
			struct mc_resp p;
			size_t total;
			int r = feed(&p, c, pieces[j], &total);

			if (r != c->r)
				fail_msg("%s, in pieces of %zu: %d, expected %d", c->name, pieces[j], r, c->r);
			if (r != 1)
				continue;
			if (p.status != c->status || p.value_len != c->value_len || total != c->used || !p.done ||
			    p.total != c->used)
				fail_msg("%s, in pieces of %zu: %s, %llu bytes of value, %zu taken", c->name, pieces[j],
					 mc_status_name(p.status), (unsigned long long)p.value_len, total);
		}
	}
}

static void after_the_end(void **state)
{
	struct mc_resp p;
	size_t used;
	char line[MC_MAX_LINE + 8];

	(void)state;
	/* a complete response takes nothing more, and an error stays */
	mc_resp_init(&p, MC_SET, NULL, 0);
	assert_int_equal(mc_resp_feed(&p, L("STORED\r\n"), &used), 1);
	assert_int_equal(mc_resp_feed(&p, L("X"), &used), -EINVAL);
	assert_int_equal(mc_resp_feed(&p, L("STORED\r\n"), &used), -EINVAL);
	/* an error's line is kept for the message */
	mc_resp_init(&p, MC_SET, NULL, 0);
	assert_int_equal(mc_resp_feed(&p, L("SERVER_ERROR out of memory\r\n"), &used), 1);
	assert_string_equal(p.line, "SERVER_ERROR out of memory");
	/* a line at the bound is taken, one byte over is not */
	memset(line, 'x', sizeof(line));
	memcpy(line, "SERVER_ERROR ", 13);
	memcpy(line + MC_MAX_LINE - 2, "\r\n", 2);
	mc_resp_init(&p, MC_SET, NULL, 0);
	assert_int_equal(mc_resp_feed(&p, line, MC_MAX_LINE, &used), 1);
	memcpy(line + MC_MAX_LINE - 2, "xx\r\n", 4);
	mc_resp_init(&p, MC_SET, NULL, 0);
	assert_int_equal(mc_resp_feed(&p, line, MC_MAX_LINE + 1, &used), -EMSGSIZE);
	/* without a key to match, a get takes any valid key */
	mc_resp_init(&p, MC_GET, NULL, 0);
	assert_int_equal(mc_resp_feed(&p, L("VALUE any 1 1\r\na\r\nEND\r\n"), &used), 1);
	assert_int_equal(p.flags, 1);
	assert_int_equal(p.status, MC_HIT);
}

static void requests(void **state)
{
	char buf[400], key[MC_MAX_KEY + 2];

	(void)state;
	assert_int_equal(mc_format_get(buf, sizeof(buf), L("vmb0001")), 13);
	assert_string_equal(buf, "get vmb0001\r\n");
	assert_int_equal(mc_format_set_head(buf, sizeof(buf), L("vmb0001"), 0, 0, 1024), 22);
	assert_string_equal(buf, "set vmb0001 0 0 1024\r\n");
	assert_int_equal(mc_format_set_head(buf, sizeof(buf), L("k"), 4294967295u, 60, 0), 23);
	assert_string_equal(buf, "set k 4294967295 60 0\r\n");
	/* keys that are not: empty, a space, a control character, too long */
	assert_int_equal(mc_format_get(buf, sizeof(buf), "", 0), -EINVAL);
	assert_int_equal(mc_format_get(buf, sizeof(buf), L("a b")), -EINVAL);
	assert_int_equal(mc_format_get(buf, sizeof(buf), L("a\nb")), -EINVAL);
	memset(key, 'k', sizeof(key));
	assert_int_equal(mc_format_get(buf, sizeof(buf), key, MC_MAX_KEY), MC_MAX_KEY + 6);
	assert_int_equal(mc_format_get(buf, sizeof(buf), key, MC_MAX_KEY + 1), -EINVAL);
	assert_int_equal(mc_format_get(buf, 8, L("vmb0001")), -ENOSPC);
	assert_int_equal(mc_format_set_head(buf, sizeof(buf), L("k"), 0, 0, MC_MAX_VALUE + 1), -EINVAL);
	/* the generator's keys: exactly len bytes, the number right-aligned */
	assert_int_equal(mc_key(key, sizeof(key), 8, 42), 8);
	assert_string_equal(key, "vmb00042");
	assert_int_equal(mc_key(key, sizeof(key), 4, 9), 4);
	assert_string_equal(key, "vmb9");
	assert_int_equal(mc_key(key, sizeof(key), 4, 10), -EINVAL);
	assert_int_equal(mc_key(key, sizeof(key), 3, 1), -EINVAL);
	assert_int_equal(mc_key(key, sizeof(key), MC_MAX_KEY + 1, 1), -EINVAL);
	assert_int_equal(mc_key(key, sizeof(key), MC_MAX_KEY, 1), MC_MAX_KEY);
	assert_true(mc_key_valid(key, MC_MAX_KEY));
}

static void ratios(void **state)
{
	static const struct {
		const char *in;
		int r;
		double share;
	} cases[] = {
		{ "1:9", 0, 0.1 }, { "0:1", 0, 0 }, { "1:0", 0, 1 }, { "1:1", 0, 0.5 }, { "1000000:1000000", 0, 0.5 },
		{ "0:0", -EINVAL, 0 }, { "1", -EINVAL, 0 }, { "1:", -EINVAL, 0 }, { ":9", -EINVAL, 0 },
		{ "-1:9", -EINVAL, 0 }, { "1:9x", -EINVAL, 0 }, { "1000001:1", -EINVAL, 0 }, { "0.1:0.9", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double s = -1;
		int r = mc_ratio_parse(cases[i].in, &s);

		if (r != cases[i].r || (r == 0 && (s < cases[i].share - 1e-12 || s > cases[i].share + 1e-12)))
			fail_msg("'%s': %d, %g", cases[i].in, r, s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(responses),
		cmocka_unit_test(after_the_end),
		cmocka_unit_test(requests),
		cmocka_unit_test(ratios),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
