/* Importer of iperf3 -J: TCP or UDP, -P, -R, --bidir, as the net suite's
 * cases, the receiver's figure the headline. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "import.h"
#include "import_int.h"
#include "../core/banned.h"

bool import_iperf3_detect(const struct imp_input *in)
{
	return in->root && json_object_get(in->root, "start") && json_object_get(in->root, "end") &&
	       json_object_get(in->root, "intervals");
}

/* What an iperf3 test was, as the params of vmbench's own case, so that
 * compare pairs an import with a native run of the same thing: TCP as
 * net.tcp_stream (streams, reverse, bidir); UDP as net.udp, whose params
 * are the target rate in Mbit/s and the datagram size, with streams,
 * reverse and bidir only when they are not what net.udp measures (one
 * stream, client to server), so that such a test pairs with nothing. */
struct iperf3_test {
	bool udp, reverse, bidir;
	char streams[24], rate[40], size[24];
	double target_bps; /* -b; 0 when unlimited or unstated */
};

static void iperf3_params(const struct iperf3_test *it, bool reverse, const char **kv)
{
	size_t n = 0;

	if (it->udp) {
		kv[n++] = "rate", kv[n++] = it->rate, kv[n++] = "udp-size", kv[n++] = it->size;
		if (strcmp(it->streams, "1"))
			kv[n++] = "streams", kv[n++] = it->streams;
		if (reverse)
			kv[n++] = "reverse", kv[n++] = "true";
		if (it->bidir)
			kv[n++] = "bidir", kv[n++] = "true";
	} else {
		kv[n++] = "streams", kv[n++] = it->streams, kv[n++] = "reverse", kv[n++] = reverse ? "true" : "false";
		kv[n++] = "bidir", kv[n++] = it->bidir ? "true" : "false";
	}
	kv[n] = NULL;
}

/* One direction of an iperf3 test: the receiver's figure is the headline
 * (iperf3's "receiver" line), the sender's is kept beside it; the metrics
 * are named as net.udp and net.tcp_stream name theirs. */
