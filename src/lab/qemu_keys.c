/* What the matrix keys' rows do to QEMU (the qemu and child columns of
 * LAB_KEYS, src/lab/matrix.h): each key's arguments on the command line,
 * pushed after -machine in the order of the rows, and what a key does in
 * QEMU's forked child before exec; the one argument check every push goes
 * through (lab_push); firmware=uefi's variable store. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "matrix.h"
#include "qemu.h"
#include "../core/str.h"
#include "../core/banned.h"

void lab_push(struct lab_args *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (a->r == 0 && (n < 0 || (size_t)n >= sizeof(buf)))
		a->r = -ENAMETOOLONG;
	if (a->r == 0)
		a->r = strv_push(a->a, buf);
}

int lab_opt_escape(enum lab_opt_syntax syntax, const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in; in++) {
		bool esc = *in == ',' || (syntax == LAB_OPT_FUSE && *in == '\\');

		if (o + 1 + esc >= len) {
			if (len)
				out[0] = '\0';
			return -ENAMETOOLONG;
		}
		if (esc)
			out[o++] = syntax == LAB_OPT_QEMU ? ',' : '\\';
		out[o++] = *in;
	}
	if (!len)
		return -ENAMETOOLONG;
	out[o] = '\0';
	return 0;
}

const char *lab_arg_esc(struct lab_args *a, const char *in, char *out, size_t len)
{
	int r = lab_opt_escape(LAB_OPT_QEMU, in, out, len);

	if (r < 0 && a->r == 0)
		a->r = r;
	return r < 0 ? "" : out;
}

int lab_opt_get(const char *s, const char *key, char *out, size_t len)
{
	size_t k = strlen(key);

	for (const char *p = s; p && *p;) {
		bool match = !strncmp(p, key, k) && p[k] == '=';
		size_t o = 0;

		/* the option's value up to a lone comma; ",," is one of its bytes */
		for (p = match ? p + k + 1 : p; *p && (*p != ',' || p[1] == ','); p += *p == ',' ? 2 : 1)
			if (match) {
				if (o + 1 >= len)
					return -ENAMETOOLONG;
				out[o++] = *p;
			}
		if (match) {
			out[o] = '\0';
			return 0;
		}
		p = *p ? p + 1 : NULL;
	}
	return -ENOENT;
}

/* ---- the keys' arguments ---- */

/* accel, and tcg=: TCG's vCPUs on a host thread each or on one */
int lab_qemu_arg_accel(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len)
{
	(void)p;
	if (c->accel == LAB_ACCEL_AUTO)
		return errf(why, len, -EINVAL, "accel=auto must be resolved (kvm or tcg) before building the command line");
	lab_push(a, "-accel");
	if (c->accel == LAB_ACCEL_KVM)
		lab_push(a, "kvm");
	else
		lab_push(a, "tcg,thread=%s", c->v[LAB_TCG]);
	return 0;
}

/* smp, and topology=SxCxT */
int lab_qemu_arg_smp(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len)
{
	(void)p, (void)why, (void)len;
	lab_push(a, "-smp");
	if (c->topology[0])
		lab_push(a, "%s,sockets=%u,cores=%u,threads=%u", c->v[LAB_SMP], c->topology[0], c->topology[1],
			 c->topology[2]);
	else
		lab_push(a, "%s", c->v[LAB_SMP]);
	return 0;
}

int lab_qemu_arg_mem(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len)
{
	(void)p, (void)why, (void)len;
	lab_push(a, "-m");
	lab_push(a, "%s", c->v[LAB_MEM]);
	return 0;
}

/* cpu=: the model's argument under the configuration's accelerator */
int lab_qemu_arg_cpu(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len)
{
	const struct lab_cpu *cpu = c->cpu;
	const char *arg = cpu ? c->accel == LAB_ACCEL_KVM ? cpu->kvm : cpu->tcg : NULL;

	(void)p;
	if (!cpu)
		return errf(why, len, -EINVAL, "cpu=%s is no %s CPU model", c->v[LAB_CPU], c->v[LAB_ARCH]);
	if (!arg)
		return errf(why, len, -EOPNOTSUPP, "cpu=%s does not run under accel=%s", cpu->name, c->v[LAB_ACCEL]);
	lab_push(a, "-cpu");
	lab_push(a, "%s", arg);
	return 0;
}

/* firmware=: QEMU's own, or a firmware's code as a read-only flash with
 * this boot's variable store as the second (or as -bios without one) */
