/* Agent protocol, the guest's half: the host's lines (RUN, TOKEN, SERVE,
 * LOAD, PREPARE) read and checked as the agent takes them, a RUN's
 * command line, and the PROGRESS lines the agent sends. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proto_guest.h"
#include "../proto/mounts.h"
#include "../proto/proto_int.h"
#include "../core/util.h"
#include "../net/proto.h"
#include "../suites/suites.h"
#include "../core/banned.h"

char *proto_progress_line(const char *what, double seconds, const char *run_line, double aged, char *err,
			  size_t errlen)
{
	const char *sp = run_line ? strchr(run_line, ' ') : NULL, *p = sp ? sp + 1 : NULL;
	char *line = NULL, left_s[32] = "-";
	struct proto_msg m;
	double left;

	err[0] = '\0';
	/* the run's estimate, less the time since it made it */
	if (p && !strncmp(p, "- ", 2))
		p++;
	else if (p && proto_take_seconds(&p, &left) == 0)
		snprintf(left_s, sizeof(left_s), "%.0f", left > aged ? left - aged : 0);
	else
		p = NULL;
	if (p && *p == ' ')
		line = xasprintf("PROGRESS %s %.0f %.*s %s%s", what, seconds, (int)(sp - run_line), run_line, left_s, p);
	if (line && (proto_parse_guest_line(line, &m, err, errlen) < 0 || !m.ncases || !proto_step_of(what, &m))) {
		free(line);
		line = NULL;
	}
	if (run_line && !line)
		errf(err, errlen, -EINVAL, "the run's progress line does not fit PROGRESS: left out");
	return line ? line : xasprintf("PROGRESS %s %.0f", what, seconds);
}

int proto_parse_load(const char *line, unsigned *pct, char *err, size_t errlen)
{
	const char *end;
	uint64_t v;

	if (strncmp(line, "LOAD ", 5) || proto_parse_dec(line + 5, 100, &v, &end) < 0 || *end)
		return errf(err, errlen, -EPROTO, "expected 'LOAD <percent>': a whole number of 0 to 100, no leading zero");
	*pct = (unsigned)v;
	return 0;
}

int proto_parse_token(const char *line, char *token, size_t len, char *err, size_t errlen)
{
	if (strncmp(line, "TOKEN ", 6) || !netproto_token_valid(line + 6, strlen(line + 6)) ||
	    strlen(line + 6) >= len)
		return errf(err, errlen, -EPROTO, "expected 'TOKEN <secret>': 1 to %d letters, digits, '.', '_' or '-'",
			    NETPROTO_MAX_TOKEN);
	snprintf(token, len, "%s", line + 6);
	return 0;
}

int proto_parse_serve(const char *line, char *addr, size_t len, char *err, size_t errlen)
{
	if (strncmp(line, "SERVE ", 6) || !proto_addr_valid(line + 6, false) || strlen(line + 6) >= len)
		return errf(err, errlen, -EPROTO, "expected 'SERVE <address>': an IPv4 or IPv6 address of this guest");
	snprintf(addr, len, "%s", line + 6);
	return 0;
}

int proto_parse_prepare(const char *line, struct proto_prepare *p, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o;
	const char *fs, *dev;
	char names[128];
	size_t off = 0;
	int r = 0;

	if (strncmp(line, "PREPARE ", 8))
		return errf(err, errlen, -EPROTO, "expected 'PREPARE <JSON object>'");
	o = json_loads(line + 8, JSON_REJECT_DUPLICATES, &je);
	memset(p, 0, sizeof(*p));
	if (json_is_object(o) && json_object_get(o, "share")) {
		/* {"share": NAME}: mount the share of that row */
		const char *share = json_string_value(json_object_get(o, "share"));

		if (json_object_size(o) != 1 || !share || !lab_share_find(share) ||
		    strlen(share) != json_string_length(json_object_get(o, "share")))
			r = errf(err, errlen, -EINVAL, "PREPARE: expected {\"share\": NAME} with NAME a share of the table");
		else
			snprintf(p->share, sizeof(p->share), "%s", share);
		json_decref(o);
		return r;
	}
	fs = json_string_value(json_object_get(o, "fs"));
	dev = json_string_value(json_object_get(o, "device"));
	names[0] = '\0';
	for (size_t i = 0; i < lab_nfilesystems; i++)
		str_appendf(names, sizeof(names), &off, "%s%s", i ? ", " : "", lab_filesystems[i].name);
	if (!json_is_object(o))
		r = errf(err, errlen, -EINVAL, "PREPARE: %s", o ? "not a JSON object" : je.text);
	else if (json_object_size(o) != 2 || !fs || !dev)
		r = errf(err, errlen, -EINVAL, "PREPARE: expected an object of exactly \"fs\" and \"device\", strings");
	else if (!lab_fs_find(fs) || strlen(fs) != json_string_length(json_object_get(o, "fs"))) {
		char q[80];

		proto_quote(q, sizeof(q), fs, 15);
		r = errf(err, errlen, -EINVAL, "PREPARE: no filesystem '%s' here; valid: %s", q, names);
	} else if (!proto_device_valid(dev) || strlen(dev) != json_string_length(json_object_get(o, "device")))
		r = errf(err, errlen, -EINVAL, "PREPARE: the device is not /dev/NAME (letters and digits)");
	if (r == 0) {
		snprintf(p->fs, sizeof(p->fs), "%s", fs);
		snprintf(p->device, sizeof(p->device), "%s", dev);
	}
	json_decref(o);
	return r;
}
