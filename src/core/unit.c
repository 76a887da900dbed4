/* Units of metrics: their names in documents and back. */
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "unit.h"
#include "banned.h"

static const char *const unit_names[] = {
	[VMB_UNIT_NONE] = "", [VMB_UNIT_PER_S] = "1/s", [VMB_UNIT_NS] = "ns",
	[VMB_UNIT_MB_PER_S] = "MB/s", [VMB_UNIT_GFLOPS] = "GFLOP/s", [VMB_UNIT_RATIO] = "ratio",
	[VMB_UNIT_PCT] = "%", [VMB_UNIT_S] = "s", [VMB_UNIT_BYTES] = "B", [VMB_UNIT_MBIT_PER_S] = "Mbit/s",
	[VMB_UNIT_MIB_PER_S] = "MiB/s",
};

const char *vmb_unit_name(enum vmb_unit u)
{
	return (unsigned)u < ARRAY_SIZE(unit_names) ? unit_names[u] : "?";
}

int vmb_unit_parse(const char *s, enum vmb_unit *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(unit_names); i++)
		if (!strcmp(s, unit_names[i])) {
			*out = (enum vmb_unit)i;
			return 0;
		}
	return -EINVAL;
}
