/* memcached's text protocol as net.memcached speaks it: the get and set
 * requests written out, and a pure parser of their responses (no I/O, no
 * allocation, every number range-checked, every line bounded) fed the
 * bytes as they arrive, in pieces of any size, so that it can be fuzzed.
 * Only the responses a single-key get or a set can have are taken
 * (protocol.txt of memcached: VALUE ... END, END, STORED, NOT_STORED, and
 * ERROR, CLIENT_ERROR, SERVER_ERROR); any other form is refused, never
 * guessed at. */
#ifndef VMB_NET_MEMCACHE_H
#define VMB_NET_MEMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A key: 1 to 250 bytes, none a space or a control character (protocol.txt). */
#define MC_MAX_KEY 250
/* The largest value a VALUE line may announce: memcached's largest item
 * (-I) is 1 GiB; the load generator's values are at most 1 MiB. */
#define MC_MAX_VALUE (UINT64_C(1) << 30)
/* The longest response line taken, \r\n included: a VALUE line of the
 * longest key with every number at its widest is under 320 bytes; an error
 * line's message is memcached's (tens of bytes). */
#define MC_MAX_LINE 1024

enum mc_op { MC_GET, MC_SET };

/* What a complete response said. */
enum mc_status {
	MC_HIT,          /* get: one VALUE of the key asked, then END */
	MC_MISS,         /* get: END alone */
	MC_STORED,       /* set: STORED */
	MC_NOT_STORED,   /* set: NOT_STORED */
	MC_ERROR,        /* ERROR: a command the server does not know */
	MC_CLIENT_ERROR, /* CLIENT_ERROR message: the request was malformed */
	MC_SERVER_ERROR, /* SERVER_ERROR message: the server failed (out of memory, say) */
};

/* One response on its way: set up by mc_resp_init for the request sent,
 * fed by mc_resp_feed. The first fields are its results. */
struct mc_resp {
	bool done;              /* complete: status is set */
	enum mc_status status;
	uint64_t value_len;     /* MC_HIT: the value's bytes */
	uint32_t flags;         /* MC_HIT: the item's flags */
	size_t total;           /* the response's bytes so far */

	enum mc_op op;
	const char *key;        /* get: the key asked (borrowed), which a VALUE must name */
	size_t keylen;
	uint8_t state;
	bool have_value;
	uint64_t left;          /* bytes of the value still to come */
	size_t len;             /* bytes of line[] */
	char line[MC_MAX_LINE]; /* the line being read; an error's whole line once done */
};

/* A new response to a get of key[0, keylen) (kept, not copied) or to a set. */
void mc_resp_init(struct mc_resp *p, enum mc_op op, const char *key, size_t keylen);
/* The next bytes of the response, buf[0, len). 1 when it is complete, with
 * *used the bytes of buf it took (what follows is not its); 0 when it needs
 * more (every byte taken); -EINVAL when it is not a response to the request
 * (a malformed line, another key, a second VALUE, a value not followed by
 * \r\n, bytes after its end); -EMSGSIZE when a line is longer than
 * MC_MAX_LINE or a value larger than MC_MAX_VALUE. After an error it
 * refuses whatever follows. */
int mc_resp_feed(struct mc_resp *p, const char *buf, size_t len, size_t *used);
/* The name of a response's status as memcached writes it ("STORED", "a
 * hit"), for messages. */
const char *mc_status_name(enum mc_status s);
/* Is the status one of the three error lines? */
static inline bool mc_status_error(enum mc_status s)
{
	return s == MC_ERROR || s == MC_CLIENT_ERROR || s == MC_SERVER_ERROR;
}

/* A valid key (MC_MAX_KEY bytes at most, no space or control character)? */
bool mc_key_valid(const char *key, size_t len);
/* Key i of a key space as the load generator names it: "vmb" and i in
 * decimal, left-padded with zeros to len bytes (len of 4 to MC_MAX_KEY;
 * i must fit: fewer digits than len - 3). Its length, or -EINVAL. */
int mc_key(char *buf, size_t cap, size_t len, uint64_t i);
/* "get KEY\r\n" into buf: its length, or -ENOSPC / -EINVAL (a key not valid). */
int mc_format_get(char *buf, size_t cap, const char *key, size_t keylen);
/* The head of a set, "set KEY FLAGS EXPTIME BYTES\r\n" (the value's bytes
 * and a \r\n follow it on the wire): its length, or -ENOSPC / -EINVAL (a
 * key not valid, a value over MC_MAX_VALUE). */
int mc_format_set_head(char *buf, size_t cap, const char *key, size_t keylen, uint32_t flags, uint32_t exptime,
		       uint64_t bytes);

/* A get/set mix as memaslap's --ratio and memtier's --ratio write it,
 * "SET:GET" (two whole numbers of at most 1000000, not both 0): 0 with
 * the share of sets in *set_share (0 to 1), else -EINVAL. */
int mc_ratio_parse(const char *s, double *set_share);

#endif
