/* Numbers and lists from the command line and from files. Decimal only:
 * no hex or octal, no leading blanks, no trailing garbage, no inf or nan. */
#ifndef VMB_PARSE_H
#define VMB_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* All parsers return 0 or -EINVAL (not a number of that kind) or -ERANGE
 * (outside [min, max]); *out is written only on success. */
int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
int parse_double(const char *s, double min, double max, double *out);
/* Bytes with an optional binary suffix: 512, 4k, 1m, 2g, 1t (case-insensitive, "KiB" too). */
int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* "0-3,6,8-9" -> sorted unique CPU numbers; caller frees *out. */
int parse_cpu_list(const char *s, unsigned **out, size_t *n);
/* "1,2,all" -> values; "all" stands for all_value. Caller frees *out. */
int parse_uint_list(const char *s, unsigned min, unsigned max, unsigned all_value,
		    unsigned **out, size_t *n);

#endif
