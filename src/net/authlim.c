/* serve's delay of wrong tokens per address (see authlim.h). */
#include <limits.h>
#include <netinet/in.h>
#include <string.h>

#include "authlim.h"
#include "../core/banned.h"

uint64_t authlim_delay_ns(unsigned fails)
{
	uint64_t d = AUTHLIM_FIRST_NS;

	if (fails == 0)
		return 0;
	for (unsigned i = 1; i < fails && d < AUTHLIM_MAX_NS; i++)
		d *= 2;
	return d < AUTHLIM_MAX_NS ? d : AUTHLIM_MAX_NS;
}

static void key_of(const struct sockaddr_storage *a, unsigned char key[16])
{
	memset(key, 0, 16);
	if (a->ss_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)a)->sin_addr, 4);
	} else if (a->ss_family == AF_INET6) {
		const struct in6_addr *in6 = &((const struct sockaddr_in6 *)a)->sin6_addr;

		/* an IPv4 client of a dual-stack socket is that IPv4 address; any
		 * other counts by its /64, one host's block: a client that owns
		 * a /64 does not get 2^64 counts */
		memcpy(key, in6, IN6_IS_ADDR_V4MAPPED(in6) ? 16 : 8);
	}
}

static bool live(const struct authlim_slot *e, uint64_t now)
{
	return e->fails && now - e->last_ns < AUTHLIM_FORGET_NS;
}

static const struct authlim_slot *find(const struct authlim *t, const unsigned char key[16], uint64_t now)
{
	for (size_t i = 0; i < AUTHLIM_SLOTS; i++)
		if (live(&t->slot[i], now) && !memcmp(t->slot[i].key, key, 16))
			return &t->slot[i];
	return NULL;
}

uint64_t authlim_wait(const struct authlim *t, const struct sockaddr_storage *addr, uint64_t now)
{
	unsigned char key[16];
	const struct authlim_slot *e;

	key_of(addr, key);
	e = find(t, key, now);
	return e && e->next_ns > now ? e->next_ns : 0;
}

unsigned authlim_fail(struct authlim *t, const struct sockaddr_storage *addr, uint64_t now, uint64_t *next)
{
	unsigned char key[16];
	struct authlim_slot *e;

	key_of(addr, key);
	e = (struct authlim_slot *)find(t, key, now);
	if (!e) {
		/* a free (or forgotten) slot, else the one that failed longest ago */
		e = &t->slot[0];
		for (size_t i = 0; i < AUTHLIM_SLOTS && live(e, now); i++)
			if (!live(&t->slot[i], now) || t->slot[i].last_ns < e->last_ns)
				e = &t->slot[i];
		memset(e, 0, sizeof(*e));
		memcpy(e->key, key, 16);
	}
	if (e->fails < UINT_MAX)
		e->fails++;
	e->last_ns = now;
	e->next_ns = now + authlim_delay_ns(e->fails);
	if (next)
		*next = e->next_ns;
	return e->fails;
}

void authlim_ok(struct authlim *t, const struct sockaddr_storage *addr, uint64_t now)
{
	unsigned char key[16];
	struct authlim_slot *e;

	key_of(addr, key);
	e = (struct authlim_slot *)find(t, key, now);
	if (e)
		memset(e, 0, sizeof(*e));
}
