/* Whether this machine's KVM runs guests: QEMU's words for a guest it
 * stopped for good, and the verdict the lab remembers (kvmguest.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "kvmguest.h"
#include "evidence.h"
#include "image.h"
#include "proto_host.h"
#include "../core/file.h"
#include "../core/parse.h"
#include "../core/spawn.h"
#include "../core/str.h"
#include "../core/util.h"
#include "../core/banned.h"

#define VERDICT_FILE "kvm-guests"

/* How QEMU begins its report when KVM could not run the guest (QEMU then
 * stops the guest: QMP's run state "internal-error") */
static const char *const kvm_error_marks[] = { "KVM internal error", "KVM: entry failed" };

/* The line at s, escaped, at most max bytes of it escaped, appended to words. */
static void append_line(char *words, size_t len, size_t *off, const char *sep, const char *s, size_t max)
{
	char quoted[256];
	size_t n = strcspn(s, "\n");

	proto_quote(quoted, max < sizeof(quoted) ? max + 1 : sizeof(quoted), s, n);
	str_appendf(words, len, off, "%s%s", sep, quoted);
}

bool lab_kvm_error_words(const char *log, char *words, size_t len)
{
	const char *at = NULL, *next;
	size_t off = 0;

	if (!log || !len)
		return false;
	for (size_t i = 0; i < sizeof(kvm_error_marks) / sizeof(kvm_error_marks[0]) && !at; i++)
		at = strstr(log, kvm_error_marks[i]);
	if (!at)
		return false;
	words[0] = '\0';
	append_line(words, len, &off, "", at, 200);
	/* after "extra data[N]: ..." lines, the kind of error ("emulation
	 * failure"), unless what follows is already the register dump */
	for (next = strchr(at, '\n'); next && !strncmp(next + 1, "extra data[", 11); next = strchr(next + 1, '\n'))
		;
	if (next && next[1] && next[1] != '\n' && !memchr(next + 1, '=', strcspn(next + 1, "\n")))
		append_line(words, len, &off, "; ", next + 1, 100);
	return true;
}

/* value of "key=" at the start of a line of text, into buf: 0 or -ENOENT,
 * -E2BIG when it does not fit */
static int kv(const char *text, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == '=') {
			size_t n = strcspn(l + kl + 1, "\n");

			if (n >= len)
				return -E2BIG;
			memcpy(buf, l + kl + 1, n);
			buf[n] = '\0';
			return 0;
		}
	return -ENOENT;
}

