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

#endif
