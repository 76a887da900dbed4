/* What a lab run is asked (struct lab_run_opts): the image, the items,
 * the boots, the guests' run options, the scratch disk, the bounds. Made
 * by the verbs (src/cmd/lab_*.c), read by every layer of a configuration's
 * run below them; a plain struct, so that a lower layer (a boot, the
 * items, a host-measured suite) needs no header of the layers above. */
#ifndef VMB_LAB_LABOPTS_H
#define VMB_LAB_LABOPTS_H

#include <jansson.h>
#include <stdbool.h>

#include "../core/suite.h"

struct lab_run_opts {
	const char *image_dir;   /* vmlinuz, initrd.img */
	const char *cache;       /* the lab's cache: a distribution's .debs, which app.apt's mirror serves; NULL: none */
	const char *suites;      /* "cpu,disk,boot" */
	unsigned boots;          /* cold boots measured (the first also runs the suites) */
	/* the options of the guests' runs, as the agent protocol's RUN takes
	 * them (docs/agent-protocol.md): run-level keys ("quick", "time",
	 * "threads"...) and SUITE.OPTION keys ("cpu.max-prime"); each RUN gets
	 * the run-level keys and its own suite's. Borrowed; NULL: none */
	json_t *run_opts;
	bool progress;           /* draw the boot's and the guest's progress on stderr (a terminal, not -q) */
	const char *disk_size;   /* scratch disk attached through the configuration's controller */
	const char *disk_format; /* raw|qcow2 */
	const char *disk_cache;  /* QEMU cache mode */
	int hello_timeout_ms;
	const struct vmb_opt *run_table; /* `vmbench run`'s options: what the host's net client is checked against */
	const char *nic_backend;         /* the NIC's back end (a LAB_BACKENDS row); NULL: the first usable */
};

#endif
