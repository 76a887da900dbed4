/* The hypervisor back-end seam (hv.h): the session's row, the start-up
 * check of every row, and what the lab composes from the hooks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hv.h"
#include "../core/str.h"
#include "../core/banned.h"

static const struct lab_hv_ops *session_hv = &lab_hv_qemu;

const struct lab_hv_ops *lab_hv_default(void)
{
	return session_hv;
}

void lab_hv_set_default(const struct lab_hv_ops *hv)
{
	session_hv = hv;
}

bool lab_hv_config_unsupported(const struct lab_config *c, char *why, size_t len)
{
	const char *no;

	if (lab_config_unsupported(c, why, len))
		return true;
	no = session_hv->cannot ? session_hv->cannot(c) : NULL;
	if (no)
		snprintf(why, len, "through %s, %s", session_hv->name, no);
	return no != NULL;
}

static char session_uri[512];

void lab_hv_set_uri(const char *uri)
{
	snprintf(session_uri, sizeof(session_uri), "%s", uri ? uri : "");
}

const char *lab_hv_uri(void)
{
	return *session_uri ? session_uri : NULL;
}

int lab_hv_uri_host(const char *uri, char *host, size_t len)
{
	const char *p = strstr(uri, "://"), *end, *at;
	size_t n;

	if (len)
		*host = '\0';
	if (!strcmp(uri, "direct"))
		return 0;
	/* the scheme: a letter, then letters, digits, '+', '-', '.' (RFC 3986) */
	if (!p || p == uri || !((*uri >= 'a' && *uri <= 'z') || (*uri >= 'A' && *uri <= 'Z')))
		return -EINVAL;
	for (const char *c = uri; c < p; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '+' ||
		      *c == '-' || *c == '.'))
			return -EINVAL;
	p += 3;
	end = p + strcspn(p, "/?#");
	/* the user goes: the same host for whoever logs in */
	for (at = p; (at = memchr(at, '@', (size_t)(end - at))); p = ++at)
		;
	if (*p == '[') {
		/* an IPv6 address, its port after the bracket */
		const char *rb = memchr(p, ']', (size_t)(end - p));

		if (!rb)
			return -EINVAL;
		end = rb + 1;
	} else {
		const char *colon = memchr(p, ':', (size_t)(end - p));

		if (colon)
			end = colon;
	}
	n = (size_t)(end - p);
	if (n >= len)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < n; i++)
		host[i] = p[i] >= 'A' && p[i] <= 'Z' ? (char)(p[i] - 'A' + 'a') : p[i];
	host[n] = '\0';
	/* this machine's names reach this machine */
	if (!strcmp(host, "localhost") || !strcmp(host, "127.0.0.1") || !strcmp(host, "[::1]"))
		host[0] = '\0';
	return 0;
}

void lab_hv_uri_label(const char *uri, char *buf, size_t len)
{
	size_t n = strcspn(uri, "?#"), o = 0;
	const char *auth = strstr(uri, "://"), *at = NULL, *colon = NULL;

	if (!len)
		return;
	if (auth && (size_t)(auth - uri) < n) {
		size_t an = strcspn(auth + 3, "/?#");

		/* USER:PASSWORD@HOST: the password goes */
		for (const char *c = auth + 3; c < auth + 3 + an; c++)
			if (*c == '@')
				at = c;
		colon = at ? memchr(auth + 3, ':', (size_t)(at - (auth + 3))) : NULL;
	}
	for (size_t i = 0; i < n && o + 1 < len; i++) {
		if (colon && uri + i == colon)
			i = (size_t)(at - uri); /* on to the '@' */
		buf[o++] = uri[i] == ',' || uri[i] == '=' ? '_' : uri[i];
	}
	buf[o] = '\0';
}

const char *const lab_hv_start_files[2][LAB_START_NFILES] = {
	{ "qmp.sock", "agent.sock", "console.log", "qemu.log" },
	{ "qmp-b.sock", "agent-b.sock", "console-b.log", "qemu-b.log" },
};

#ifndef HAVE_LIBVIRT
int lab_hv_libvirt_connect(const char *uri, double timeout_s, char *why, size_t len)
{
	(void)uri;
	(void)timeout_s;
	return errf(why, len, -EOPNOTSUPP, "--connect needs libvirt, which this vmbench was built without (Debian: "
		    "libvirt-dev, then build again)");
}

const char *lab_hv_libvirt_host(void)
{
	return NULL;
}

bool lab_hv_libvirt_lost(void)
{
	return false;
}

