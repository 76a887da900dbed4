/* The rows the matrix keys' values choose: CPU models, firmwares, NIC
 * queue models, guest images, HTTP servers, databases, device models,
 * profiles and cache modes (each table an X-macro of src/lab/matrix.h;
 * the filesystems and shares, which the guest's agent checks too, are
 * src/proto/mounts.c), and finding a row by its name. The matrix's own keys
 * are rows of src/lab/keys.c; the plan that points at these rows is
 * src/lab/plan.c. */
#include <string.h>

#include "matrix.h"
#include "../core/banned.h"

const struct lab_cpu lab_cpus[] = {
#define CPU_ROW(a, n, k, t, m) { .arch = #a, .name = n, .kvm = k, .tcg = t, .model = m },
	LAB_CPUS(CPU_ROW)
#undef CPU_ROW
};
const size_t lab_ncpus = sizeof(lab_cpus) / sizeof(lab_cpus[0]);

const struct lab_firmware lab_firmwares[] = {
#define FIRMWARE_ROW(a, n, c, v, k, m, e, p) \
	{ .arch = #a, .name = n, .code = c, .vars = v, .kernel = k, .mark = m, .efi = e, .package = p },
	LAB_FIRMWARES(FIRMWARE_ROW)
#undef FIRMWARE_ROW
};
const size_t lab_nfirmwares = sizeof(lab_firmwares) / sizeof(lab_firmwares[0]);

const struct lab_mq lab_mqs[] = {
#define MQ_ROW(n, a, q, f) { .model = n, .arg = a, .per_queue = q, .fixed = f },
	LAB_MULTIQUEUE(MQ_ROW)
#undef MQ_ROW
};
const size_t lab_nmqs = sizeof(lab_mqs) / sizeof(lab_mqs[0]);


const struct lab_image_row lab_images[] = {
#define IMAGE_ROW(n, d, p, r, a, i, s, b) { n, d, p, r, a, i, s, b },
	LAB_IMAGES(IMAGE_ROW)
#undef IMAGE_ROW
};
const size_t lab_nimages = sizeof(lab_images) / sizeof(lab_images[0]);

bool lab_image_has(const struct lab_image_row *img, const char *pkg)
{
	size_t n = strlen(pkg);

	for (const char *p = img && img->packages ? img->packages : ""; *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncmp(p, pkg, n))
			return true;
	return false;
}

const struct lab_httpd lab_httpds[] = {
#define HTTPD_ROW(n, port, path, pkg) { n, port, path, pkg },
	LAB_HTTPDS(HTTPD_ROW)
#undef HTTPD_ROW
};
const size_t lab_nhttpds = sizeof(lab_httpds) / sizeof(lab_httpds[0]);

const struct lab_db lab_dbs[] = {
#define DB_ROW(n, u, pkg) { n, u, pkg },
	LAB_DBS(DB_ROW)
#undef DB_ROW
};
const size_t lab_ndbs = sizeof(lab_dbs) / sizeof(lab_dbs[0]);

const struct lab_device lab_devices[] = {
#define DEVICE_ROW(k, n, a, m, d, drv, mods, lv) \
	{ .key = k, .name = n, .arches = a, .x86_machine = m, .devices = d, .driver = drv, .modules = mods, .libvirt = lv },
	LAB_DEVICES(DEVICE_ROW)
#undef DEVICE_ROW
};
const size_t lab_ndevices = sizeof(lab_devices) / sizeof(lab_devices[0]);

const struct lab_profile lab_profiles[] = {
#define PROFILE_ROW(n, hv, k, mach) { .name = n, .hypervisor = hv, .keys = k, .x86_machine = mach },
	LAB_PROFILES(PROFILE_ROW)
#undef PROFILE_ROW
};
const size_t lab_nprofiles = sizeof(lab_profiles) / sizeof(lab_profiles[0]);

const struct lab_cache_mode lab_cache_modes[] = {
#define CACHE_ROW(n, d) { .name = n, .direct = d },
	LAB_CACHES(CACHE_ROW)
#undef CACHE_ROW
};
const size_t lab_ncache_modes = sizeof(lab_cache_modes) / sizeof(lab_cache_modes[0]);

/* ---- a row by its name (NULL: none) ---- */

#define FIND(rows, n, cond)                   \
	do {                                  \
		for (size_t i_ = 0; i_ < (n); i_++) \
			if (cond)             \
				return &(rows)[i_]; \
		return NULL;                  \
	} while (0)

const struct lab_cpu *lab_cpu_find(const char *arch, const char *name)
{
	FIND(lab_cpus, lab_ncpus, !strcmp(lab_cpus[i_].arch, arch) && !strcmp(lab_cpus[i_].name, name));
}

const struct lab_firmware *lab_firmware_find(const char *arch, const char *name)
{
	FIND(lab_firmwares, lab_nfirmwares, !strcmp(lab_firmwares[i_].arch, arch) && !strcmp(lab_firmwares[i_].name, name));
}

const struct lab_mq *lab_mq_find(const char *model)
{
	FIND(lab_mqs, lab_nmqs, !strcmp(lab_mqs[i_].model, model));
}

const struct lab_image_row *lab_image_find(const char *name)
{
	FIND(lab_images, lab_nimages, !strcmp(lab_images[i_].name, name));
}

const struct lab_boot_row lab_boots[] = {
#define BOOT_ROW(n, k, f) { .name = n, .kernel = k, .file = f },
	LAB_BOOTS(BOOT_ROW)
#undef BOOT_ROW
};
const size_t lab_nboots = sizeof(lab_boots) / sizeof(lab_boots[0]);

const struct lab_boot_row *lab_boot_find(const char *name)
{
	FIND(lab_boots, lab_nboots, !strcmp(lab_boots[i_].name, name));
}

const struct lab_httpd *lab_httpd_find(const char *name)
{
	FIND(lab_httpds, lab_nhttpds, !strcmp(lab_httpds[i_].name, name));
}

const struct lab_db *lab_db_find(const char *name)
{
	FIND(lab_dbs, lab_ndbs, !strcmp(lab_dbs[i_].name, name));
}

const struct lab_profile *lab_profile_find(const char *name)
{
	FIND(lab_profiles, lab_nprofiles, !strcmp(lab_profiles[i_].name, name));
}

const struct lab_device *lab_device_find(enum lab_key key, const char *name)
{
	FIND(lab_devices, lab_ndevices, lab_devices[i_].key == key && !strcmp(lab_devices[i_].name, name));
}

const struct lab_cache_mode *lab_cache_find(const char *name)
{
	FIND(lab_cache_modes, lab_ncache_modes, !strcmp(lab_cache_modes[i_].name, name));
}
