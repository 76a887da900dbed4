/* The net control protocol's parser and formatter (see proto.h): tables of
 * verbs and keys, no I/O, every number range-checked. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"
#include "../core/util.h"
#include "../core/banned.h"

#define VB(v) (1u << (v))

struct verb_row {
	const char *name;
	unsigned keys_allowed; /* bit per key */
};

#define K(k) (1u << (k))
static const struct verb_row verbs[NETPROTO_NVERBS] = {
	[NETPROTO_HELLO] = { "VMBNET", 0 },
	[NETPROTO_OK] = { "OK", 0 },
	[NETPROTO_ERR] = { "ERR", 0 },
	[NETPROTO_TEST] = { "TEST", K(NETKEY_KIND) | K(NETKEY_MS) | K(NETKEY_STREAMS) | K(NETKEY_SIZE) |
				    K(NETKEY_RATE) | K(NETKEY_DIR) },
	[NETPROTO_PORT] = { "PORT", 0 },
	[NETPROTO_END] = { "END", 0 },
	[NETPROTO_RESULT] = { "RESULT", K(NETKEY_BYTES) | K(NETKEY_SENT) | K(NETKEY_PACKETS) | K(NETKEY_LOST) |
					K(NETKEY_OOO) | K(NETKEY_JITTER_NS) | K(NETKEY_CPU_NS) | K(NETKEY_RETRANS) |
					K(NETKEY_CONNS) },
	[NETPROTO_STATS] = { "STATS", K(NETKEY_HTTP) },
	[NETPROTO_BYE] = { "BYE", 0 },
	[NETPROTO_HTTP] = { "HTTP", 0 },
};

static const char *const kind_words[] = { "tcp_stream", "udp", "tcp_rr", "udp_rr", "tcp_crr", NULL };
static const char *const dir_words[] = { "fwd", "rev", "bidir", NULL };

struct key_row {
	const char *name;
	uint64_t min, max;
	const char *const *words; /* a word key: the value is the word's index */
};

#define BIG NETPROTO_MAX_COUNT
static const struct key_row keys[NETKEY_NKEYS] = {
	[NETKEY_KIND] = { "kind", 0, NETK_NKINDS - 1, kind_words },
	[NETKEY_MS] = { "ms", 1, NETPROTO_MAX_MS, NULL },
	[NETKEY_STREAMS] = { "streams", 1, NETPROTO_MAX_STREAMS, NULL },
	[NETKEY_SIZE] = { "size", 1, NETPROTO_MAX_SIZE, NULL },
	[NETKEY_RATE] = { "rate", 0, NETPROTO_MAX_RATE, NULL },
	[NETKEY_DIR] = { "dir", 0, NETD_BIDIR, dir_words },
	[NETKEY_BYTES] = { "bytes", 0, BIG, NULL },
	[NETKEY_SENT] = { "sent", 0, BIG, NULL },
	[NETKEY_PACKETS] = { "packets", 0, BIG, NULL },
	[NETKEY_LOST] = { "lost", 0, BIG, NULL },
	[NETKEY_OOO] = { "ooo", 0, BIG, NULL },
	[NETKEY_JITTER_NS] = { "jitter_ns", 0, BIG, NULL },
	[NETKEY_CPU_NS] = { "cpu_ns", 0, BIG, NULL },
	[NETKEY_RETRANS] = { "retrans", 0, BIG, NULL },
	[NETKEY_CONNS] = { "conns", 0, BIG, NULL },
	[NETKEY_HTTP] = { "http", 0, BIG, NULL },
};

const char *netproto_kind_name(enum netproto_kind k)
{
	return (unsigned)k < NETK_NKINDS ? kind_words[k] : "?";
}

const char *netproto_verb_name(enum netproto_verb v)
{
	return (unsigned)v < NETPROTO_NVERBS ? verbs[v].name : "?";
}

void netmsg_set(struct netmsg *m, enum netproto_key k, uint64_t v)
{
	m->v[k] = v;
	m->have |= UINT64_C(1) << k;
}

bool netmsg_has(const struct netmsg *m, enum netproto_key k)
{
	return (m->have >> k) & 1;
}

static bool word_eq(const char *w, size_t wl, const char *s)
{
	return strlen(s) == wl && memcmp(w, s, wl) == 0;
}

