/* Units of metrics: their names in documents and back. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "macro.h"
#include "unit.h"
#include "banned.h"

static const struct {
	const char *name;
	/* a rate or a size: no value of it is below zero. Times are not marked:
	 * a suite may report a difference of two times in ns. */
	bool nonnegative;
	/* what no machine measures: a value of a larger magnitude is a corrupt or
	 * forged figure (docs/results-schema.md, "Limits"); far above any
	 * machine of today, so that no real result is refused */
	double plausible;
} units[] = {
	[VMB_UNIT_NONE] = { "", false, 1e15 },          /* counts */
	[VMB_UNIT_PER_S] = { "1/s", true, 1e13 },
	[VMB_UNIT_NS] = { "ns", false, 1e15 },          /* 11.6 days */
	[VMB_UNIT_MB_PER_S] = { "MB/s", true, 1e9 },    /* 1 PB/s */
	[VMB_UNIT_GFLOPS] = { "GFLOP/s", true, 1e9 },
	[VMB_UNIT_RATIO] = { "ratio", false, 1e9 },
	[VMB_UNIT_PCT] = { "%", false, 1e7 },           /* CPU % summed over 100,000 CPUs */
	[VMB_UNIT_S] = { "s", false, 1e9 },             /* 31 years */
	[VMB_UNIT_BYTES] = { "B", true, 1e18 },         /* 1 EB */
	[VMB_UNIT_MBIT_PER_S] = { "Mbit/s", true, 1e10 }, /* 10 Pbit/s */
	[VMB_UNIT_MIB_PER_S] = { "MiB/s", true, 1e9 },
};

const char *vmb_unit_name(enum vmb_unit u)
{
	return (unsigned)u < ARRAY_SIZE(units) ? units[u].name : "?";
}

bool vmb_unit_nonnegative(const char *name)
{
	enum vmb_unit u;

	return name && vmb_unit_parse(name, &u) == 0 && units[u].nonnegative;
}

double vmb_unit_plausible(enum vmb_unit u)
{
	return (unsigned)u < ARRAY_SIZE(units) ? units[u].plausible : 0;
}

int vmb_unit_parse(const char *s, enum vmb_unit *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(s, units[i].name)) {
			*out = (enum vmb_unit)i;
			return 0;
		}
	return -EINVAL;
}
