/* Shared includes for the cmocka unit tests. */
#ifndef VMB_TEST_H
#define VMB_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define assert_close(a, b, tol) \
	do { \
		double a_ = (a), b_ = (b); \
		if (!(fabs(a_ - b_) <= (tol))) \
			fail_msg("%s = %.12g, expected %.12g (tolerance %g)", #a, a_, b_, (double)(tol)); \
	} while (0)

/* A seeded generator (xorshift64*), uniform in [0, 1): simulations that
 * come out the same on every run of a test. */
static inline double test_uniform(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return ((*state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
