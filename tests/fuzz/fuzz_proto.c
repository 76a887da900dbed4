/* Fuzz target: the agent protocol on both sides. The input is a
 * transcript: it is framed into lines (proto_frame, with the real limit and
 * with a small one), each line parsed as a guest's line (a PREPARED one
 * also checked as the host checks it) and as the agent's RUN, TOKEN, SERVE,
 * LOAD and PREPARE; then the host side reads the whole input as a guest's
 * channel (proto_host_hello, proto_host_token, proto_host_serve,
 * proto_host_load, proto_host_run until the channel ends), from a memfd,
 * which poll always finds readable, so that no wait is ever reached. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../src/cmd/cmd.h"
#include "../../src/lab/matrix.h"
#include "../../src/guest/proto_guest.h"
#include "../../src/lab/proto_host.h"

/* run_opts (src/cmd/run.c) is what the agent checks RUN's options with. */
extern const struct vmb_opt run_opts[];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_lines(const char *line)
{
	struct proto_msg m;
	struct proto_run run;
	char err[512];
	struct proto_prepare prep;
	json_t *rec = NULL;
	int g = proto_parse_guest_line(line, &m, err, sizeof(err));

	if (g == 0 && m.kind == PROTO_RESULT && (m.length < 2 || m.length > PROTO_MAX_RESULT))
		abort(); /* a length outside the protocol's bounds got through */
	{
		char tok[80], addr[PROTO_MAX_ADDR + 1];

		/* what passes goes into an environment or an argument: one word */
		if (proto_parse_token(line, tok, sizeof(tok), err, sizeof(err)) == 0 && strpbrk(tok, " \t=;"))
			abort();
		if (proto_parse_serve(line, addr, sizeof(addr), err, sizeof(err)) == 0 &&
		    (addr[0] == '-' || strpbrk(addr, " \t")))
			abort();
	}
	if (g == 0 && m.kind == PROTO_SERVING && strlen(m.text) > PROTO_MAX_ADDR)
		abort();
	if (g == 0 && m.kind == PROTO_LOADED &&
	    (m.load_asked > 100 || (!isnan(m.load_got) && (m.load_asked == 0 || !(m.load_got >= 0 && m.load_got <= 100)))))
		abort(); /* a load or a figure outside 0 to 100, or a figure of no load, got through */
	{
		unsigned pct = 0;

		if (proto_parse_load(line, &pct, err, sizeof(err)) == 0 && pct > 100)
			abort();
	}
	if (g == 0 && m.kind == PROTO_PROGRESS && m.ncases &&
	    (m.ncase < 1 || m.ncase > m.ncases || m.ncases > PROTO_MAX_CASES || !m.step || !m.steplen ||
	     !memchr(m.step, '.', m.steplen) || (m.left < 0 && m.left != -1)))
		abort(); /* a progress outside its bounds got through */
	if (proto_parse_guest_line(line, &m, err, sizeof(err)) == 0 && m.kind == PROTO_PREPARED &&
	    proto_check_prepared(m.text, "ext4", "/dev/vda", &rec, err, sizeof(err)) == 0) {
		json_int_t size = json_integer_value(json_object_get(rec, "size_bytes"));

		/* what the host records is what it asked for, and bounded */
		if (strcmp(json_string_value(json_object_get(rec, "type")), "ext4") ||
		    strcmp(json_string_value(json_object_get(rec, "device")), "/dev/vda") || size < 1 ||
		    size > (json_int_t)1 << 50 || json_object_size(rec) != 7)
			abort();
		json_decref(rec);
	}
	if (proto_parse_prepare(line, &prep, err, sizeof(err)) == 0 && !*prep.share &&
	    (strncmp(prep.device, "/dev/", 5) || strchr(prep.device + 5, '/') || strchr(prep.device, '.') ||
	     (strcmp(prep.fs, "ext4") && strcmp(prep.fs, "xfs"))))
		abort(); /* a device outside /dev, or a filesystem of no row */
	if (proto_parse_prepare(line, &prep, err, sizeof(err)) == 0 && *prep.share &&
	    (!lab_share_find(prep.share) || *prep.fs || *prep.device))
		abort(); /* a share of no row, or a share that also names a device */
	if (proto_parse_guest_line(line, &m, err, sizeof(err)) == 0 && m.kind == PROTO_PREPARED &&
	    proto_check_prepared(m.text, "9p", LAB_SHARE_TAG, &rec, err, sizeof(err)) == 0) {
		/* a share's record: what was asked, and no mkfs (nothing was made) */
		if (strcmp(json_string_value(json_object_get(rec, "type")), "9p") ||
		    strcmp(json_string_value(json_object_get(rec, "device")), LAB_SHARE_TAG) ||
		    json_object_get(rec, "mkfs") || json_object_size(rec) != 5)
			abort();
		json_decref(rec);
	}
	if (proto_parse_run(line, run_opts, &run, err, sizeof(err)) == 0) {
		/* the suite word never reads as an option */
		if (run.what[0] == '-' || !run.what[0])
			abort();
		for (size_t i = 0; i < run.args.n; i++)
			if (strncmp(run.args.v[i], "--", 2))
				abort();
		proto_run_release(&run);
	}
}

