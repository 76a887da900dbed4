/* The lab's package mirror (app.apt in a distribution guest): the .debs
 * debootstrap left in the lab's cache, with a Packages index that the
 * host's dpkg-scanpackages writes, served as a flat apt repository over
 * HTTP on the host's end of the guest's link, from inside QEMU's network
 * namespace, so that the guest's package manager reaches nothing beyond
 * the machine. The server is a child process of the lab's: one GET or
 * HEAD per connection, only the files of the plan, every wait bounded,
 * killed with QEMU's namespace's other helpers. */
#ifndef VMB_LAB_MIRROR_H
#define VMB_LAB_MIRROR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define LAB_MIRROR_MAX_FILES 20000 /* .debs in one mirror */
#define LAB_MIRROR_MAX_REQUEST 8192 /* bytes of a request's head */

/* What a GET may name: a file's name in the repository and its path here */
struct lab_mirror_file {
	char *name, *path;
};

/* The plan: "Packages" (the index) and every NAME.deb of the directory of
 * .debs, by name; nothing else is served. */
struct lab_mirror_plan {
	struct lab_mirror_file *v;
	size_t n;
};

/* The plan of the .debs in debs (regular files, not links, of names of
 * letters, digits and + . _ ~ % -, ending in .deb; anything else is left
 * out) and the index at packages. */
int lab_mirror_plan(const char *debs, const char *packages, struct lab_mirror_plan *p, char *err, size_t errlen);
void lab_mirror_plan_clear(struct lab_mirror_plan *p);

/* The head of an HTTP request (len bytes, up to its blank line): GET or
 * HEAD of a path that, percent-decoded and without its leading "/" and
 * "./", is a name of the plan. 0 with *f (and *head for HEAD); -ENOENT for
 * a well-formed request of a name not in the plan; -EPROTO for anything
 * else (another method, no HTTP/1.x, a bad escape, a NUL). */
int lab_mirror_request(const struct lab_mirror_plan *p, const char *req, size_t len, const struct lab_mirror_file **f,
		       bool *head);

struct lab_mirror {
	pid_t pid;          /* the server in QEMU's namespace, or 0 */
	char url[64];       /* http://HOST:PORT/ */
	char packages[PATH_MAX];
};

/* Write the index of debs (dpkg-scanpackages) in work_dir and serve both
 * on the host's address of the link in qemu's network namespace. */
int lab_mirror_start(struct lab_mirror *m, pid_t qemu, const char *debs, const char *work_dir, char *err,
		     size_t errlen);
/* The server killed and reaped, the index removed. */
void lab_mirror_stop(struct lab_mirror *m);

#endif
