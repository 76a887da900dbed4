/* The suites the lab measures from the host (VMB_SUITE_LAB_ONLY: boot,
 * balloon, vmops, contend): one table, a row per suite with the step of
 * the lab that measures it and its measure function. Adding one is a
 * descriptor in src/suites/ (its tests without run(), what it needs of the
 * lab in its .host), a row here and its function; the lab's run calls the
 * rows of its step, never a suite by name, and the start-up check
 * (lab_host_check) refuses a lab-only suite without exactly one row. */
#ifndef VMB_LAB_HOSTMEASURE_H
#define VMB_LAB_HOSTMEASURE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../core/suite.h"
#include "../suites/boot.h"

struct lab_config;
struct lab_run_opts;
struct lab_vm;

/* When a lab measures a row's suite */
enum lab_host_when {
	LAB_HOST_FIRST_BOOT, /* in the first boot's QEMU, after the guest's items, in the table's order */
	LAB_HOST_BOOTS,      /* from the boots of a configuration, once they are all done */
	LAB_HOST_CONTEND,    /* by `lab contend`, for each guest at the end of each cell (src/lab/contend.c) */
};

/* What `lab contend` saw of one guest over one RUN of a cell: the RUN's
 * item and its vCPU threads' figures (contend.h; NaN: not measured). */
struct lab_host_contended {
	char item[64];
	double share_pct, promised_pct, delay_pct, delay_ns_per_slice, jain;
};

/* The boots of one of the boot suite's tests (BOOT_COLD, ...): each one's
 * phases and, for reboots, the guest's shutdown before it. */
struct lab_boot_series {
	double (*ph)[BOOT_MAXPHASES];
	double *shutdown;
	unsigned n;
	/* BOOT_START: the boots tried, and why each that did not start did
	 * not ("boot 2: ...; boot 5: ...", owned; NULL: none failed) */
	unsigned attempted;
	char *failures;
};

/* What a measure function is given: the suite's row asked for (at least
 * one of its tests is among the run's items: lab_host_asked says which). */
struct lab_host_req {
	const struct vmb_suite *suite;
	const struct lab_config *c;
	const struct lab_run_opts *o;
	/* LAB_HOST_FIRST_BOOT: the guest and the QEMU that runs it (a measure
	 * that moves the guest leaves the new one in it), its HELLO
	 * fingerprint, and the options of the items of suite->host->loads, in
	 * their order, made as for any item of the run */
	struct lab_vm *vm;
	const json_t *fp;
	json_t *const *loads;
	/* LAB_HOST_BOOTS: the configuration's phases and its boots, BOOT_NTESTS series */
	const struct boot_phase *phase;
	size_t nphase;
	const struct lab_boot_series *series;
	/* LAB_HOST_CONTEND: one guest's cell (a policy at a load): what was
	 * seen over each of its RUNs, in order, and the cell's facts as notes
	 * ({name, value}, in order) */
	const struct lab_host_contended *seen;
	size_t nseen;
	const char *const (*notes)[2];
	size_t nnotes;
};

/* A boot a suite's test asks of the first boot's QEMU, after its items
 * (the row's boots): warm, a reset of the same QEMU; reboot, the guest's
 * own reboot. Its phases go to the row's series (src/suites/boot.h). */
enum lab_boot_kind { LAB_BOOT_WARM, LAB_BOOT_REBOOT };
struct lab_host_boot {
	const char *test; /* the test that asks for it (lab_host_asked) */
	enum lab_boot_kind kind;
	unsigned series;  /* where its phases go: an index of the BOOT_NTESTS series */
};

struct lab_matrix;

/* The suite's result, a suite object of a document, in *suite. A failed
 * test is in it as failed, with why; err is for what ends the boot. */
typedef int lab_host_measure_fn(const struct lab_host_req *rq, json_t **suite, char *err, size_t errlen);

struct lab_host_row {
	const struct vmb_suite *suite;
	enum lab_host_when when;
	lab_host_measure_fn *measure;
	/* the boots its tests ask of the first boot's QEMU after the items, in
	 * order, up to one with test NULL; NULL: none */
	const struct lab_host_boot *boots;
	/* before anything boots, when one of its tests is asked: whether the
	 * matrix can give them what they need (run_opts: the run's measuring
	 * options as the guest gets them); 0, or -EINVAL with why (a usage
	 * error); NULL: nothing to check */
	int (*check)(const struct lab_matrix *m, const json_t *run_opts, char *why, size_t len);
};

extern const struct lab_host_row lab_host_rows[];
extern const size_t lab_host_nrows;

/* The row of a suite, or NULL: it is not measured from the host. */
const struct lab_host_row *lab_host_row_of(const struct vmb_suite *s);
/* The suite a --suites item names ("disk", "disk.randread"), or NULL. */
const struct vmb_suite *lab_item_suite(const char *item);
/* True for a --suites item ("boot", "boot.cold", "balloon.idle") the host
 * measures around the guest rather than the guest's agent: a row's suite. */
bool lab_host_measured(const char *item);
/* Do the items ("cpu,vmops.migrate") ask suite s's test named test (NULL:
 * any of its tests)? The suite named alone asks each test but those that
 * run only when named (VMB_TEST_ON_REQUEST). */
bool lab_host_asked(const struct vmb_suite *s, const char *items, const char *test);

/* Start-up check of the table against the suites (vmb_suites): every
 * lab-only suite has exactly one row, every row's suite is lab-only and
 * has its measure function, and a suite's loads name items of
 * suites run in the guest. 0, or -EINVAL with why. */
int lab_host_check(const struct vmb_suite *const *suites, size_t n, char *why, size_t len);

#endif
