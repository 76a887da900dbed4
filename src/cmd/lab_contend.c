/* vmbench lab contend: --guests of one configuration booted at once, each
 * QEMU in a cgroup of its own, measured together under each of the host's
 * scheduling policies and background loads (src/lab/contend.c runs it). */
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
#include "../lab/hv.h"
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


struct contend_keep {
	struct lab *l;
	const struct lab_config *c;
};

static void contend_say(const json_t *doc)
{
	const json_t *labels = json_object_get(doc, "labels"), *s, *t, *c, *m;
	size_t si, ti, ci, mi;

	json_array_foreach(json_object_get(doc, "suites"), si, s)
		json_array_foreach(json_object_get(s, "tests"), ti, t)
			json_array_foreach(json_object_get(t, "cases"), ci, c) {
				const char *suite = json_string_value(json_object_get(s, "name")) ?: "";
				/* a suite lab contend measures itself says each of its figures and the item it was seen over */
				const struct lab_host_row *row = lab_host_row_of(suites_find(suite));
				bool host = row && row->when == LAB_HOST_CONTEND;

				printf("contend round=%lld policy=%s load=%s guest=%s %s.%s",
				       (long long)json_integer_value(json_object_get(json_object_get(doc, "run_group"), "round")),
				       json_string_value(json_object_get(labels, "policy")) ?: "?",
				       json_string_value(json_object_get(labels, "load")) ?: "?",
				       json_string_value(json_object_get(labels, "guest")) ?: "?", suite,
				       json_string_value(json_object_get(t, "name")) ?: "");
				if (host)
					printf(" item=%s", json_string_value(json_object_get(json_object_get(c, "params"),
										   CONTEND_ITEM_PARAM)) ?: "?");
				json_array_foreach(json_object_get(c, "metrics"), mi, m) {
					const char *name = json_string_value(json_object_get(m, "name")) ?: "";
					const json_t *mean = json_object_get(json_object_get(m, "summary"), "mean");

					if (!host && !json_is_true(json_object_get(m, "headline")) &&
					    strcmp(name, "latency_p99"))
						continue;
					if (json_is_number(mean))
						printf(" %s=%.6g", name, json_number_value(mean));
				}
				printf("\n");
			}
	fflush(stdout);
}

static void contend_keep_doc(void *arg, json_t *doc)
{
	struct contend_keep *k = arg;
	const json_t *labels = json_object_get(doc, "labels");
	char name[128];

	snprintf(name, sizeof(name), "policy=%s load=%s guest=%s", json_string_value(json_object_get(labels, "policy")) ?: "?",
		 json_string_value(json_object_get(labels, "load")) ?: "?",
		 json_string_value(json_object_get(labels, "guest")) ?: "?");
	if (log_get_level() > LOG_ERROR)
		contend_say(doc);
	lab_keep(k->l, name, doc, k->c, NULL);
}

/* A guest that failed to boot: its console and QEMU's output kept, as lab run's */
static void contend_failed(void *arg, unsigned guest, const struct lab_failure *f, const char *err)
{
	struct contend_keep *k = arg;
	char name[64];

	snprintf(name, sizeof(name), "guest %u", guest);
	k->l->round = 1;
	lab_failed_try(k->l, name, 1, 1, f, err);
}

/* The operands by policy, load and guest (they were added in the cells'
 * shuffled order): fair's guests first, each policy's loads rising. */
static long contend_rank(const struct cmp_operand *op)
{
	const json_t *labels = json_object_get(json_array_get(op->docs, 0), "labels");
	int64_t load = 0, guest = 0;
	int p = contend_policy_parse(json_string_value(json_object_get(labels, "policy")) ?: "");

	(void)parse_i64(json_string_value(json_object_get(labels, "load")) ?: "0", 0, 100, &load);
	(void)parse_i64(json_string_value(json_object_get(labels, "guest")) ?: "0", 0, 1000, &guest);
	return ((long)(p < 0 ? CONTEND_NPOLICIES : p) * 1000 + (long)load) * 1000 + (long)guest;
}