int lab_qemu_arg_firmware(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why,
		      size_t len)
{
	const struct lab_firmware *fw = c->firmware;
	char esc[1024];

	if (!fw)
		return errf(why, len, -EINVAL, "firmware=%s is not known on %s", c->v[LAB_FIRMWARE], c->v[LAB_ARCH]);
	if (!fw->code)
		return 0;
	if (!fw->vars) {
		lab_push(a, "-bios");
		lab_push(a, "%s", fw->code);
		return 0;
	}
	if (!p->fw_vars)
		return errf(why, len, -EINVAL, "firmware=%s: no variable store of this boot", fw->name);
	lab_push(a, "-drive");
	lab_push(a, "if=pflash,format=raw,unit=0,readonly=on,file=%s", lab_arg_esc(a, fw->code, esc, sizeof(esc)));
	lab_push(a, "-drive");
	lab_push(a, "if=pflash,format=raw,unit=1,file=%s", lab_arg_esc(a, p->fw_vars, esc, sizeof(esc)));
	return 0;
}

int lab_qemu_arg_boot(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why,
		      size_t len)
{
	char esc[1024];

	if (!c->boot)
		return errf(why, len, -EINVAL, "boot=%s is no way of booting the lab knows", c->v[LAB_BOOT]);
	if (c->boot->kernel)
		return 0;
	if (!p->boot_file)
		return errf(why, len, -EINVAL, "boot=%s: no %s given", c->boot->name, c->boot->file);
	/* the second IDE bus: the first is disk=ide's on the pc machine, and
	 * q35's AHCI has six, one a drive */
	lab_push(a, "-drive");
	lab_push(a, "if=none,id=bootcd,media=cdrom,readonly=on,file=%s",
		 lab_arg_esc(a, p->boot_file, esc, sizeof(esc)));
	lab_push(a, "-device");
	lab_push(a, "ide-cd,drive=bootcd,bus=ide.1,bootindex=0");
	return 0;
}

int lab_keys_qemu(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len)
{
	for (size_t k = 0; k < lab_nkeys; k++) {
		int r = lab_keys[k].qemu ? lab_keys[k].qemu(a, c, p, why, len) : 0;

		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- what the keys do to QEMU's process ---- */

/* nice=N: QEMU's priority, set in its child before exec (the vCPU threads
 * it starts inherit it) */
int lab_child_nice(const struct lab_config *c)
{
	if (c->nice == 0)
		return 0;
	if (setpriority(PRIO_PROCESS, 0, c->nice) < 0) {
		int r = -errno;

		/* QEMU's log: the host quotes its last line */
		fprintf(stderr, "vmbench: nice=%d: setpriority: %s%s\n", c->nice, strerror(-r),
			c->nice < 0 ? " (a negative nice needs CAP_SYS_NICE)" : "");
		return r;
	}
	return 0;
}

int lab_keys_child(const struct lab_config *c)
{
	for (size_t k = 0; k < lab_nkeys; k++) {
		int r = lab_keys[k].child ? lab_keys[k].child(c) : 0;

		if (r < 0)
			return r;
	}
	return 0;
}

/* firmware=uefi: the variable store's template copied, a new file */
int lab_firmware_setup(const struct lab_config *c, const struct lab_paths *p, char *why, size_t len)
{
	const struct lab_firmware *fw = lab_config_firmware(c);
	char buf[65536];
	int in, out, r = 0;
	ssize_t n;

	if (!fw)
		return errf(why, len, -EINVAL, "firmware=%s is not known on %s", c->v[LAB_FIRMWARE], c->v[LAB_ARCH]);
	if (fw->code && access(fw->code, R_OK) < 0)
		return errf(why, len, -EOPNOTSUPP, "firmware=%s needs %s (%s): apt-get install %s", fw->name, fw->code,
			    strerror(errno), fw->package);
	if (!fw->vars)
		return 0;
	if (!p->fw_vars)
		return errf(why, len, -EINVAL, "firmware=%s: no place for its variable store", fw->name);
	in = open(fw->vars, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errf(why, len, -EOPNOTSUPP, "firmware=%s needs %s (%s): apt-get install %s", fw->name, fw->vars,
			    strerror(errno), fw->package);
	out = open(p->fw_vars, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		r = -errno;
	while (r == 0 && (n = read(in, buf, sizeof(buf))) != 0)
		if (n < 0 ? errno != EINTR : write(out, buf, (size_t)n) != n)
			r = n < 0 ? -errno : -EIO;
	close(in);
	if (out >= 0 && close(out) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		return errf(why, len, r, "copying the firmware's variable store %s to %s: %s", fw->vars, p->fw_vars,
			    strerror(-r));
	return 0;
}

