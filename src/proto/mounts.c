/* The filesystems and shares the guest makes and mounts (mounts.h). */
#include <string.h>

#include "mounts.h"
#include "../core/banned.h"

const struct lab_fs lab_filesystems[] = {
#define FS_ROW(n, pkg, f, mk, v, mods, min) { .name = n, .package = pkg, .files = f, .mkfs = mk, .version = v, .modules = mods, .min_mib = min },
	LAB_FILESYSTEMS(FS_ROW)
#undef FS_ROW
};
const size_t lab_nfilesystems = sizeof(lab_filesystems) / sizeof(lab_filesystems[0]);

const struct lab_share lab_shares[] = {
#define SHARE_ROW(n, t, o) { .name = n, .type = t, .options = o },
	LAB_SHARES(SHARE_ROW)
#undef SHARE_ROW
};
const size_t lab_nshares = sizeof(lab_shares) / sizeof(lab_shares[0]);

const struct lab_share *lab_share_find(const char *name)
{
	for (size_t i = 0; name && i < lab_nshares; i++)
		if (!strcmp(lab_shares[i].name, name))
			return &lab_shares[i];
	return NULL;
}

const struct lab_fs *lab_fs_find(const char *name)
{
	for (size_t i = 0; name && i < lab_nfilesystems; i++)
		if (!strcmp(lab_filesystems[i].name, name))
			return &lab_filesystems[i];
	return NULL;
}
