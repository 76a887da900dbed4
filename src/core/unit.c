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
} units[] = {
	[VMB_UNIT_NONE] = { "" },
	[VMB_UNIT_PER_S] = { "1/s", true },
	[VMB_UNIT_NS] = { "ns" },
	[VMB_UNIT_MB_PER_S] = { "MB/s", true },
	[VMB_UNIT_GFLOPS] = { "GFLOP/s", true },
	[VMB_UNIT_RATIO] = { "ratio" },
	[VMB_UNIT_PCT] = { "%" },
	[VMB_UNIT_S] = { "s" },
	[VMB_UNIT_BYTES] = { "B", true },
	[VMB_UNIT_MBIT_PER_S] = { "Mbit/s", true },
	[VMB_UNIT_MIB_PER_S] = { "MiB/s", true },
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

int vmb_unit_parse(const char *s, enum vmb_unit *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(s, units[i].name)) {
			*out = (enum vmb_unit)i;
			return 0;
		}
	return -EINVAL;
}
