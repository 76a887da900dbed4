/* Import results of the peer tools as vmbench result documents, with the
 * metric names vmbench uses for the same measurement, so that measurements
 * people already made compare with new ones: fio --output-format=json,
 * iperf3 -J, sysbench cpu and memory text output, and vmbench's own result
 * documents. The formats are rows of one table in import.c, one file each
 * (import_fio.c, import_iperf3.c, import_sysbench.c, import_vmbench.c). */
#ifndef VMB_IMPORT_H
#define VMB_IMPORT_H

#include <jansson.h>
#include <stdbool.h>

#include "../core/util.h"

/* One format vmbench imports: the label it gets (source=TOOL) and what the
 * user feeds it, for help and messages. */
struct import_format {
	const char *tool;  /* "fio" */
	const char *input; /* "fio --output-format=json or json+" */
	/* a parameter the tool's output does not print, which --param may
	 * state (imported as IMPORT_UNSTATED otherwise), and its choices */
	const char *param, *choices; /* "access", "seq|rnd" */
};

#define IMPORT_UNSTATED "unstated"

/* A file given with the main one: its name (as the user gave it) and its text. */
struct import_file {
	const char *name;
	const char *text;
};

struct import_opts {
	const struct strv *labels; /* KEY=VALUE, added to the labels */
	const struct strv *params; /* KEY=VALUE, a format's unstated parameter */
	bool lab_labels; /* a vmbench document may keep the labels the lab sets (label.h's LABEL_LAB_KEYS) */
	/* fio's per-interval logs (write_iops_log, write_lat_log, write_bw_log
	 * with log_avg_msec), named as fio names them: series of the cases of
	 * a fio JSON (import_fiolog.c); refused with any other format */
	const struct import_file *fio_logs;
	size_t nfio_logs;
};

/* The most fio logs one import takes. */
#define IMPORT_FIO_LOGS_MAX 256
/* The most lines one fio log may have (each is a point before down-sampling). */
#define IMPORT_FIO_LOG_MAX_LINES 1000000

/* The i-th format, or NULL past the last. */
const struct import_format *import_format_at(size_t i);
/* Every format's input, "A, B or C", for messages. */
void import_formats_string(char *buf, size_t len);

struct import_result {
	json_t *doc;          /* new, validated, and known to load back */
	const char *tool;     /* the format's tool name (static) */
	unsigned skipped;     /* lines around a JSON document that were not part of it */
};

/* Parse text (the whole file) named `name` (opts may be NULL); on success *out holds a new
 * document that was serialized and loaded back with doc_load_string. On
 * malformed input, err says where (line, or JSON path) and what was
 * expected, and -EINVAL is returned; -ENOMEM when memory ran out. */
int import_parse(const char *text, const char *name, const struct import_opts *opts, struct import_result *out,
		 char *err, size_t errlen);

#endif