/* A decimal whole number of at most 19 digits, no sign, no leading junk. */
static int parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 19)
		return -ERANGE;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static bool token_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
	       c == '-';
}

bool netproto_token_valid(const char *t, size_t n)
{
	if (n == 0 || n > NETPROTO_MAX_TOKEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!token_char(t[i]))
			return false;
	return true;
}

#define FAIL(r, ...)                                      \
	do {                                              \
		if (errlen)                               \
			snprintf(err, errlen, __VA_ARGS__); \
		return (r);                               \
	} while (0)

/* One KEY=VALUE word of m's verb into m. 0, or a negative errno with the
 * reason in err. */
static int parse_word(struct netmsg *m, const char *w, size_t wl, char *err, size_t errlen)
{
	const char *eq = memchr(w, '=', wl);
	size_t kl, vl;
	const char *val;
	unsigned k;

	if (!eq)
		FAIL(-EINVAL, "%s: expected KEY=VALUE, got '%.*s'", verbs[m->verb].name,
		     (int)(wl > 32 ? 32 : wl), w);
	kl = (size_t)(eq - w);
	val = eq + 1;
	vl = wl - kl - 1;
	if (m->verb == NETPROTO_HELLO && word_eq(w, kl, "token")) {
		/* once: with two, which one a server checks is a guess */
		if (m->token[0])
			FAIL(-EINVAL, "%s: key 'token' given twice", verbs[m->verb].name);
		if (vl == 0 || vl > NETPROTO_MAX_TOKEN)
			FAIL(-EINVAL, "token: 1 to %d characters", NETPROTO_MAX_TOKEN);
		for (size_t i = 0; i < vl; i++)
			if (!token_char(val[i]))
				FAIL(-EINVAL, "token: only letters, digits, '.', '_' and '-'");
		memcpy(m->token, val, vl);
		m->token[vl] = '\0';
		return 0;
	}
	for (k = 0; k < NETKEY_NKEYS; k++)
		if (word_eq(w, kl, keys[k].name))
			break;
	if (k == NETKEY_NKEYS || !(verbs[m->verb].keys_allowed & K(k)))
		FAIL(-EINVAL, "%s: unknown key '%.*s'", verbs[m->verb].name, (int)(kl > 32 ? 32 : kl), w);
	if (netmsg_has(m, (enum netproto_key)k))
		FAIL(-EINVAL, "%s: key '%s' given twice", verbs[m->verb].name, keys[k].name);
	if (keys[k].words) {
		unsigned i;

		for (i = 0; keys[k].words[i]; i++)
			if (word_eq(val, vl, keys[k].words[i]))
				break;
		if (!keys[k].words[i])
			FAIL(-EINVAL, "%s: unknown %s '%.*s'", verbs[m->verb].name, keys[k].name,
			     (int)(vl > 32 ? 32 : vl), val);
		netmsg_set(m, (enum netproto_key)k, i);
	} else {
		uint64_t v;
		int r = parse_u64(val, vl, &v);

		if (r == -EINVAL)
			FAIL(-EINVAL, "%s: %s: '%.*s' is not a whole number", verbs[m->verb].name, keys[k].name,
			     (int)(vl > 32 ? 32 : vl), val);
		if (r < 0 || v < keys[k].min || v > keys[k].max)
			FAIL(-ERANGE, "%s: %s must be %llu to %llu", verbs[m->verb].name, keys[k].name,
			     (unsigned long long)keys[k].min, (unsigned long long)keys[k].max);
		netmsg_set(m, (enum netproto_key)k, v);
	}
	return 0;
}

