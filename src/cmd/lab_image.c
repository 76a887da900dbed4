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
#include "../core/tempfile.h"
#include "../lab/balloon.h"
#include "../lab/distro.h"
#include "../guest/fs.h"
#include "../lab/workdir.h"
#include "../lab/evidence.h"
#include "../lab/image.h"
#include "../lab/iso.h"
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
	{ .name = "format", .type = OPT_STRING, .metavar = "LIST",
	  .help = "also make the image a disk that any hypervisor boots, beside it in the image's directory "
		  "(comma-separated): iso, vmbench.iso: GRUB (BIOS and UEFI, as grub-pc-bin and grub-efi-amd64-bin "
		  "are installed) with the image's kernel and initramfs, whose init gives the agent the virtio "
		  "console when there is one (QEMU, libvirt), else the second serial port (ttyS1: VirtualBox's and "
		  "VMware's serial port to a pipe); qcow2, vmdk, vdi: that ISO converted by qemu-img, to attach as "
		  "a disk (a hybrid ISO boots as one). x86_64 only; the lab boots the ISO with the key boot=cdrom" },
	LAB_OPTS_SAY,
	/* where the image goes is --image-dir's: --out (run's) is refused, saying so */
	{ .name = "out", .type = OPT_BOOL, .refused = true,
	  .help = "--image-dir DIR says where the guest images go, -o FILE where the HTML report goes" },
	OPT_TABLE_END,
};

/* --format's words: each a row of LAB_DISK_FORMATS, once; x86_64 only */
static int check_formats(const struct vmb_cmd *self, const char *list, const char *arch)
{
	char seen[64] = "", names[128] = "";
	const char *w = list;

	for (size_t i = 0; i < lab_ndisk_formats; i++)
		str_appendf(names, sizeof(names), &(size_t){ strlen(names) }, "%s%s", i ? ", " : "",
			    lab_disk_formats[i].name);
	while (*w) {
		size_t n = strcspn(w, ",");
		const struct lab_disk_format *f = NULL;

		for (size_t i = 0; i < lab_ndisk_formats; i++)
			if (strlen(lab_disk_formats[i].name) == n && !strncmp(lab_disk_formats[i].name, w, n))
				f = &lab_disk_formats[i];
		if (!f)
			return cmd_usage_error(self, "--format: '%.*s' is no format of the image's; formats: %s", (int)n,
					       w, names);
		if (seen[f - lab_disk_formats])
			return cmd_usage_error(self, "--format: %s is given twice", f->name);
		seen[f - lab_disk_formats] = 1;
		w += n;
		if (*w == ',' && !*++w)
			return cmd_usage_error(self, "--format: a list ends with a comma");
	}
	if (!*list)
		return cmd_usage_error(self, "--format: an empty list; formats: %s", names);
	if (strcmp(arch, "x86_64"))
		return cmd_usage_error(self, "--format makes x86_64 images only (GRUB's BIOS and x86_64 UEFI "
				       "platforms), not --arch %s", arch);
	return CMD_CONTINUE;
}

/* Whether the comma-separated list has the word name */
static bool list_has(const char *list, const char *name)
{
	for (const char *w = list; *w; w += strcspn(w, ","), w += *w == ',')
		if (strcspn(w, ",") == strlen(name) && !strncmp(w, name, strlen(name)))
			return true;
	return false;
}

/* The ISO, and each other format of list converted from it, in dir */
static int make_formats_locked(const char *list, const char *arch, const char *dir)
{
	struct lab_iso iso;
	char err[2048];
	int r = lab_iso_build(dir, arch, &iso, err, sizeof(err));

	if (r < 0) {
		log_error("lab image --format: %s", err);
		return r == -EINTR ? EXIT_INTERRUPTED : EXIT_FAILED;
	}
	if (list_has(list, "iso"))
		printf("%s %s (GRUB: %s%s%s)\n", iso.built ? "built" : "up to date:", iso.path, iso.bios ? "BIOS" : "",
		       iso.bios && iso.uefi ? " and " : "", iso.uefi ? "UEFI" : "");
	for (size_t i = 0; i < lab_ndisk_formats; i++) {
		const struct lab_disk_format *f = &lab_disk_formats[i];
		char path[4300];
		bool built;

		if (!f->qemu_img || !list_has(list, f->name))
			continue;
		r = lab_iso_convert(&iso, f, path, sizeof(path), &built, err, sizeof(err));
		if (r < 0) {
			log_error("lab image --format %s: %s", f->name, err);
			return r == -EINTR ? EXIT_INTERRUPTED : EXIT_FAILED;
		}
		printf("%s %s (%s)\n", built ? "built" : "up to date:", path, f->hypervisors);
	}
	return EXIT_OK;
}

/* Under the image directory's lock, which removes what a killed vmbench
 * left; Ctrl-C (SIGTERM) ends grub-mkrescue or qemu-img and removes their
 * files; a second one removes them at once (the registry of temporary
 * files) and ends the process. */
static int make_formats(const char *list, const char *arch, const char *dir)
{
	char err[2048];
	int r = cmd_install_stop_signals(vmb_tempfiles_unlink_all), fd, ret;

	if (r < 0) {
		log_errno(r, "installing signal handlers");
		return EXIT_FAILED;
	}
	fd = lab_iso_lock(dir, err, sizeof(err));
	if (fd < 0) {
		log_error("lab image --format: %s", err);
		return fd == -EINTR ? EXIT_INTERRUPTED : EXIT_FAILED;
	}
	ret = make_formats_locked(list, arch, dir);
	close(fd);
	return ret;
}

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
	if (optset_str(&own, "format") && optset_str(&own, "distro")) {
		ret = cmd_usage_error(self, "--format makes a bootable disk of the busybox image; --distro's image is "
				      "a disk already (root.qcow2)");
		goto out;
	}
	if (optset_str(&own, "format")) {
		ret = check_formats(self, optset_str(&own, "format"), optset_str(&own, "arch"));
		if (ret != CMD_CONTINUE)
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
	ret = optset_str(&own, "format") ? make_formats(optset_str(&own, "format"), optset_str(&own, "arch"), out)
					 : EXIT_OK;
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
