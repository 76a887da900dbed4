/* Stored calibrations (vmbench calibrate): this machine's run-to-run noise
 * per case, kept beside the result store as new files, one per calibration,
 * in the directory STORE.calibration/. compare reads them all, newest first. */
#ifndef VMB_CALIB_H
#define VMB_CALIB_H

#include <jansson.h>
#include <stddef.h>

#define CALIB_SCHEMA "vmbench-calibration"
#define CALIB_SCHEMA_VERSION 1

/* The calibration directory of a store path. */
int calib_dir(const char *db_path, char *buf, size_t len);
/* Every stored calibration's cases, newest file first, as one object
 * {"cases": [...]}; an object with no cases when there is none. Files that
 * are not valid calibrations are skipped with a warning. NULL on ENOMEM. */
json_t *calib_load(const char *dir);
/* 0, or -EINVAL with a message naming what is wrong. */
int calib_validate(const json_t *doc, char *err, size_t errlen);
/* Can calib_save write in dir? A real try (root passes access() on a
 * read-only mount), leaving nothing behind: 0 or a negative errno. */
int calib_writable(const char *dir);
/* Write a calibration as a new file in dir (created when missing); its path
 * into path. */
int calib_save(const char *dir, const json_t *doc, char *path, size_t len);

#endif
