/* The kernel modules of the lab's guest image: which ones the device models
 * need, where they are in an unpacked kernel package, in which order the
 * guest loads them (dependencies first), and the load list its init reads.
 * One phase of the image build (src/lab/image.c), apart so that its
 * failures can be tested: a list that cannot grow fails the build, it is
 * never cut short. */
#ifndef VMB_MODULES_H
#define VMB_MODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/util.h"

/* Module names use '-' and '_' alike, as the kernel does: ne2k-pci.ko is
 * the module ne2k_pci, a depends= of nvme-core means nvme_core. A table
 * (the device and filesystem rows' modules) may spell a name either way;
 * every comparison of two names goes through these. */
/* The n bytes of name as the kernel spells the module, '-' made '_', into out. */
void lab_module_name(const char *name, size_t n, char *out, size_t len);
/* Whether a and b name one module. */
bool lab_module_same(const char *a, const char *b);

struct lab_modules {
	/* realloc for the growing lists; NULL: the C library's (a test fails it) */
	void *(*realloc)(void *p, size_t size);
	struct strv order;   /* paths of the modules, in load order */
	struct strv missing; /* wanted modules the kernel package does not have */
	char *list;          /* "a.ko\nb.ko\n": the base names, for the guest's init */
	size_t len;
	/* per wanted module, in its order: "a.ko b.ko" (its dependencies and
	 * itself, in load order; "" when missing), for the manifest */
	struct strv sets;
};

/* The modules the guest loads, in this order (after their dependencies):
 * LAB_BASE_MODULES and every device model's (src/lab/matrix.h) that arch
 * has (NULL: every row's), once each, spelled with '_'. */
int lab_image_modules(const char *arch, struct strv *mods);

/* The wanted modules with their dependencies, found below moddir (the
 * package's lib/modules/<kv>/kernel; NULL for a bare kernel, which has
 * none): fills m's order, missing and list. 0, or -ENOMEM (m is then
 * released). */
int lab_modules_gather(struct lab_modules *m, const char *moddir, const struct strv *wanted);
void lab_modules_release(struct lab_modules *m);

struct lab_config;
/* The modules a configuration asks for, as lab_image_modules: the base ones,
 * then those of its devices and its filesystem. 0 or -ENOMEM. */
int lab_config_modules(const struct lab_config *c, struct strv *mods);

/* What a guest of these wanted modules loads, from an image's manifest
 * (JSON text: "modules" in load order, "module_sets" per wanted module):
 * "a.ko,b.ko", the union of their sets in the image's load order, into
 * out. The guest loads only its configuration's drivers, as udev would for
 * its hardware, not every driver the image has (each costs time under TCG).
 * A wanted module whose set is empty (built in, or not in the kernel) adds
 * nothing. -ENOENT: the manifest has no sets, or none for a wanted module (an
 * image made before that module was wanted): the guest then loads every
 * module it has; -ENOSPC: longer
 * than len; -EINVAL: not a manifest. */
int lab_modules_for(const char *manifest, const struct strv *wanted, char *out, size_t len);

#endif
