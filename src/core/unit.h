/* Units and directions of metrics, and the units' names in documents. */
#ifndef VMB_UNIT_H
#define VMB_UNIT_H

#include <stdbool.h>

enum vmb_unit {
	VMB_UNIT_NONE = 0,
	VMB_UNIT_PER_S,    /* events or operations per second */
	VMB_UNIT_NS,       /* nanoseconds */
	VMB_UNIT_MB_PER_S, /* 10^6 bytes per second */
	VMB_UNIT_GFLOPS,   /* 10^9 floating-point operations per second */
	VMB_UNIT_RATIO,    /* dimensionless */
	VMB_UNIT_PCT,      /* percent */
	VMB_UNIT_S,        /* seconds */
	VMB_UNIT_BYTES,
	VMB_UNIT_MBIT_PER_S, /* 10^6 bits per second (network) */
	VMB_UNIT_MIB_PER_S,  /* 2^20 bytes per second (sysbench memory) */
};

enum vmb_dir {
	VMB_HIGHER = 0, /* higher is better */
	VMB_LOWER,      /* lower is better */
};

const char *vmb_unit_name(enum vmb_unit u);
/* Is the unit named name (as documents carry it) one of a rate or a size,
 * which cannot be negative? false for an unknown name. */
bool vmb_unit_nonnegative(const char *name);
/* The largest magnitude a value of the unit may have: beyond it, a figure
 * is corrupt or forged, not measured (1e13 for 1/s, 1e15 for ns). */
double vmb_unit_plausible(enum vmb_unit u);
int vmb_unit_parse(const char *s, enum vmb_unit *out);

#endif
