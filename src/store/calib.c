/* Stored calibrations: new files only, validated whenever read back. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calib.h"
#include "../core/file.h"
#include "../core/log.h"
#include "../core/banned.h"

int calib_dir(const char *db_path, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s.calibration", db_path);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int calib_validate(const json_t *doc, char *err, size_t errlen)
{
	const json_t *cases = json_object_get(doc, "cases"), *e;
	size_t i;

	if (!json_is_object(doc) || strcmp(json_string_value(json_object_get(doc, "schema")) ?: "", CALIB_SCHEMA)) {
		snprintf(err, errlen, "not a vmbench calibration (schema \"%s\" expected)", CALIB_SCHEMA);
		return -EINVAL;
	}
	if (json_integer_value(json_object_get(doc, "schema_version")) != CALIB_SCHEMA_VERSION) {
		snprintf(err, errlen, "schema_version: this vmbench reads version %d", CALIB_SCHEMA_VERSION);
		return -EINVAL;
	}
	if (!json_is_array(cases) || json_array_size(cases) > 100000) {
		snprintf(err, errlen, "cases: expected an array");
		return -EINVAL;
	}
	json_array_foreach(cases, i, e) {
		static const char *const strs[] = { "machine", "suite", "test", "params", "metric" };
		const json_t *cv = json_object_get(e, "cv_between"), *runs = json_object_get(e, "runs");

		for (size_t k = 0; k < sizeof(strs) / sizeof(strs[0]); k++)
			if (!json_is_string(json_object_get(e, strs[k]))) {
				snprintf(err, errlen, "cases[%zu].%s: expected a string", i, strs[k]);
				return -EINVAL;
			}
		if (!json_is_number(cv) || !isfinite(json_number_value(cv)) || json_number_value(cv) < 0 ||
		    json_number_value(cv) > 10) {
			snprintf(err, errlen, "cases[%zu].cv_between: expected a number from 0 to 10", i);
			return -EINVAL;
		}
		if (!json_is_integer(runs) || json_integer_value(runs) < 2 || json_integer_value(runs) > 100000) {
			snprintf(err, errlen, "cases[%zu].runs: expected an integer from 2 to 100000", i);
			return -EINVAL;
		}
	}
	return 0;
}

static int cmp_name_desc(const void *a, const void *b)
{
	return -strcmp(*(char *const *)a, *(char *const *)b);
}

json_t *calib_load(const char *dir)
{
	json_t *all = json_pack("{s:[]}", "cases");
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	if (!all || !d) {
		if (d)
			closedir(d);
		return all;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char **nn;

		if (l < 6 || strcmp(e->d_name + l - 5, ".json") || e->d_name[0] == '.')
			continue;
		nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn || !(nn[n] = strdup(e->d_name))) {
			names = nn ? nn : names;
			json_decref(all);
			all = NULL;
			break;
		}
		names = nn;
		n++;
	}
	closedir(d);
	/* names start with the UTC time: newest first */
	if (names)
		qsort(names, n, sizeof(*names), cmp_name_desc);
	for (size_t i = 0; all && i < n; i++) {
		char path[4096], err[256];
		json_t *doc;
		json_error_t je;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
		if (!doc) {
			log_warn("calibration %s is not JSON (%s); ignored", path, je.text);
			continue;
		}
		if (calib_validate(doc, err, sizeof(err)) < 0)
			log_warn("calibration %s: %s; ignored", path, err);
		else if (json_array_extend(json_object_get(all, "cases"), json_object_get(doc, "cases")) < 0) {
			/* out of memory: no calibration rather than part of one */
			json_decref(all);
			all = NULL;
		}
		json_decref(doc);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return all;
}

int calib_writable(const char *dir)
{
	char probe[4200];
	struct stat st;
	int fd, n;

	if (stat(dir, &st) < 0) {
		/* not there yet: calib_save makes it, and so does this try */
		if (errno != ENOENT || mkdir(dir, 0755) < 0)
			return -errno;
		return rmdir(dir) < 0 ? -errno : 0;
	}
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	n = snprintf(probe, sizeof(probe), "%s/.vmbench-probe-XXXXXX", dir);
	if (n < 0 || (size_t)n >= sizeof(probe))
		return -ENAMETOOLONG;
	fd = mkostemp(probe, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	(void)close(fd);
	return unlink(probe) < 0 ? -errno : 0;
}

int calib_save(const char *dir, const json_t *doc, char *path, size_t len)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	char *text;
	int r, n;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return log_errno(-errno, "creating %s", dir);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	n = snprintf(path, len, "%s/%s-%ld.json", dir, stamp, (long)getpid());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	if (!text)
		return -ENOMEM;
	r = file_write_new(path, text, strlen(text));
	free(text);
	if (r < 0)
		return log_errno(r, "writing the calibration %s", path);
	return 0;
}
