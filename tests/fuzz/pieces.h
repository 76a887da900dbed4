/* For the fuzz targets of streaming parsers (a response read from a
 * socket): the same input fed whole, a byte at a time, in pieces and cut
 * in two must come out the same, since a socket may cut it anywhere. A
 * header of static functions, so that each target stays one file beside
 * driver.c (or libFuzzer's own main). */
#ifndef VMB_FUZZ_PIECES_H
#define VMB_FUZZ_PIECES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* A parser as the helpers see it. */
struct fuzz_stream {
	void (*init)(void *p, const void *arg);                             /* ready for a new input */
	int (*feed)(void *p, const char *buf, size_t len, size_t *used); /* 1 complete, 0 more, < 0 malformed */
	bool (*same)(const void *a, const void *b);                      /* the same parse */
	const void *arg;                                                 /* init's */
};

/* Feeds in[0, len) to p in pieces of n (cut, when not 0, first at cut):
 * what the parser returned last; *total, the bytes it took. Aborts when a
 * feed takes more than it was given, or returns 0 without taking all. */
static int fuzz_stream_feed(const struct fuzz_stream *s, void *p, const char *in, size_t len, size_t n, size_t cut,
			    size_t *total)
{
	size_t off = 0;
	int r = 0;

	s->init(p, s->arg);
	*total = 0;
	while (off < len) {
		size_t k = cut && off < cut ? cut - off : n, used = 0;

		if (k > len - off)
			k = len - off;
		r = s->feed(p, in + off, k, &used);
		if (r < 0)
			return r;
		if (used > k)
			abort();
		*total += used;
		if (r == 1)
			return r;
		if (used != k)
			abort(); /* 0 takes every byte */
		off += k;
	}
	return r;
}

/* in fed whole into p, then byte by byte, in pieces of piece and cut in two
 * into q: each must end as the whole did (the same result, the same bytes
 * taken and, unless malformed, the same parse), else abort. The whole's
 * result, with the bytes it took in *total. */
static int fuzz_stream_check(const struct fuzz_stream *s, void *p, void *q, const char *in, size_t len, size_t piece,
			     size_t *total)
{
	const size_t pieces[3][2] = { { 1, 0 }, { piece, 0 }, { len ? len : 1, len / 2 } };
	int r = fuzz_stream_feed(s, p, in, len, len ? len : 1, 0, total);

	for (size_t i = 0; i < 3; i++) {
		size_t t2;
		int r2 = fuzz_stream_feed(s, q, in, len, pieces[i][0], pieces[i][1], &t2);

		if (r2 != r || (r >= 0 && (!s->same(p, q) || t2 != *total)))
			abort();
	}
	return r;
}

#endif
