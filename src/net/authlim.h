/* serve's count of wrong tokens per address: after each failure, the
 * address's next greeting is checked only after a delay that doubles with
 * its failures, so that a token cannot be guessed at the speed of the
 * network. A bounded table (the addresses failing most recently), no
 * clock of its own (every call is given "now"), no locking (serve's main
 * thread alone checks greetings). IPv6 addresses count by their /64, the
 * block one host is usually given. */
#ifndef VMB_NET_AUTHLIM_H
#define VMB_NET_AUTHLIM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define AUTHLIM_SLOTS 1024
#define AUTHLIM_FIRST_NS 100000000ull /* after the first failure: 0.1 s */
#define AUTHLIM_MAX_NS 5000000000ull  /* the longest delay: 5 s */
#define AUTHLIM_FORGET_NS 600000000000ull /* an address that failed 10 min ago starts afresh */

struct authlim_slot {
	unsigned char key[16]; /* IPv4 as ::ffff:a.b.c.d; IPv6: its /64, the rest zero */
	unsigned fails;        /* 0: the slot is free */
	uint64_t last_ns;      /* the last failure */
	uint64_t next_ns;      /* no greeting from here is checked before this */
};

struct authlim {
	struct authlim_slot slot[AUTHLIM_SLOTS];
};

/* The delay after `fails` failures (0 for none). */
uint64_t authlim_delay_ns(unsigned fails);
/* When a greeting from addr may be checked: 0 (now), else the time in ns. */
uint64_t authlim_wait(const struct authlim *t, const struct sockaddr_storage *addr, uint64_t now);
/* A wrong token from addr at now: the address's failures, this one
 * counted; *next (if not NULL) the time its next greeting may be checked.
 * A full table gives the slot of the address that failed longest ago. */
unsigned authlim_fail(struct authlim *t, const struct sockaddr_storage *addr, uint64_t now, uint64_t *next);
/* The right token from addr: its failures are forgotten. */
void authlim_ok(struct authlim *t, const struct sockaddr_storage *addr, uint64_t now);

#endif
