/* vmbench lab: the QEMU lab. Today: `lab image` builds the guest image. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../lab/image.h"
#include "../core/banned.h"

const struct vmb_opt lab_opts[] = {
	{ .name = "arch", .type = OPT_STRING, .def = "x86_64", .choices = "x86_64|aarch64", .metavar = "ARCH",
	  .help = "the guest's architecture" },
	{ .name = "out", .type = OPT_STRING, .metavar = "DIR",
	  .help = "where the image goes (default $XDG_CACHE_HOME/vmbench/image-ARCH)" },
	{ .name = "cache", .type = OPT_STRING, .metavar = "DIR",
	  .help = "where downloaded kernel packages are kept (default $XDG_CACHE_HOME/vmbench)" },
	{ .name = "busybox", .type = OPT_STRING, .def = "/bin/busybox", .metavar = "PATH",
	  .help = "a static busybox (Debian's busybox-static)" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static void cache_home(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		snprintf(buf, len, "%s/vmbench", xdg);
	else
		snprintf(buf, len, "%s/.cache/vmbench", home && *home ? home : "/tmp");
}

int cmd_lab(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	char cache[4096], out[4200], err[1024], self_exe[4096];
	int ret, rebuilt = 0;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret >= 0)
		goto out;
	if (strcmp(pos.v[0], "image")) {
		ret = cmd_usage_error(self, "no lab command '%s'; 'image' builds the guest image (booting guests over a "
					    "matrix is not built yet)", pos.v[0]);
		goto out;
	}
	if (optset_str(&own, "cache"))
		snprintf(cache, sizeof(cache), "%s", optset_str(&own, "cache"));
	else
		cache_home(cache, sizeof(cache));
	if (optset_str(&own, "out"))
		snprintf(out, sizeof(out), "%s", optset_str(&own, "out"));
	else
		snprintf(out, sizeof(out), "%s/image-%s", cache, optset_str(&own, "arch"));
	/* the real path: ldd must see this binary, not a /proc/self of its own */
	if (!realpath("/proc/self/exe", self_exe)) {
		ret = EXIT_FAILED;
		log_errno(-errno, "finding this binary");
		goto out;
	}
	if (lab_image_build(&(struct lab_image_opts){
		    .arch = optset_str(&own, "arch"), .cache = cache, .out = out,
		    .busybox = optset_str(&own, "busybox"), .vmbench = self_exe,
	    }, &rebuilt, err, sizeof(err)) < 0) {
		log_error("lab image: %s", err);
		ret = strstr(err, "only") ? EXIT_USAGE : EXIT_FAILED;
		goto out;
	}
	printf("%s %s (vmlinuz, initrd.img, manifest.json)\n", rebuilt ? "built" : "up to date:", out);
	ret = EXIT_OK;
out:
	cmd_release(&own, NULL, &pos);
	return ret;
}
