/* Whether a buffer a suite is about to allocate fits the memory available:
 * the one policy every suite applies before it maps its buffers. */
#ifndef VMB_FITS_H
#define VMB_FITS_H

#include <stdint.h>

struct vmb_ctx;

/* bytes for what (a phrase: "STREAM's three arrays"), sized by the suite's
 * option opt, against avail (MemAvailable; 0: unknown, it fits). A tenth
 * of avail stays for everyone else. 0 when it fits; a size the user chose
 * that does not fit is a usage error, a default that does not fit skips
 * the test (this small machine cannot run it, the others still can). */
int vmb_fits(struct vmb_ctx *ctx, const char *opt, const char *what, uint64_t bytes, uint64_t avail);

#endif
