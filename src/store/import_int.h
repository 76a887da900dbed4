/* Private to src/store/import*.c: what every importer gets from the common
 * part (import.c): the state of one import, how to find or make a case,
 * add a value, read a JSON field or a plausible measured figure, and fail
 * with a message naming where. Each format is an importer file and a row
 * of the table in import.c. */
#ifndef VMB_IMPORT_INT_H
#define VMB_IMPORT_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../core/result.h"
#include "import.h"

struct imp {
	struct vmb_results res;
	char *err;
	size_t errlen;
	int bad;
	json_t *pct; /* "suite/test/case/metric" (indices) -> histogram object, added after building */
	json_t *doc; /* set instead of res by an importer whose input is a whole document */
	double tool_started, tool_duration; /* the tool's own start (epoch s) and length; 0 when it has none */
};

struct imp_input {
	const char *text;   /* the whole input, without a byte-order mark */
	const json_t *root; /* the JSON document for JSON formats, else NULL */
	const struct import_file *fio_logs; /* import_opts' */
	size_t nfio_logs;
};

/* Where a case is: indices stay valid when the arrays grow, pointers do not. */
struct where {
	size_t s, t, c;
};

/* What an imported figure is, and the most that is plausible for it: a
 * figure above its bound is a corrupt or forged file, not a measurement.
 * The bounds are far above any machine of today, so that a real result is
 * never refused; the table is documented in docs/results-schema.md
 * ("Imported figures") and must stay the same as there. */
enum kind {
	K_BIT_S,     /* a network rate: iperf3 bits_per_second */
	K_BYTE_S,    /* a storage bandwidth: fio bw_bytes */
	K_IOPS,      /* fio iops */
	K_NS,        /* a latency in ns: fio's lat_ns, clat_ns, percentiles, bins */
	K_MS,        /* a time in ms: iperf3 jitter_ms, sysbench's latency */
	K_PCT,       /* a percentage: iperf3 lost_percent */
	K_CPU_PCT,   /* CPU time in % of one CPU, summed over threads: fio usr_cpu */
	K_COUNT,     /* a count of events: iperf3 retransmits, fio total_ios */
	K_EVENTS_S,  /* sysbench cpu events per second */
	K_OPS_S,     /* sysbench memory operations per second */
	K_MIB_S,     /* sysbench memory MiB/s */
};

struct import_kind {
	double max;
	const char *text; /* the bound as the message and the docs say it */
};
/* Indexed by enum kind. */
extern const struct import_kind import_kinds[];

/* The message (the first failure's) into im->err; returns -EINVAL. */
int import_fail(struct imp *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The case of suite.test with these params ("k", "v" pairs, NULL-terminated), found or made. */
struct vmb_case *import_case_of(struct imp *im, const char *suite, const char *test, const char *const *kv,
				struct where *w);
/* One value of a metric into c (made on the first). */
int import_value(struct vmb_case *c, const char *name, enum vmb_unit unit, enum vmb_dir dir, bool headline,
		 double v);
/* o.key of type want, or NULL after a failure naming path.key. */
const json_t *import_jget(struct imp *im, const json_t *o, const char *path, const char *key, json_type want);
/* A measured quantity: a finite number from 0 to its kind's bound. NAN
 * after a failure, with a message naming the field by its JSON path. */
double import_jnum(struct imp *im, const json_t *o, const char *path, const char *key, enum kind kind);

/* A fio job option (a string): the job's, else the global one, else def. */
const char *import_fio_opt(const json_t *job, const json_t *global, const char *key, const char *def);
/* fio's per-interval logs as series of the cases import_fio made: job i
 * of the JSON went to case where[i], as its repetition rep[i]. */
int import_fio_logs(struct imp *im, const struct imp_input *in, const json_t *jobs, const json_t *global,
		    const struct where *where, const unsigned *rep, size_t njobs);

/* The formats: a detector (JSON formats see the parsed document, text
 * formats the text) and a parser each. */
bool import_fio_detect(const struct imp_input *in);
int import_fio(struct imp *im, const struct imp_input *in);
bool import_iperf3_detect(const struct imp_input *in);
int import_iperf3(struct imp *im, const struct imp_input *in);
bool import_vmbench_detect(const struct imp_input *in);
int import_vmbench(struct imp *im, const struct imp_input *in);
bool import_sysbench_cpu_detect(const struct imp_input *in);
int import_sysbench_cpu(struct imp *im, const struct imp_input *in);
bool import_sysbench_memory_detect(const struct imp_input *in);
int import_sysbench_memory(struct imp *im, const struct imp_input *in);

#endif