static void contend_order(struct cmp_table *t)
{
	for (size_t a = 1; a < t->nops; a++)
		for (size_t b = a; b > 0 && contend_rank(&t->ops[b - 1]) > contend_rank(&t->ops[b]); b--) {
			struct cmp_operand x = t->ops[b];

			t->ops[b] = t->ops[b - 1];
			t->ops[b - 1] = x;
		}
}

/* A comma-separated list of numbers lo..hi into v (at most max). */
static int contend_list(const char *s, unsigned lo, unsigned hi, unsigned *v, unsigned max, unsigned *n)
{
	*n = 0;
	for (const char *p = s; p && *p; p += strcspn(p, ","), p += *p == ',') {
		char w[24];
		int64_t x;

		/* a longer word cut to fit would be another number (a load 000...0101 as 0) */
		if (strcspn(p, ",") >= sizeof(w))
			return -EINVAL;
		snprintf(w, sizeof(w), "%.*s", (int)strcspn(p, ","), p);
		if (*n == max || parse_i64(w, lo, hi, &x) < 0)
			return -EINVAL;
		v[(*n)++] = (unsigned)x;
	}
	return *n ? 0 : -EINVAL;
}

/* A net item (net.udp_rr) in lab contend is measured from the host to
 * each guest (netdir=guest-server: the host's client in the guest's
 * network namespace, the guest's serve beside the guest's LOAD), over a
 * NIC: virtio-net when --matrix names none. A usage error for a matrix
 * that says otherwise; c is changed only with apply. */
static int contend_net_config(const struct vmb_cmd *self, struct lab *l, struct lab_config *c, bool apply)
{
	char what[64] = "";

	for (const char *p = l->suites; p && *p && !*what; p += strcspn(p, ","), p += *p == ',') {
		const struct vmb_suite *s;

		snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
		s = lab_item_suite(what);
		if (!s || !(s->flags & VMB_SUITE_NET_PEER))
			what[0] = '\0';
	}
	if (!*what)
		return CMD_CONTINUE;
	if ((c->given & (1u << LAB_NETDIR)) && !c->server)
		return cmd_usage_error(self, "--suites %s: lab contend measures it from the host to each guest, beside "
				       "the guest's load (netdir=guest-server); leave netdir out of --matrix or give "
				       "netdir=guest-server", what);
	if (!lab_config_device(c, LAB_NIC) && (c->given & (1u << LAB_NIC)))
		return cmd_usage_error(self, "--suites %s measures over each guest's NIC: give a NIC model in --matrix "
				       "(e.g. nic=virtio-net), not nic=none", what);
	if (!apply)
		return CMD_CONTINUE;
	lab_config_set(c, LAB_NETDIR, "guest-server");
	if (!lab_config_device(c, LAB_NIC)) {
		/* a NIC of our own choice only where the host reaches the guest over it */
		char why[512];
		const struct lab_backend *be = lab_backend_pick(LAB_NIC, why, sizeof(why));

		if (be && be->host_addr) {
			lab_config_set(c, LAB_NIC, "virtio-net");
			log_info("%s: each guest gets a virtio-net NIC (--matrix names none)", what);
		} else {
			bool other = false;

			for (const char *p = l->suites; p && *p; p += strcspn(p, ","), p += *p == ',') {
				const struct vmb_suite *s;

				snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
				s = lab_item_suite(what);
				other = other || !s || !(s->flags & VMB_SUITE_NET_PEER);
			}
			/* its net items are skipped after the boot, saying why; with nothing else, nothing boots */
			if (!other) {
				log_error("--suites %s: nothing to measure: the host cannot reach a guest over a NIC here (%s)",
					  l->suites, *why ? why : "no link back end");
				return EXIT_FAILED;
			}
			log_info("the net items: the host cannot reach a guest over a NIC here (%s): the guests get none",
				 *why ? why : "no link back end");
			return CMD_CONTINUE;
		}
	}
	if (!l->nic_be)
		lab_pick_nic_backend(l);
	return CMD_CONTINUE;
}

/* session: NULL, or where the session's id goes.
 * With a session, no report is written: lab study draws its own. */