int lab_hv_libvirt_migrate_to(const char *uri, double timeout_s, char *why, size_t len)
{
	(void)uri;
	(void)timeout_s;
	return errf(why, len, -EOPNOTSUPP, "--migrate-to needs libvirt, which this vmbench was built without");
}
#endif

int lab_hv_unix_channel(const char *path, int *fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		close(s);
		return r;
	}
	*fd = s;
	return 0;
}

static const char *const hook_names[] = {
#define NAME(h) #h,
	LAB_HV_HOOKS(NAME)
#undef NAME
};

const char *lab_hv_why_not(const struct lab_hv_ops *hv, const char *hook)
{
	for (const struct lab_hv_unsupported *u = hv->unsupported; u && u->hook; u++)
		if (!strcmp(u->hook, hook))
			return u->why;
	return NULL;
}

/* One hook: present, or declared unsupported with a reason; not both. */
static int hook_check(const struct lab_hv_ops *hv, const char *hook, bool present, char *why, size_t len)
{
	const char *no = lab_hv_why_not(hv, hook);

	if (present && no)
		return errf(why, len, -EINVAL, "hypervisor back end %s: hook %s is present and declared unsupported",
			    hv->name, hook);
	if (!present && !no)
		return errf(why, len, -EINVAL, "hypervisor back end %s: hook %s is missing: implement it or declare it "
			    "in .unsupported with the reason", hv->name, hook);
	if (!present && !*no)
		return errf(why, len, -EINVAL, "hypervisor back end %s: hook %s is declared unsupported without a reason",
			    hv->name, hook);
	return 0;
}

int lab_hv_check(const struct lab_hv_ops *hv, char *why, size_t len)
{
	int r = 0;

	if (!hv->name || !*hv->name || !hv->summary || !*hv->summary)
		return errf(why, len, -EINVAL, "a hypervisor back end without a name or a summary");
	if (hv->abi != LAB_HV_ABI)
		return errf(why, len, -EINVAL, "hypervisor back end %s: ABI %u, this build's is %u", hv->name, hv->abi,
			    LAB_HV_ABI);
	for (const struct lab_hv_unsupported *u = hv->unsupported; u && u->hook; u++) {
		size_t i = 0;

		while (i < sizeof(hook_names) / sizeof(hook_names[0]) && strcmp(hook_names[i], u->hook))
			i++;
		if (i == sizeof(hook_names) / sizeof(hook_names[0]))
			return errf(why, len, -EINVAL, "hypervisor back end %s: %s, declared unsupported, is no hook",
				    hv->name, u->hook);
	}
#define CHECK(h) r = r ? r : hook_check(hv, #h, hv->h != NULL, why, len);
	LAB_HV_HOOKS(CHECK)
#undef CHECK
	/* what the lab cannot do without: a guest it can start and talk to */
	if (r == 0 && (!hv->control || !hv->define || !hv->start || !hv->channel || !hv->exit_why || !hv->destroy ||
		       !hv->open))
		r = errf(why, len, -EINVAL, "hypervisor back end %s: control, define, start, channel, exit_why, destroy "
			 "and open are what every boot needs: they cannot be unsupported", hv->name);
	return r;
}

int lab_hv_vcpus(const struct lab_hv_ops *hv, const char *ctl, bool pin, unsigned *nthreads, char *err,
		 size_t errlen)
{
	struct lab_hv_mon *m = NULL;
	char why[512] = "";
	int *tids = NULL, r;
	size_t n = 0;

	/* a back end that pins by vCPU (libvirt) pins without naming threads */
	if ((!hv->vcpu_threads && !(pin && hv->pin)) || (pin && !hv->pin))
		return pin ? errf(err, errlen, -EOPNOTSUPP, "pinning vCPUs: %s",
				  lab_hv_why_not(hv, hv->vcpu_threads ? "pin" : "vcpu_threads")) : 0;
	r = hv->open(ctl, 10000, &m, why, sizeof(why));
	if (r == 0 && hv->vcpu_threads)
		r = hv->vcpu_threads(m, &tids, &n, why, sizeof(why));
	if (r == 0 && nthreads) {
		*nthreads = 0;
		for (size_t i = 0; i < n; i++) {
			size_t j = 0;

			while (j < i && tids[j] != tids[i])
				j++;
			*nthreads += j == i;
		}
	}
	if (r == 0 && pin)
		r = hv->pin(m, tids, n, why, sizeof(why));
	if (r < 0 && pin)
		errf(err, errlen, r, "pinning vCPUs: %s", why[0] ? why : strerror(-r));
	free(tids);
	if (m && hv->close)
		hv->close(m);
	return pin ? r : 0;
}
