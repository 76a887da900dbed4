/* vmbench lab image: the guest image built, or found up to date: the
 * busybox initramfs with Debian's kernel, or with --distro a distribution's
 * disk image. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/statfs.h>

#include "cmd.h"
#include "lab.h"
#include "../core/run_opts.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/opts.h"
#include "../core/noise.h"
#include "../core/sys.h"
#include "../core/stop.h"
#include "../lab/balloon.h"
#include "../lab/distro.h"
#include "../guest/fs.h"
#include "../lab/workdir.h"
#include "../lab/evidence.h"
#include "../lab/image.h"
#include "../lab/labrun.h"
#include "../lab/matrix.h"
#include "../lab/contend.h"
#include "../lab/proto_host.h"
#include "../lab/qemu.h"
#include "../probe/probe.h"
#include "../report/compare.h"
#include "../report/hostcost.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../suites/balloon.h"
#include "../suites/contend.h"
#include "../suites/suites.h"
#include "../core/str.h"
#include "../core/banned.h"


static const struct vmb_opt lab_image_opts[] = {
	{ .name = "arch", .type = OPT_STRING, .def = "x86_64", .choices = "x86_64|aarch64", .metavar = "ARCH",
	  .help = "the guest's architecture" },
	{ .name = "image-dir", .type = OPT_STRING, .metavar = "DIR",
	  .help = "where the image goes (default CACHE/image-ARCH)" },
	LAB_OPT_CACHE,
	LAB_OPT_KERNEL,
	{ .name = "distro", .type = OPT_STRING, .choices = LAB_DISTRO_CHOICES, .metavar = "NAME",
	  .help = "a disk image of a distribution instead of the busybox initramfs: Debian 12 made with "
		  "debootstrap from Debian's registry (systemd, openssh-server, Debian's kernel, this vmbench's agent "
		  "as a systemd service after the network, the lab's SSH key from CACHE/ssh), as root.qcow2 with the "
		  "kernel and initrd beside it; needs root the first time (debootstrap's chroot), then cached" },
	{ .name = "distro-packages", .type = OPT_STRING, .metavar = "LIST",
	  .help = "more packages for --distro's image, comma-separated Debian names (e.g. gcc,make for "
		  "app.build)" },
	LAB_OPT_BUSYBOX,
	LAB_OPT_AGENT,
	LAB_OPTS_SAY,
	/* where the image goes is --image-dir's: --out (run's) is refused, saying so */
	{ .name = "out", .type = OPT_BOOL, .refused = true,
	  .help = "--image-dir DIR says where the guest images go, -o FILE where the HTML report goes" },
	OPT_TABLE_END,
};

static int cmd_lab_image(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	char cache[4096], out[4200], err[1024];
	int ret, rebuilt = 0;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	cmd_apply_verbosity(&own);
	if (optset_str(&own, "distro-packages") && !optset_str(&own, "distro")) {
		ret = cmd_usage_error(self, "--distro-packages adds packages to --distro's image: give --distro %s too",
				      LAB_DISTRO_CHOICES);
		goto out;
	}
	if (optset_str(&own, "distro") && (optset_str(&own, "kernel") || optset_str(&own, "busybox"))) {
		ret = cmd_usage_error(self, "--kernel and --busybox make the busybox image; --distro's image has the "
				      "distribution's own kernel and userland");
		goto out;
	}
	if (optset_str(&own, "cache"))
		snprintf(cache, sizeof(cache), "%s", optset_str(&own, "cache"));
	else
		lab_cache_home(cache, sizeof(cache));
	if (optset_str(&own, "image-dir"))
		snprintf(out, sizeof(out), "%s", optset_str(&own, "image-dir"));
	else if (optset_str(&own, "distro"))
		snprintf(out, sizeof(out), "%s/image-%s-%s", cache, optset_str(&own, "distro"), optset_str(&own, "arch"));
	else
		snprintf(out, sizeof(out), "%s/image-%s", cache, optset_str(&own, "arch"));
	if (optset_str(&own, "distro")) {
		ret = lab_distro_image_for(&own, optset_str(&own, "distro"), optset_str(&own, "distro-packages"),
				       optset_str(&own, "arch"), cache, out, &rebuilt,
				       err, sizeof(err));
		if (ret < 0) {
			log_error("lab image --distro %s: %s", optset_str(&own, "distro"), err);
			ret = ret == -ENOEXEC || ret == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
			goto out;
		}
		printf("%s %s (root.qcow2, vmlinuz, initrd.img, manifest.json)\n", rebuilt ? "built" : "up to date:", out);
		ret = EXIT_OK;
		goto out;
	}
	ret = lab_image_for(&own, optset_str(&own, "arch"), cache, out, &rebuilt, err, sizeof(err));
	if (ret < 0) {
		log_error("lab image: %s", err);
		/* a program given for the wrong architecture is bad input, like a bad file */
		ret = ret == -ENOEXEC ? EXIT_USAGE : EXIT_FAILED;
		goto out;
	}
	{
		/* vmlinux: the kernel proper QEMU starts, where the image has it (src/lab/kernel.h) */
		char vmlinux[sizeof(out) + 16];

		snprintf(vmlinux, sizeof(vmlinux), "%s/vmlinux", out);
		printf("%s %s (%svmlinuz, initrd.img, manifest.json)\n", rebuilt ? "built" : "up to date:", out,
		       access(vmlinux, F_OK) == 0 ? "vmlinux, " : "");
	}
	ret = EXIT_OK;
out:
	cmd_release(&own, NULL, &pos);
	return ret;
}

const struct vmb_cmd cmd_lab_image_desc = {
	.name = "image",
	.fn = cmd_lab_image,
	.args = "",
	.summary = "build the guest image, or find it up to date",
	.opts = lab_image_opts,
	.parent = &cmd_lab_desc,
};
