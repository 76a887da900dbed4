/* The balloon suite as the lab measures it (src/suites/balloon.h declares
 * it): the back end's balloon_set inflates the guest's virtio-balloon by a
 * size and deflates it back, each timed until balloon_get's actual, the
 * guest's own report, is within BALLOON_TOLERANCE of the target; once with
 * the guest idle, once while the guest's agent runs BALLOON_LOAD. Every
 * wait is bounded: a guest whose balloon does not get there fails the test
 * with how far it got. */
#ifndef VMB_LAB_BALLOON_H
#define VMB_LAB_BALLOON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "proto_host.h"

struct lab_hv_ops;
struct lab_balloon {
	const struct lab_hv_ops *hv; /* the back end's balloon hooks */
	const char *ctl;             /* its address of the guest (hv.h) */
	uint64_t size;           /* bytes the balloon takes, less than the guest's RAM */
	double timeout_s;        /* the bound of an inflate or a deflate */
	bool idle, loaded;       /* which tests were asked */
	struct proto_conn *conn; /* the agent: the loaded test's RUN of BALLOON_LOAD */
	const json_t *fp;        /* the guest's HELLO fingerprint */
	const json_t *load_opts; /* that RUN's options */
	const char *skip;        /* non-NULL: the tests are skipped, this the reason (balloon=off) */
};

/* The size and the bound from the lab run's options (balloon.size,
 * balloon.timeout; the suite's defaults where not given) for a guest of mem
 * bytes: 0, or -EINVAL with why when the size does not fit in mem. */
int lab_balloon_opts(const json_t *run_opts, uint64_t mem, uint64_t *size, double *timeout_s, char *why, size_t len);

/* Measure: the balloon suite's result, a suite object of a document, in
 * *suite. A failed test is in it as failed, with why (err is for what
 * ends the boot: the agent's channel broken, out of memory). */
int lab_balloon_measure(const struct lab_balloon *bl, json_t **suite, char *err, size_t errlen);

struct vmb_case;
/* A load's own figures beside a host-measured test's (the balloon's, the
 * vmops'): each metric of the first case of doc, a guest's document, added
 * to c as PREFIX + its name, its samples and their summary. -ENOMEM. */
int lab_load_metrics(struct vmb_case *c, const json_t *doc, const char *prefix);

#endif
