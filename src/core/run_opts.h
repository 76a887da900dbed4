/* The options of `vmbench run` that say how a measurement is made, the
 * rows shared by `vmbench lab run`, which measures its guests and the host
 * with them (each row once: its range, default and help are one fact). */
#ifndef VMB_RUN_OPTS_H
#define VMB_RUN_OPTS_H

#include "opts.h"

#define RUN_MEASURE_OPTS \
	{ .name = "time", .type = OPT_DOUBLE, .min = 0.01, .max = 86400, .def = "2", .quick = "0.3", \
	  .metavar = "SECONDS", .help = "how long each repetition of a test measures (sysbench --time, fio --runtime)" }, \
	{ .name = "warmup", .type = OPT_DOUBLE, .min = 0, .max = 3600, .def = "0.5", .quick = "0.1", \
	  .metavar = "SECONDS", .help = "uncounted warm-up before each case, in three slices; 0 for none" }, \
	{ .name = "warmup-max", .type = OPT_DOUBLE, .min = 0, .max = 3600, .metavar = "SECONDS", \
	  .help = "go on warming up, a slice at a time, until the headline's slope over the last three slices is " \
	  "within 5% of their mean, up to this long in all (the case records how long it took and whether it was " \
	  "steady); not above --warmup: one slice, not judged (default 4 x --warmup; --quick: --warmup)" }, \
	{ .name = "budget", .type = OPT_DOUBLE, .min = 0.01, .max = 604800, .def = "60", .quick = "2", \
	  .metavar = "SECONDS", .help = "time limit per case once --min-reps repetitions are done" }, \
	{ .name = "threads", .type = OPT_LIST, .min = 1, .max = 4096, .def = "1,all", .metavar = "LIST", \
	  .help = "thread counts for threaded tests; 1 is always measured (parallel efficiency needs it)" }, \
	{ .name = "cpus", .type = OPT_STRING, .metavar = "LIST", \
	  .help = "pin worker threads round-robin to these CPUs, e.g. 0-3,6" }, \
	{ .name = "repeat", .type = OPT_INT, .min = 1, .max = 1000, .metavar = "N", \
	  .help = "exactly N repetitions (sets --min-reps and --max-reps)" }, \
	{ .name = "precision", .type = OPT_DOUBLE, .min = 0.01, .max = 100, .def = "2", .metavar = "PCT", \
	  .help = "stop once the 95% confidence interval of the headline metric is within PCT% of its mean" }, \
	{ .name = "min-reps", .type = OPT_INT, .min = 2, .max = 1000, .def = "3", .metavar = "N", \
	  .help = "at least N counted repetitions" }, \
	{ .name = "max-reps", .type = OPT_INT, .min = 2, .max = 1000, .def = "10", .quick = "5", .metavar = "N", \
	  .help = "at most N counted repetitions" }

/* When `run --runs auto` and `lab run --rounds auto` stop (rows shared by
 * both; each run or round is one of at most RUN_AUTO_MAX). */
#define RUN_AUTO_MAX 1000
#define RUN_AUTO_OPTS \
	{ .name = "mdd", .type = OPT_DOUBLE, .min = 0.01, .max = 1000, .def = "3", .metavar = "PCT", \
	  .help = "auto: a case (a headline metric) is decided once its minimal detectable difference (80% power at " \
		  "5%) is at most PCT% of its mean, if no significant difference decided it before" }, \
	{ .name = "budget-total", .type = OPT_DOUBLE, .min = 1, .max = 604800, .def = "3600", .metavar = "SECONDS", \
	  .help = "auto: no round is started that would end after this long" }

#endif