int netproto_parse(const char *line, size_t len, struct netmsg *out, char *err, size_t errlen)
{
	struct netmsg m;
	const char *p = line, *end;
	const char *w;
	size_t wl;
	unsigned nword = 0;
	int r;

	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len >= NETPROTO_MAX_LINE)
		FAIL(-EINVAL, "line longer than %d bytes", NETPROTO_MAX_LINE - 1);
	end = line + len;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e)
			FAIL(-EINVAL, "control or non-ASCII byte 0x%02x in a line", (unsigned char)line[i]);
	memset(&m, 0, sizeof(m));
	m.verb = NETPROTO_NVERBS;
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		w = p;
		while (p < end && *p != ' ')
			p++;
		wl = (size_t)(p - w);
		if (nword == 0) {
			for (unsigned v = 0; v < NETPROTO_NVERBS; v++)
				if (word_eq(w, wl, verbs[v].name))
					m.verb = (enum netproto_verb)v;
			if (m.verb == NETPROTO_NVERBS)
				FAIL(-EINVAL, "unknown message '%.*s'", (int)(wl > 32 ? 32 : wl), w);
			if (m.verb == NETPROTO_ERR) {
				/* the rest of the line is text */
				while (p < end && *p == ' ')
					p++;
				wl = (size_t)(end - p);
				if (wl > NETPROTO_MAX_TEXT)
					wl = NETPROTO_MAX_TEXT;
				memcpy(m.text, p, wl);
				m.text[wl] = '\0';
				*out = m;
				return 0;
			}
			nword++;
			continue;
		}
		if (nword == 1 && (m.verb == NETPROTO_HELLO || m.verb == NETPROTO_OK || m.verb == NETPROTO_PORT)) {
			uint64_t v;

			r = parse_u64(w, wl, &v);
			if (r == -EINVAL)
				FAIL(-EINVAL, "%s: '%.*s' is not a whole number", verbs[m.verb].name, (int)(wl > 32 ? 32 : wl), w);
			if (r < 0 || (m.verb == NETPROTO_PORT ? (v < 1 || v > 65535) : (v < 1 || v > 1000)))
				FAIL(-ERANGE, "%s: bad number '%.*s'", verbs[m.verb].name, (int)(wl > 32 ? 32 : wl), w);
			if (m.verb == NETPROTO_PORT)
				m.port = (unsigned)v;
			else
				m.version = (unsigned)v;
			nword++;
			continue;
		}
		r = parse_word(&m, w, wl, err, errlen);
		if (r < 0)
			return r;
		nword++;
	}
	if (m.verb == NETPROTO_NVERBS)
		FAIL(-EINVAL, "empty line");
	if ((m.verb == NETPROTO_HELLO || m.verb == NETPROTO_OK) && m.version == 0)
		FAIL(-EINVAL, "%s: a version number must follow", verbs[m.verb].name);
	if (m.verb == NETPROTO_PORT && m.port == 0)
		FAIL(-EINVAL, "PORT: a port number must follow");
	if (m.verb == NETPROTO_TEST && (!netmsg_has(&m, NETKEY_KIND) || !netmsg_has(&m, NETKEY_MS)))
		FAIL(-EINVAL, "TEST: kind= and ms= are required");
	*out = m;
	return 0;
}

int netproto_format(const struct netmsg *m, char *buf, size_t len)
{
	size_t o;
	int n;

	if ((unsigned)m->verb >= NETPROTO_NVERBS)
		return -EINVAL;
	n = snprintf(buf, len, "%s", verbs[m->verb].name);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	o = (size_t)n;
#define APPEND(...)                                              \
	do {                                                     \
		n = snprintf(buf + o, len - o, __VA_ARGS__);     \
		if (n < 0 || (size_t)n >= len - o)               \
			return -ENOSPC;                          \
		o += (size_t)n;                                  \
	} while (0)
	switch (m->verb) {
	case NETPROTO_HELLO:
	case NETPROTO_OK:
		APPEND(" %u", m->version);
		if (m->verb == NETPROTO_HELLO && m->token[0])
			APPEND(" token=%s", m->token);
		break;
	case NETPROTO_PORT:
		APPEND(" %u", m->port);
		break;
	case NETPROTO_ERR:
		APPEND(" %s", m->text);
		break;
	default:
		break;
	}
	for (unsigned k = 0; k < NETKEY_NKEYS; k++) {
		if (!netmsg_has(m, (enum netproto_key)k) || !(verbs[m->verb].keys_allowed & K(k)))
			continue;
		if (keys[k].words)
			APPEND(" %s=%s", keys[k].name, m->v[k] <= keys[k].max ? keys[k].words[m->v[k]] : "?");
		else
			APPEND(" %s=%llu", keys[k].name, (unsigned long long)m->v[k]);
	}
	APPEND("\n");
#undef APPEND
	if (o >= NETPROTO_MAX_LINE)
		return -ENOSPC;
	return (int)o;
}