static int iperf3_direction(struct imp *im, const json_t *end, const struct iperf3_test *it, bool reverse,
			    const char *suffix)
{
	const char *kv[16];
	bool udp = it->udp;
	char sk[64], rk[64], sp[80], rp[80];
	const json_t *sent, *recv;
	double sbps, rbps, jitter = NAN, lost = NAN, retr = NAN;
	struct vmb_case *c;
	struct where w;

	snprintf(sk, sizeof(sk), "sum_sent%s", suffix);
	snprintf(rk, sizeof(rk), "sum_received%s", suffix);
	snprintf(sp, sizeof(sp), "end.%s", sk);
	recv = json_object_get(end, rk);
	if (!recv && udp) {
		/* iperf3 before 3.7 has only "sum" for UDP: the receiver's figures */
		snprintf(rk, sizeof(rk), "sum%s", *suffix ? "_bidir_reverse" : "");
		recv = import_jget(im, end, "end", rk, JSON_OBJECT);
	} else {
		recv = import_jget(im, end, "end", rk, JSON_OBJECT);
	}
	snprintf(rp, sizeof(rp), "end.%s", rk);
	/* UDP before iperf3 3.7 has no sender's sum: then there is none to keep */
	sent = udp && !json_object_get(end, sk) ? NULL : import_jget(im, end, "end", sk, JSON_OBJECT);
	if (im->bad)
		return -EINVAL;
	rbps = import_jnum(im, recv, rp, "bits_per_second", K_BIT_S);
	sbps = sent ? import_jnum(im, sent, sp, "bits_per_second", K_BIT_S) : NAN;
	if (udp) {
		jitter = import_jnum(im, recv, rp, "jitter_ms", K_MS);
		lost = import_jnum(im, recv, rp, "lost_percent", K_PCT);
	} else if (json_object_get(sent, "retransmits")) {
		/* not on every OS */
		retr = import_jnum(im, sent, sp, "retransmits", K_COUNT);
	}
	if (im->bad)
		return -EINVAL;
	iperf3_params(it, reverse, kv);
	c = import_case_of(im, "net", udp ? "udp" : "tcp_stream", kv, &w);
	if (!c || import_value(c, "mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, true, rbps / 1e6) < 0 ||
	    (sent && import_value(c, "sender_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, false, sbps / 1e6) < 0))
		return -ENOMEM;
	/* net.udp's target_mbit_per_s: what was asked, beside what arrived */
	if (udp && it->target_bps > 0 &&
	    import_value(c, "target_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, false, it->target_bps / 1e6) < 0)
		return -ENOMEM;
	if (udp && (import_value(c, "jitter", VMB_UNIT_NS, VMB_LOWER, false, jitter * 1e6) < 0 ||
		    import_value(c, "lost_pct", VMB_UNIT_PCT, VMB_LOWER, false, lost) < 0))
		return -ENOMEM;
	if (isfinite(retr) && import_value(c, "retransmits", VMB_UNIT_NONE, VMB_LOWER, false, retr) < 0)
		return -ENOMEM;
	return 0;
}

/* iperf3's intervals are what they are: the throughput of one run second
 * by second, kept as a metric of their own (interval_mbit_per_s) beside
 * the run's figure, never as repetitions. compare takes a document as one
 * run whatever its samples, so they cannot pass for independent ones.
 * They are also the series "mbit_per_s" of repetition 1, each at its
 * interval's end (sum.end, seconds from the test's start), as net.tcp_stream
 * keeps its own: when every interval has an end, after the one before it.
 * Both leave out iperf3's omitted intervals (-O): its warm-up, which its
 * own figures leave out too, and after which its clock starts again. */
static int iperf3_intervals(struct imp *im, const json_t *intervals, const struct iperf3_test *it)
{
	const char *kv[16];
	const json_t *iv;
	struct vmb_case *c = NULL;
	struct where w;
	size_t i, n = json_array_size(intervals), nt = 0;
	double *ts = NULL, *vs = NULL;
	bool every_end = true;
	int r = 0;

	/* the case of the run's figure: net.udp for UDP, as vmbench's own */
	iperf3_params(it, it->reverse, kv);
	if (intervals && !json_is_array(intervals))
		return import_fail(im, "intervals: expected an array");
	ts = calloc(n ? n : 1, sizeof(*ts));
	vs = calloc(n ? n : 1, sizeof(*vs));
	if (!ts || !vs) {
		r = -ENOMEM;
		goto out;
	}
	json_array_foreach(intervals, i, iv) {
		const json_t *end;
		char ip[48];
		double v;

		snprintf(ip, sizeof(ip), "intervals[%zu].sum", i);
		/* every interval or none: one that is not a measured value is
		 * refused by its path, never skipped */
		v = import_jnum(im, import_jget(im, iv, ip, "sum", JSON_OBJECT) ? json_object_get(iv, "sum") : NULL, ip,
			 "bits_per_second", K_BIT_S);
		if (im->bad) {
			r = -EINVAL;
			goto out;
		}
		/* iperf3 -O's warm-up: checked as the others, left out as its own figures leave it out */
		if (json_is_true(json_object_get(json_object_get(iv, "sum"), "omitted")))
			continue;
		if (!c && !(c = import_case_of(im, "net", it->udp ? "udp" : "tcp_stream", kv, &w))) {
			r = -ENOMEM;
			goto out;
		}
		if (import_value(c, "interval_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, false, v / 1e6) < 0) {
			r = -ENOMEM;
			goto out;
		}
		end = json_object_get(json_object_get(iv, "sum"), "end");
		if (end && (!json_is_number(end) || !(json_number_value(end) > (nt ? ts[nt - 1] : 0)) ||
			    json_number_value(end) > 86400.0 * 365)) {
			r = import_fail(im, "%s.end: expected the interval's end in seconds, after the one before it", ip);
			goto out;
		}
		every_end = every_end && end;
		if (every_end) {
			ts[nt] = json_number_value(end);
			vs[nt++] = v / 1e6;
		}
	}
	if (c && nt && every_end && vmb_case_add_series(c, "mbit_per_s", VMB_UNIT_MBIT_PER_S, 1, ts, vs, nt, VMB_SERIES_MAX) < 0)
		r = -ENOMEM;
out:
	free(ts);
	free(vs);
	return r;
}

int import_iperf3(struct imp *im, const struct imp_input *in)
{
	/* a failed iperf3 run says why in "error"; say that, not what is missing */
	const json_t *root = in->root, *failed = json_object_get(root, "error");
	const json_t *start, *ts, *end, *proto, *ns, *x;
	struct iperf3_test it = { .rate = IMPORT_UNSTATED, .size = IMPORT_UNSTATED };
	int r;

	if (failed)
		return import_fail(im, "error: iperf3 reported \"%s\"", json_is_string(failed) ? json_string_value(failed) : "?");
	start = import_jget(im, root, "", "start", JSON_OBJECT);
	ts = import_jget(im, start, "start", "test_start", JSON_OBJECT);
	proto = import_jget(im, ts, "start.test_start", "protocol", JSON_STRING);
	ns = import_jget(im, ts, "start.test_start", "num_streams", JSON_INTEGER);
	end = import_jget(im, root, "", "end", JSON_OBJECT);
	if (im->bad)
		return -EINVAL;
	if (strcmp(json_string_value(proto), "TCP") && strcmp(json_string_value(proto), "UDP"))
		return import_fail(im, "start.test_start.protocol: '%s' is neither TCP nor UDP", json_string_value(proto));
	if (json_integer_value(ns) < 1)
		return import_fail(im, "start.test_start.num_streams: %lld is not a number of streams",
			    (long long)json_integer_value(ns));
	it.udp = !strcmp(json_string_value(proto), "UDP");
	snprintf(it.streams, sizeof(it.streams), "%lld", (long long)json_integer_value(ns));
	it.reverse = json_integer_value(json_object_get(ts, "reverse")) != 0;
	/* --bidir: the test_start of iperf3 3.12 does not say it; the sums do */
	it.bidir = json_integer_value(json_object_get(ts, "bidir")) != 0 ||
		   json_object_get(end, "sum_sent_bidir_reverse") || json_object_get(end, "sum_received_bidir_reverse");
	/* UDP: -b (bit/s; 0 for unlimited, as net.udp's --net.rate 0) and -l,
	 * as net.udp's rate (Mbit/s) and udp-size; unstated by an iperf3
	 * that does not print them (before 3.x's target_bitrate) */
	if (it.udp && (x = json_object_get(ts, "target_bitrate"))) {
		if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > import_kinds[K_BIT_S].max)
			return import_fail(im, "start.test_start.target_bitrate: expected a rate in bit/s from 0 to %s",
				    import_kinds[K_BIT_S].text);
		snprintf(it.rate, sizeof(it.rate), "%.15g", (double)json_integer_value(x) / 1e6);
		it.target_bps = (double)json_integer_value(x);
	}
	if (it.udp && (x = json_object_get(ts, "blksize"))) {
		if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 65535)
			return import_fail(im, "start.test_start.blksize: expected a datagram size from 1 to 65535 bytes");
		snprintf(it.size, sizeof(it.size), "%lld", (long long)json_integer_value(x));
	}
	{
		const json_t *t = json_object_get(json_object_get(start, "timestamp"), "timesecs");
		const json_t *dur = json_object_get(ts, "duration");

		if (json_is_integer(t) && json_integer_value(t) > 0 && json_integer_value(t) < 32503680000LL)
			im->tool_started = (double)json_integer_value(t);
		if (json_is_integer(dur) && json_integer_value(dur) > 0 && json_integer_value(dur) < 86400 * 365)
			im->tool_duration = (double)json_integer_value(dur);
	}
	r = iperf3_direction(im, end, &it, it.reverse, "");
	/* both directions, as two cases, never half of a bidirectional test */
	if (r == 0 && it.bidir)
		r = iperf3_direction(im, end, &it, !it.reverse, "_bidir_reverse");
	if (r == 0)
		r = iperf3_intervals(im, json_object_get(root, "intervals"), &it);
	return r;
}