int lab_contend_cmd(const struct vmb_cmd *self, struct lab_request *rq, const char *cache)
{
	struct optset *own = &rq->own;
	bool check_only = rq->check_only;
	char *session = rq->session;
	size_t session_len = rq->session_len;
	/* the study's composite load and its latency probe, unless --suites names others */
	struct lab l = { .rq = rq, .own = own, .cache = cache, .image_dir = optset_str(own, "image-dir"),
			 .suites = rq->items ? rq->items : LAB_CONTEND_SUITES,
			 .check_only = check_only, .plan = optset_bool(own, "plan") };
	struct lab_matrix m = { 0 };
	struct contend_opts co = { .rt_priority = (unsigned)optset_int(own, "rt-priority"),
				   .rt_all = !strcmp(optset_str(own, "rt-threads"), "all") };
	struct lab_run_opts ro = { 0 };
	struct lab_config c;
	cpu_set_t cpus;
	const char *out = optset_str(own, "output"), *image;
	char err[2048], name[256];
	unsigned n;
	int ret, r;

	cmp_table_init(&l.t, suites_find);
	lab_evidence_init(&l.evidence);
	l.failures = json_array();
	l.t.failures = l.failures;
	snprintf(l.disk_size, sizeof(l.disk_size), "%llu", (unsigned long long)optset_size(own, "disk-size"));
	l.run_opts = lab_run_options(rq);
	if (!l.run_opts || !l.failures) {
		log_error("out of memory");
		ret = EXIT_FAILED;
		goto out;
	}
	/* the guests' items: what the agents run, not what the host measures around a boot */
	for (const char *p = l.suites; p && *p; p += strcspn(p, ","), p += *p == ',') {
		char what[64];

		snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
		if (lab_host_measured(what)) {
			ret = cmd_usage_error(self, "--suites %s: lab contend runs the guests' own suites together; %s is "
					      "measured by 'lab run' around a guest", what, what);
			goto out;
		}
	}
	co.spec.nguests = n = (unsigned)optset_int(own, "guests");
	co.spec.reserve_pct = (unsigned)optset_int(own, "reserve");
	for (unsigned i = 0; i < CONTEND_MAX_GUESTS; i++)
		co.spec.shares[i] = 1;
	if (optset_str(own, "shares")) {
		unsigned k;

		if (contend_list(optset_str(own, "shares"), 1, 100, co.spec.shares, CONTEND_MAX_GUESTS, &k) < 0 || k != n) {
			ret = cmd_usage_error(self, "--shares '%s': give one weight from 1 to 100 per guest (--guests %u), "
					      "e.g. %s", optset_str(own, "shares"), n, n == 3 ? "1,1,2" : "1,1,1,2");
			goto out;
		}
	}
	for (const char *p = optset_str(own, "policy"); p && *p; p += strcspn(p, ","), p += *p == ',') {
		char w[32];
		int pol;

		snprintf(w, sizeof(w), "%.*s", (int)strcspn(p, ","), p);
		pol = contend_policy_parse(w);
		if (pol < 0) {
			ret = cmd_usage_error(self, "--policy: no policy '%s'; give a list of %s", w, CONTEND_POLICY_CHOICES);
			goto out;
		}
		co.policy[pol] = true;
	}
	{
		int any = 0;

		for (int i = 0; i < CONTEND_NPOLICIES; i++)
			any |= co.policy[i];
		if (!any) {
			ret = cmd_usage_error(self, "--policy '%s': give at least one of %s", optset_str(own, "policy") ?: "",
					      CONTEND_POLICY_CHOICES);
			goto out;
		}
	}
	if (optset_get(own, "shares")->set && !co.policy[CONTEND_WEIGHTS]) {
		ret = cmd_usage_error(self, "--shares are the weights policy's: add weights to --policy");
		goto out;
	}
	/* the main loop must preempt a spinning vCPU: at one priority SCHED_FIFO never does (the guest hangs) */
	if (co.policy[CONTEND_RT] && co.rt_all && co.rt_priority >= 99) {
		ret = cmd_usage_error(self, "--rt-priority %u with --rt-threads all leaves QEMU's other threads no "
				      "priority above the vCPU threads' (the guest's timers would wait for a spinning "
				      "vCPU); give --rt-priority 98 at most, or --rt-threads vcpus", co.rt_priority);
		goto out;
	}
	if (optset_get(own, "reserve")->set && !co.policy[CONTEND_RESERVATION]) {
		ret = cmd_usage_error(self, "--reserve is the reservation policy's: add reservation to --policy");
		goto out;
	}
	if (contend_list(optset_str(own, "load"), 0, 100, co.loads, CONTEND_MAX_LOADS, &co.nloads) < 0) {
		ret = cmd_usage_error(self, "--load '%s': give up to %d loads from 0 to 100 (%% of each vCPU), e.g. "
				      "50,80,95", optset_str(own, "load"), CONTEND_MAX_LOADS);
		goto out;
	}
	/* a load twice would be two cells with one label: one operand of two runs a round */
	for (unsigned i = 1; i < co.nloads; i++)
		for (unsigned j = 0; j < i; j++)
			if (co.loads[i] == co.loads[j]) {
				ret = cmd_usage_error(self, "--load '%s': %u is there twice; give each load once",
						      optset_str(own, "load"), co.loads[i]);
				goto out;
			}
	CPU_ZERO(&cpus);
	if (sched_getaffinity(0, sizeof(cpus), &cpus) < 0)
		CPU_ZERO(&cpus);
	if (optset_str(own, "host-cpus")) {
		unsigned *list = NULL;
		size_t nl = 0;
		cpu_set_t mine = cpus;

		if (parse_cpu_list(optset_str(own, "host-cpus"), &list, &nl) < 0 || !nl) {
			free(list);
			ret = cmd_usage_error(self, "--host-cpus '%s': give host CPUs, e.g. 0 or 0-1", optset_str(own, "host-cpus"));
			goto out;
		}
		CPU_ZERO(&cpus);
		for (size_t i = 0; i < nl; i++) {
			/* which CPUs this process may run on is this machine's: the check leaves it to the run */
			if (list[i] >= CPU_SETSIZE || (!check_only && !CPU_ISSET(list[i], &mine))) {
				ret = cmd_usage_error(self, "--host-cpus: CPU %u is not one this process may run on", list[i]);
				free(list);
				goto out;
			}
			CPU_SET(list[i], &cpus);
		}
		free(list);
		co.host_cpus = optset_str(own, "host-cpus");
	}
	co.spec.ncpus = (unsigned)CPU_COUNT(&cpus);
	if (co.spec.ncpus < 1)
		co.spec.ncpus = 1;
	/* without --host-cpus the CPUs are this machine's: the check leaves the quota to the run */
	if (co.policy[CONTEND_RESERVATION] && (!check_only || co.host_cpus)) {
		/* each other guest's cap must be a quota the kernel takes, or the
		 * promise would not be the one the knobs keep */
		struct cg_knob k[CONTEND_MAX_GUESTS];

		if (contend_knobs(CONTEND_RESERVATION, &co.spec, CONTEND_PERIOD_US, k) < 0) {
			ret = cmd_usage_error(self, "--reserve %u with --guests %u on %u host CPU%s leaves each other guest "
					      "less than the kernel's least CFS quota (1 ms of %u ms); give --reserve %u "
					      "at most", co.spec.reserve_pct, n, co.spec.ncpus, co.spec.ncpus == 1 ? "" : "s",
					      CONTEND_PERIOD_US / 1000, contend_reserve_max(&co.spec, CONTEND_PERIOD_US));
			goto out;
		}
	}
	if (rq->matrix) {
		/* one configuration, said before the store is opened (lab_prepare) */
		struct lab_matrix one = { 0 };

		if (lab_matrix_parse(rq->matrix, &one, err, sizeof(err)) == 0 && one.n != 1) {
			ret = cmd_usage_error(self, "lab contend boots --guests of one configuration, and --matrix has %zu; "
					      "give one value per key", one.n);
			lab_matrix_release(&one);
			goto out;
		}
		if (one.n == 1 && (ret = contend_net_config(self, &l, &one.configs[0], false)) != CMD_CONTINUE) {
			lab_matrix_release(&one);
			goto out;
		}
		lab_matrix_release(&one);
	}
	ret = lab_request_rounds(self, rq, &l.rounds, &l.autorounds);
	if (ret == CMD_CONTINUE && l.autorounds)
		ret = cmd_usage_error(self, "--rounds auto is lab run's; lab contend takes --rounds N");
	if (ret != CMD_CONTINUE)
		goto out;
	ret = lab_prepare(self, &l, &m, out);
	if (ret != CMD_CONTINUE)
		goto out;
	if (m.n != 1) {
		ret = cmd_usage_error(self, "lab contend boots --guests of one configuration, and --matrix has %zu; give "
				      "one value per key", m.n);
		goto out;
	}
	if (check_only) {
		ret = EXIT_OK;
		goto out;
	}
	ret = lab_plan_first(&l, rq, &m);
	if (ret != CMD_CONTINUE)
		goto out;
	c = m.configs[0];
	ret = contend_net_config(self, &l, &c, true);
	if (ret != CMD_CONTINUE)
		goto out;
	{
		/* a guest cannot take more of the host than its vCPUs: the promise's bound */
		co.spec.vcpus = c.smp;
	}
	lab_config_name(&m, &c, name, sizeof(name));
	if (lab_hv_config_unsupported(&c, err, sizeof(err))) {
		log_error("%s: %s", name, err);
		ret = EXIT_FAILED;
		goto out;
	}
	if (c.accel == LAB_ACCEL_AUTO)
		lab_config_set(&c, LAB_ACCEL, "tcg");
	image = lab_image(&l, name, &c);
	if (!image) {
		ret = EXIT_FAILED;
		goto out;
	}
	lab_session_new(l.session, sizeof(l.session));
	log_info("lab session %s=%s", LAB_SESSION_LABEL, l.session);
	ro = (struct lab_run_opts){ .image_dir = image, .suites = l.suites, .boots = 1, .run_opts = l.run_opts,
				    .disk_size = l.disk_size, .disk_format = optset_str(own, "disk-format"),
				    .disk_cache = optset_str(own, "disk-cache"),
				    .hello_timeout_ms = (int)(optset_double(own, "hello-timeout") * 1000),
				    .run_table = run_opts, .nic_backend = l.nic_be ? l.nic_be->name : NULL };
	co.affinity = co.host_cpus ? &cpus : NULL;
	co.c = &c;
	co.ro = &ro;
	co.rounds = l.rounds;
	co.seed = ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)) & 0xffffffffu;
	co.keep = contend_keep_doc;
	co.failed = contend_failed;
	co.arg = &(struct contend_keep){ .l = &l, .c = &c };
	r = lab_contend(&co, err, sizeof(err));
	if (r == -EINTR || vmb_stop_requested()) {
		log_error("interrupted");
		ret = EXIT_INTERRUPTED;
		goto out;
	}
	if (r < 0) {
		log_error("%s: %s", name, err);
		ret = EXIT_FAILED;
		goto out;
	}
	ret = EXIT_OK;
	contend_order(&l.t);
	if (l.t.nops && lab_compare(&l.t, "none", "", &l.base_pairs) == 0)
		ret = lab_show(&l.t, out, !session);
	if (l.failed)
		ret = EXIT_FAILED;