int lab_kvm_verdict_parse(const char *text, struct lab_kvm_verdict *v)
{
	struct lab_kvm_verdict o = { 0 };
	char verdict[16], when[24];
	int64_t t;

	if (kv(text, "verdict", verdict, sizeof(verdict)) < 0 || (strcmp(verdict, "runs") && strcmp(verdict, "fails")))
		return -EINVAL;
	o.runs = !strcmp(verdict, "runs");
	if (kv(text, "when", when, sizeof(when)) < 0 || parse_i64(when, 1, (int64_t)1 << 40, &t) < 0)
		return -EINVAL;
	o.when = t;
	/* written escaped (proto_quote): anything else is not ours */
	if (kv(text, "reason", o.reason, sizeof(o.reason)) == -E2BIG)
		return -EINVAL;
	for (const char *s = o.reason; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return -EINVAL;
	if (kv(text, "boot_id", o.boot_id, sizeof(o.boot_id)) == -E2BIG ||
	    strspn(o.boot_id, "0123456789abcdef-") != strlen(o.boot_id))
		return -EINVAL;
	/* where it was made: written escaped, as the reason */
	if (kv(text, "host", o.host, sizeof(o.host)) == -E2BIG || kv(text, "kernel", o.kernel, sizeof(o.kernel)) == -E2BIG ||
	    kv(text, "qemu", o.qemu, sizeof(o.qemu)) == -E2BIG)
		return -EINVAL;
	for (const char *f[] = { o.host, o.kernel, o.qemu }, **p = f; p < f + 3; p++)
		for (const char *c = *p; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				return -EINVAL;
	*v = o;
	return 0;
}

/* This boot of the machine's id, or "" */
static void boot_id(char *buf, size_t len)
{
	if (read_line_at("/", "/proc/sys/kernel/random/boot_id", buf, len) < 0 ||
	    strspn(buf, "0123456789abcdef-") != strlen(buf))
		buf[0] = '\0';
}

/* Where this process is: the host's name, its kernel's release and its
 * QEMU for the host's architecture (the first on PATH: its path, size and
 * modification time; "none" when there is none), each escaped. */
static void here(char *host, size_t hlen, char *kernel, size_t klen, char *qemu, size_t qlen)
{
	struct utsname u;
	struct stat st;
	char bin[64], p[4200], id[4400] = "none";

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	proto_quote(host, hlen, u.nodename, strlen(u.nodename));
	proto_quote(kernel, klen, u.release, strlen(u.release));
	snprintf(bin, sizeof(bin), "qemu-system-%s", lab_host_arch());
	if (path_find(bin, p, sizeof(p)) == 0 && stat(p, &st) == 0)
		snprintf(id, sizeof(id), "%s (%lld bytes, modified %lld)", p, (long long)st.st_size,
			 (long long)st.st_mtime);
	proto_quote(qemu, qlen, id, strlen(id));
}

bool lab_kvm_verdict_here(const struct lab_kvm_verdict *v, char *why, size_t len)
{
	char host[72], kernel[72], qemu[320];

	here(host, sizeof(host), kernel, sizeof(kernel), qemu, sizeof(qemu));
	if (!*v->host && !*v->kernel && !*v->qemu)
		snprintf(why, len, "an older vmbench's, which did not say where it was made");
	else if (strcmp(v->host, host))
		snprintf(why, len, "made on another host (%s)", v->host);
	else if (strcmp(v->kernel, kernel))
		snprintf(why, len, "made under another kernel (%s; this one is %s)", v->kernel, kernel);
	else if (strcmp(v->qemu, qemu))
		snprintf(why, len, "made with another QEMU (%s; this one is %s)", v->qemu, qemu);
	else
		return true;
	return false;
}

void lab_kvm_age(int64_t when, char *buf, size_t len)
{
	int64_t s = (int64_t)time(NULL) - when;

	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, len, "%lld s", (long long)s);
	else if (s < 2 * 3600)
		snprintf(buf, len, "%lld min", (long long)(s / 60));
	else if (s < 2 * 86400)
		snprintf(buf, len, "%lld h", (long long)(s / 3600));
	else
		snprintf(buf, len, "%lld days", (long long)(s / 86400));
}

int lab_kvm_verdict_save(bool runs, const char *reason)
{
	/* once per process and verdict: -1 not yet, else the last saved */
	static int saved = -1;
	char dir[4000], path[4100], tmp[4200], id[40], quoted[320], host[72], kernel[72], qemu[320], *text;
	int r;

	if (saved == (int)runs)
		return 0;
	here(host, sizeof(host), kernel, sizeof(kernel), qemu, sizeof(qemu));
	r = lab_state_dir(dir, sizeof(dir));
	if (r < 0)
		return r;
	r = file_mkdirs(dir);
	if (r < 0)
		return r;
	boot_id(id, sizeof(id));
	proto_quote(quoted, sizeof(quoted), reason ? reason : "", 300);
	text = xasprintf("verdict=%s\nreason=%s\nwhen=%lld\nboot_id=%s\nhost=%s\nkernel=%s\nqemu=%s\n",
			 runs ? "runs" : "fails", quoted, (long long)time(NULL), id, host, kernel, qemu);
	if (!text)
		return -ENOMEM;
	/* written new beside it, then over the last verdict in one step */
	snprintf(path, sizeof(path), "%s/%s", dir, VERDICT_FILE);
	snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	(void)unlink(tmp);
	r = file_write_new(tmp, text, strlen(text));
	free(text);
	if (r == 0 && rename(tmp, path) < 0) {
		r = -errno;
		(void)unlink(tmp);
	}
	if (r == 0)
		saved = runs;
	return r;
}

int lab_kvm_verdict_load(struct lab_kvm_verdict *v, bool *this_boot)
{
	char dir[4000], path[4100], id[40], *text = NULL;
	int r = lab_state_dir(dir, sizeof(dir));

	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/%s", dir, VERDICT_FILE);
	r = read_file(path, &text);
	if (r < 0)
		return r == -ENOENT ? r : -EINVAL;
	r = lab_kvm_verdict_parse(text, v);
	free(text);
	if (r == 0) {
		boot_id(id, sizeof(id));
		*this_boot = *id && !strcmp(id, v->boot_id);
	}
	return r;
}
