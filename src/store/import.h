/* Import results of the peer tools as vmbench result documents, with the
 * metric names vmbench uses for the same measurement, so that measurements
 * people already made compare with new ones: fio --output-format=json,
 * iperf3 -J, sysbench cpu and memory text output. */
#ifndef VMB_IMPORT_H
#define VMB_IMPORT_H

#include <jansson.h>

#include "../core/util.h"

/* Parse text (the whole file) named `name`; on success *doc is a new,
 * validated document and *tool names the format ("fio", "iperf3",
 * "sysbench-cpu", "sysbench-memory"). On malformed input, err says where
 * (line, or JSON path) and what was expected, and -EINVAL is returned. */
int import_parse(const char *text, const char *name, const struct strv *labels, json_t **doc, const char **tool,
		 char *err, size_t errlen);

#endif
