/* The "does this buffer fit" policy shared by the suites (see fits.h). */
#include "fits.h"
#include "opts.h"
#include "suite.h"
#include "banned.h"

int vmb_fits(struct vmb_ctx *ctx, const char *opt, const char *what, uint64_t bytes, uint64_t avail)
{
	const struct opt_value *v = optset_get(ctx->opts, opt);
	const char *suite = ctx->suite->name;

	/* a tenth of what is available stays for everyone else */
	if (!avail || bytes <= avail / 10 * 9)
		return 0;
	/* the user's size is the user's mistake; a default that does not fit
	 * this (small) machine skips the test and leaves the others to run */
	if (v && v->set)
		return vmb_usage(ctx, "%s needs %llu MiB, but only %llu MiB are available (MemAvailable, less a tenth): "
				      "choose a smaller --%s.%s",
				 what, (unsigned long long)(bytes >> 20), (unsigned long long)(avail >> 20), suite, opt);
	return vmb_skip(ctx, "%s needs %llu MiB, but only %llu MiB are available (MemAvailable, less a tenth); "
			     "--%s.%s sets a smaller size",
			what, (unsigned long long)(bytes >> 20), (unsigned long long)(avail >> 20), suite, opt);
}