/* Frame data as a stream the way proto_recv_line does, lines at most max. */
static void frame_all(const uint8_t *data, size_t size, size_t max, bool parse)
{
	size_t off = 0;
	bool skipping = false;

	while (off < size) {
		size_t l = 0, used = 0;
		int r;

		if (skipping) {
			const uint8_t *nl = memchr(data + off, '\n', size - off);

			if (!nl)
				return;
			off = (size_t)(nl - data) + 1;
			skipping = false;
			continue;
		}
		r = proto_frame((const char *)data + off, size - off, max, &l, &used);
		if (r == 0)
			return;
		if (used == 0 || used > size - off || (r == 1 && l > max))
			abort(); /* no progress, or past the end, or too long: a framing bug */
		if (r == -EMSGSIZE)
			skipping = data[off + used - 1] != '\n';
		if (r == 1 && parse) {
			char *line = malloc(l + 1);

			if (!line)
				return;
			memcpy(line, data + off, l);
			line[l] = '\0';
			if (strlen(line) != l)
				abort(); /* a NUL byte got through */
			parse_lines(line);
			free(line);
		}
		off += used;
	}
}

static void host_side(const uint8_t *data, size_t size)
{
	static int in = -1, out = -1;
	struct proto_conn c;
	json_t *fp = NULL, *opts;

	if (in < 0) {
		in = memfd_create("fuzz_proto", MFD_CLOEXEC);
		out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	}
	if (in < 0 || out < 0 || ftruncate(in, 0) < 0 || lseek(in, 0, SEEK_SET) < 0)
		return;
	for (size_t off = 0; off < size;) {
		ssize_t w = write(in, data + off, size - off);

		if (w <= 0)
			return;
		off += (size_t)w;
	}
	if (lseek(in, 0, SEEK_SET) < 0)
		return;
	proto_init(&c, in, out);
	opts = json_object();
	if (opts && proto_host_hello(&c, 1000, &fp) == 0) {
		char where[80];

		unsigned asked = 0;
		double got = 0;

		if (proto_host_token(&c, "t0ken", 1000) == -EPIPE ||
		    proto_host_serve(&c, "10.251.0.2", 1000, where, sizeof(where)) == -EPIPE)
			goto done;
		if (proto_host_load(&c, 50, 1000, &asked, &got) == 0 &&
		    (asked > 100 || (!isnan(got) && (asked == 0 || !(got >= 0 && got <= 100)))))
			abort();
		/* runs until the transcript ends: EOF reads as a closed channel */
		for (int i = 0; i < 64; i++) {
			json_t *doc = NULL;
			int r = proto_host_run(&c, "cpu.prime", opts, fp, 1000, 1000, &doc);

			json_decref(doc);
			if (r == -EPIPE || r == -ENOMEM)
				break;
		}
	}
done:
	if (strnlen(c.err, sizeof(c.err)) == sizeof(c.err))
		abort(); /* the message is not a string */
	json_decref(fp);
	json_decref(opts);
	proto_release(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	frame_all(data, size, PROTO_MAX_LINE, true);
	frame_all(data, size, 16, false); /* the limit reached often */
	host_side(data, size);
	return 0;
}