out:
	if (*l.session)
		log_info("lab session %s=%s: 'vmbench compare policy=fair,guest=1 policy=rt,guest=1' pairs the policies "
			 "by round", LAB_SESSION_LABEL, l.session);
	if (session)
		snprintf(session, session_len, "%s", l.session);
	lab_end(&l, &m);
	return ret;
}

static const struct vmb_opt lab_contend_opts[] = {
	LAB_OPT_IMAGE_DIR,
	LAB_OPTS_BOOTS,
	LAB_OPTS_MEASURED,
	LAB_OPT_ROUNDS,
	LAB_OPT_PLAN,
	LAB_OPTS_DISK,
	LAB_OPT_HELLO_TIMEOUT,
	LAB_OPT_LABEL,
	{ .name = "guests", .type = OPT_INT, .min = 2, .max = CONTEND_MAX_GUESTS, .def = "4", .metavar = "N",
	  .help = "guests of the one configuration booted at once, each QEMU in a cgroup of its own" },
	{ .name = "policy", .type = OPT_STRING, .def = "fair", .metavar = "LIST",
	  .help = "the host's policies, a list of " CONTEND_POLICY_CHOICES ", each measured on the same "
		  "booted guests (a cell per policy and load, shuffled per round): fair, equal weights; weights, "
		  "--shares; reservation, guest 1 promised --reserve% of the host CPUs given, approximated by caps "
		  "on the others (Linux has no hard CPU reservation); rt, guest 1's threads SCHED_FIFO, the others "
		  "fair. One that cannot run here (no permission, no cpu controller) is skipped with the reason" },
	{ .name = "shares", .type = OPT_STRING, .metavar = "LIST",
	  .help = "weights: one relative weight (1 to 100) per guest, e.g. 1,1,2 (default all 1)" },
	{ .name = "reserve", .type = OPT_INT, .min = 1, .max = 99, .def = "50", .metavar = "PCT",
	  .help = "reservation: guest 1's share of the host CPUs given; each other guest is capped at its "
		  "part of the rest (cpu.cfs_quota_us, cpu.max), which must be at least the kernel's 1 ms of each "
		  "100 ms (a reserve that leaves less is refused, with the most that fits)" },
	{ .name = "load", .type = OPT_STRING, .def = "0", .metavar = "LIST",
	  .help = "background loads, % of each vCPU, e.g. 50,80,95: each guest runs its items beside a "
		  "spinner per vCPU busy that share of every 10 ms ('vmbench run --load'); a cell each" },
	{ .name = "host-cpus", .type = OPT_STRING, .metavar = "LIST",
	  .help = "confine every QEMU (all its threads) to these host CPUs, e.g. 0: the guests contend "
		  "for them while the others stay for the system (default all)" },
	{ .name = "rt-threads", .type = OPT_STRING, .def = "all", .choices = "vcpus|all", .metavar = "WHICH",
	  .help = "rt: which of guest 1's QEMU threads run SCHED_FIFO: its vCPU threads, or all (under "
		  "TCG the guest's timers are run by QEMU's main loop, not a vCPU thread: see docs/methodology.md)" },
	{ .name = "rt-priority", .type = OPT_INT, .min = 1, .max = 99, .def = "1", .metavar = "N",
	  .help = "rt: the SCHED_FIFO priority; any priority runs before every fair thread, and a low "
		  "one leaves the kernel's own real-time threads ahead of the guest (with --rt-threads all at most "
		  "98: QEMU's other threads run one above)" },
	LAB_OPT_OUTPUT,
	LAB_OPT_DB,
	LAB_OPTS_SAY,
	LAB_OPTS_REFUSED,
	{ .name = "connect", .type = OPT_STRING, .metavar = "URI", .repeatable = true,
	  .help = "boot the guests through libvirt at URI (one host: given once), as lab run --connect does; the policies "
		  "then go through libvirt's own calls on each domain: cpu_shares for fair and weights, "
		  "global_quota per global_period for the reservation's caps, --host-cpus by pinning every vCPU "
		  "and the emulator's threads; the host's figures from libvirt's vCPU statistics (their time on a "
		  "CPU and their run delay, no timeslices). rt is skipped through libvirt: its real-time "
		  "scheduler is the domain's definition for its whole life" },
	LAB_OPT_CONNECT_TIMEOUT,
	OPT_TABLE_END,
};

static int cmd_lab_contend(const struct vmb_cmd *self, int argc, char **argv)
{
	(void)self;
	return lab_request_main(LAB_VERB_CONTEND, argc, argv);
}

const struct vmb_cmd cmd_lab_contend_desc = {
	.name = "contend",
	.fn = cmd_lab_contend,
	.args = "--matrix SPEC --guests N --policy LIST",
	.summary = "several guests of one configuration at once, under the host's scheduling policies",
	.opts = lab_contend_opts,
	.flags = CMD_SUITE_OPTS,
	.parent = &cmd_lab_desc,
};
