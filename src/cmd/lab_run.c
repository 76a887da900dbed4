/* vmbench lab run: every configuration of a matrix booted, round by round
 * in a shuffled order, measured by its guest and compared with the host or
 * with one configuration; one configuration's boots and retries here too. */
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
#include "../lab/kvmguest.h"
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
#include "run_rounds.h"
#include "../core/banned.h"


/* KVM could not boot a guest on this machine, found once per process (a
 * boot that failed, or the lab's verdict made here earlier), and why: a
 * study's experiments (each a lab run of this process) do not wait out a
 * KVM boot that cannot work again and again. */
static bool kvm_failed_here;
static char kvm_failed_why[700];

static bool kvm_usable(struct lab *l);

/* The lab's verdict on this machine's KVM, made here (this host, kernel
 * and QEMU: kvmguest.h): a guest that did not boot under it is not tried
 * again by accel=auto or a study's accel = kvm. Read once per process,
 * and said once. */
static void kvm_remembered(void)
{
	static bool read;
	struct lab_kvm_verdict v;
	bool this_boot = false;
	char where[600], age[32];

	if (read)
		return;
	read = true;
	if (lab_kvm_verdict_load(&v, &this_boot) < 0 || v.runs || !lab_kvm_verdict_here(&v, where, sizeof(where)))
		return;
	lab_kvm_age(v.when, age, sizeof(age));
	kvm_failed_here = true;
	snprintf(kvm_failed_why, sizeof(kvm_failed_why), "a lab guest did not boot under KVM here %s ago (the lab's "
		 "verdict for this host, kernel and QEMU%s%s)", age, *v.reason ? ": " : "", v.reason);
	log_info("KVM: %s; the configurations that may use KVM (accel=auto, a study's accel = kvm) run under TCG, not "
		 "tried again ('vmbench lab run --matrix accel=kvm --suites boot' tries it)", kvm_failed_why);
}

/* What accel the configuration asked, in its note: accel=auto, or a
 * study's accel = kvm. */
static const char *asked(const struct lab *l)
{
	return !strcmp(l->accel_asked, "auto") ? "accel=auto" : "accel=kvm (the study's accel = kvm)";
}

/* accel=auto (or accel=kvm under a study's accel = kvm): TCG for another
 * architecture; KVM when /dev/kvm creates VMs (as accel=kvm asks it,
 * kvm_usable) and no guest failed under it here yet. *note says why TCG
 * was used. */
static void resolve_accel(struct lab *l, struct lab_config *c, bool native, bool fallback, const char **note)
{
	bool failed, kvm;

	*note = NULL;
	if (!fallback)
		return;
	if (!native) {
		lab_config_set(c, LAB_ACCEL, "tcg");
		*note = "accel=auto: a guest of another architecture is emulated, TCG used";
		return;
	}
	kvm_remembered();
	failed = l->kvm_failed || kvm_failed_here;
	kvm = !failed && kvm_usable(l);
	lab_config_set(c, LAB_ACCEL, kvm ? "kvm" : "tcg");
	if (failed)
		snprintf(l->accel_note, sizeof(l->accel_note), "%s: %s, TCG used", asked(l), kvm_failed_why);
	else if (!kvm)
		snprintf(l->accel_note, sizeof(l->accel_note), "%s: /dev/kvm is %s, TCG used", asked(l), l->kvm_why);
	if (failed || !kvm)
		*note = l->accel_note;
}

static int boot_config(const struct lab *l, const struct lab_config *c, const char *image_dir, int hello_timeout_ms,
		       json_t **doc, struct lab_failure *f, char *err, size_t errlen)
{
	return lab_run_config(c, &(struct lab_run_opts){
		.image_dir = image_dir, .cache = l->cache, .suites = l->suites, .boots = l->rq->boots,
		.run_opts = l->run_opts, .progress = isatty(STDERR_FILENO) && log_get_level() >= LOG_INFO,
		.disk_size = l->disk_size, .disk_format = optset_str(l->own, "disk-format"),
		.disk_cache = optset_str(l->own, "disk-cache"), .hello_timeout_ms = hello_timeout_ms,
		.run_table = run_opts, .nic_backend = l->nic_be ? l->nic_be->name : NULL,
	}, doc, f, err, errlen);
}

/* One try of a configuration, with accel=auto's (and a study's accel =
 * kvm's) fall back to TCG when KVM could not boot the guest (that is no
 * failed try: TCG is then tried), remembered for the rest of the process
 * and as the lab's verdict. */
static int boot_try(struct lab *l, struct lab_config *c, const char *image, const char *name, bool fallback,
		    const char **note, json_t **doc, struct lab_failure *f, char *err, size_t errlen)
{
	bool autoaccel = fallback;
	int timeout_ms = (int)(optset_double(l->own, "hello-timeout") * 1000), r;

	/* a KVM guest that is not talking within 15 s will not (it boots in seconds): do not wait longer for auto */
	r = boot_config(l, c, image, autoaccel && c->accel == LAB_ACCEL_KVM && timeout_ms > 15000 ? 15000 : timeout_ms,
			doc, f, err, errlen);
	if (r < 0 && autoaccel && c->accel == LAB_ACCEL_KVM && !vmb_stop_requested()) {
		/* KVM present but not able to run this guest (a nested host, say):
		 * TCG, at once when QEMU stopped the guest for good (f->final) */
		log_info("%s: KVM did not boot the guest (%.400s); using TCG from now on", name, err);
		l->kvm_failed = kvm_failed_here = true;
		snprintf(kvm_failed_why, sizeof(kvm_failed_why), "KVM could not boot the guest here (%.400s)", err);
		snprintf(l->accel_note, sizeof(l->accel_note), "%s: %s, TCG used", asked(l), kvm_failed_why);
		/* what the next run here (a plan, info) knows without booting: a
		 * guest QEMU stopped is remembered already (labrun.c), one that
		 * did not say HELLO in a KVM guest's time is so here */
		(void)lab_kvm_verdict_save(false, err);
		lab_config_set(c, LAB_ACCEL, "tcg");
		*note = l->accel_note;
		lab_failure_release(f);
		r = boot_config(l, c, image, timeout_ms, doc, f, err, errlen);
	}
	return r;
}

/* A failed try said (the step, why, where its evidence is kept, how the
 * console ends) and recorded in l->failures. */
void lab_failed_try(struct lab *l, const char *name, unsigned try, unsigned tries, const struct lab_failure *f,
			   const char *err)
{
	char note[1024];
	json_t *rec = lab_evidence_keep(&l->evidence, name, l->round, try, tries, f, err, note, sizeof(note));
	const char *console = json_string_value(json_object_get(rec, "console"));
	const char *qemu = json_string_value(json_object_get(rec, "qemu_log"));
	size_t n = f->console ? strlen(f->console) : 0;

	log_error("%s: %s failed (round %u, try %u of %u): %s", name, f->step, l->round, try, tries, err);
	if (console || qemu)
		log_error("%s: kept: %s%s%s%s%s", name, console ? "the guest's console in " : "", console ? console : "",
			  console && qemu ? ", " : "", qemu ? "QEMU's output in " : "", qemu ? qemu : "");
	if (*note)
		log_error("%s: %s", name, note);
	if (f->console && n)
		log_error("%s: the console ends with:\n%s", name, f->console + (n > 600 ? n - 600 : 0));
	else if (f->console)
		log_error("%s: the guest printed nothing on its console", name);
	if (!rec || json_array_append_new(l->failures, rec) < 0) {
		log_error("%s: out of memory recording the failure", name);
		l->failed++;
	}
}

/* Boot a configuration until a try succeeds, at most 1 + --retries times in
 * this round. Each failed try is said, kept and, once the round is over for
 * the configuration, stored as a marker (lab report lists it). 0 with *doc,
 * or the last try's error in err. */
static int boot_tries(struct lab *l, struct lab_config *c, const char *image, const char *name, bool fallback,
		      const char **note, json_t **doc, struct noise_snap *ns, double *started, char *err, size_t errlen)
{
	unsigned tries = 1 + (unsigned)optset_int(l->own, "retries");
	size_t first = json_array_size(l->failures);
	int r = -EINTR;

	for (unsigned t = 1; t <= tries && !vmb_stop_requested(); t++) {
		struct lab_failure f;
		bool final;

		if (t == 1)
			log_info("%s: booting (%s)", name, c->v[LAB_ACCEL]);
		else
			log_info("%s: booting again (%s), try %u of %u", name, c->v[LAB_ACCEL], t, tries);
		noise_begin(ns, NULL, 0);
		*started = wall_time_s();
		r = boot_try(l, c, image, name, fallback, note, doc, &f, err, errlen);
		if (r < 0 && r != -EOPNOTSUPP && !vmb_stop_requested())
			lab_failed_try(l, name, t, tries, &f, err);
		final = f.final;
		lab_failure_release(&f);
		if (r == 0 || r == -EOPNOTSUPP)
			break;
		/* QEMU stopped the guest for good: another try fails the same way */
		if (final && t < tries && !vmb_stop_requested()) {
			log_error("%s: not booted again (--retries %u): QEMU stopped the guest for good, and a new boot of "
				  "the same configuration stops the same way", name, tries - 1);
			break;
		}
	}
	for (size_t i = first; i < json_array_size(l->failures); i++) {
		json_t *rec = json_array_get(l->failures, i), *marker;
		char why[512];

		/* every failed try but a last one that ended the round was retried */
		if ((r == 0 || i + 1 < json_array_size(l->failures)) &&
		    json_object_set_new(rec, "outcome", json_string("retried")) < 0)
			log_error("%s: out of memory recording the failure", name);
		marker = lab_failure_marker(rec, why, sizeof(why));
		if (marker)
			lab_keep(l, name, marker, c, *note);
		else
			log_error("%s: the failure is not stored: %s", name, why);
	}
	return r;
}

/* accel=kvm given: does this machine's /dev/kvm run guests? Asked once, as
 * `vmbench info` asks it (probe_kvm_usable), the answer in l->kvm_why. */
static bool kvm_usable(struct lab *l)
{
	if (!l->kvm_probed)
		l->kvm_ok = probe_kvm_usable(probe_machine_root(), l->kvm_why, sizeof(l->kvm_why));
	l->kvm_probed = true;
	return l->kvm_ok;
}

/* One configuration of the matrix: boot it, measure, keep the result. */
static void lab_config(struct lab *l, const struct lab_matrix *m, size_t i)
{
	struct lab_config c = m->configs[i];
	bool native = !strcmp(c.v[LAB_ARCH], lab_host_arch());
	char name[256], ran[256], err[2048];
	const char *image, *note;
	json_t *doc = NULL;
	struct noise_snap ns;
	struct noise_reading nr;
	double started = 0;
	int r;
	/* KVM tried, TCG where it cannot boot a guest here: accel=auto, and a
	 * study's accel = kvm for a configuration of accel=kvm */
	bool fallback = c.accel == LAB_ACCEL_AUTO || (c.accel == LAB_ACCEL_KVM && l->rq->kvm_fallback && native);

	lab_config_name(m, &c, name, sizeof(name));
	if (lab_hv_config_unsupported(&c, err, sizeof(err))) {
		log_info("%s: skipped: %s", name, err);
		return;
	}
	if (c.accel == LAB_ACCEL_KVM && !native) {
		log_info("%s: skipped: KVM runs guests of this machine's architecture (%s) only; accel=tcg emulates %s",
			 name, lab_host_arch(), c.v[LAB_ARCH]);
		return;
	}
	if (c.accel == LAB_ACCEL_KVM && !fallback && !kvm_usable(l)) {
		log_info("%s: skipped: accel=kvm needs a /dev/kvm that runs guests, and this machine's is %s (as 'vmbench "
			 "info' says); accel=tcg emulates the guest instead", name, l->kvm_why);
		return;
	}
	image = lab_image(l, name, &c);
	if (!image) {
		l->failed++;
		return;
	}
	if (lab_config_fs(&c) && lab_image_lacks_fs(image, c.v[LAB_FS], err, sizeof(err))) {
		log_info("%s: skipped: %s", name, err);
		return;
	}
	snprintf(l->accel_asked, sizeof(l->accel_asked), "%s", c.v[LAB_ACCEL]);
	resolve_accel(l, &c, native, fallback, &note);
	r = boot_tries(l, &c, image, name, fallback, &note, &doc, &ns, &started, err, sizeof(err));
	if (r == -EOPNOTSUPP) {
		log_info("%s: skipped: %s", name, err);
		return;
	}
	if (r < 0) {
		l->failed++;
		return;
	}
	/* what else ran on the host meanwhile (QEMU, reaped, counts as ours) */
	noise_end(&ns, NULL, 0, started, &nr);
	r = json_object_set_new(doc, "host_noise", json_pack("{s:o, s:o, s:o, s:b}", "other_cpu_pct",
		isfinite(nr.other_cpu_pct) ? json_real(nr.other_cpu_pct) : json_null(), "steal_pct",
		isfinite(nr.steal_pct) ? json_real(nr.steal_pct) : json_null(), "irq_pct",
		isfinite(nr.irq_pct) ? json_real(nr.irq_pct) : json_null(), "busy", nr.busy));
	if (r == 0) {
		json_t *b = json_object_get(l->busy, name);

		if (!b && (b = json_pack("[i, i]", 0, 0)) && json_object_set_new(l->busy, name, b) < 0)
			b = NULL;
		r = b && json_array_set_new(b, 0, json_integer(json_integer_value(json_array_get(b, 0)) + nr.busy)) == 0 &&
		    json_array_set_new(b, 1, json_integer(json_integer_value(json_array_get(b, 1)) + 1)) == 0 ? 0 : -ENOMEM;
	}
	if (r < 0) {
		log_error("%s: out of memory recording the host's noise", name);
		json_decref(doc);
		l->failed++;
		return;
	}
	/* the comparison names what ran: accel=auto (ran tcg), the baseline too */
	{
		char asked[256];

		lab_name_asked(l->base, asked, sizeof(asked));
		lab_config_ran_name(m, &m->configs[i], &c, ran, sizeof(ran));
		if (*l->base && !strcmp(asked, name))
			snprintf(l->base, sizeof(l->base), "%s", ran);
	}
	if (*l->nic_note && lab_config_device(&c, LAB_NIC)) {
		char both[1024];

		snprintf(both, sizeof(both), "%s%s%s", note ? note : "", note ? "; " : "", l->nic_note);
		lab_keep(l, ran, doc, &c, both);
		return;
	}
	lab_keep(l, ran, doc, &c, note);
}

/* --rounds auto: the margin given, or 0 (then no equivalence decides) */
static double lab_margin(const struct lab *l)
{
	for (size_t i = 0; i < l->own->n; i++)
		if (!strcmp(l->own->opts[i].name, "margin") && l->own->vals[i].set)
			return l->own->vals[i].d;
	return 0;
}

/* The order of round k of several: shuffled (Fisher-Yates from the recorded
 * seed, so that drift hits every configuration alike), and l->group saying
 * so in every result of the round. */
static int lab_shuffle(struct lab *l, const struct lab_matrix *m, size_t *order, unsigned k, unsigned rounds,
		       uint64_t seed, uint64_t *rng)
{
	char group_id[32];
	json_t *names = json_array();

	for (size_t i = m->n; i > 1; i--) {
		size_t j, x;

		*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
		j = (size_t)((*rng >> 33) % i);
		x = order[i - 1], order[i - 1] = order[j], order[j] = x;
	}
	for (size_t i = 0; names && i < m->n; i++) {
		char nm[256];

		lab_config_name(m, &m->configs[order[i]], nm, sizeof(nm));
		if (json_array_append_new(names, json_string(nm)) < 0) {
			json_decref(names);
			names = NULL; /* then l->group is NULL: the check below */
		}
	}
	snprintf(group_id, sizeof(group_id), "lab-%08llx", (unsigned long long)seed);
	json_decref(l->group);
	/* auto: the rounds so far, and the rule that decides how many */
	l->group = json_pack("{s:s, s:I, s:I, s:I, s:o}", "id", group_id, "round", (json_int_t)k, "rounds",
			     (json_int_t)(l->autorounds ? k : rounds), "seed", (json_int_t)seed, "order", names);
	if (l->group && l->autorounds &&
	    json_object_set_new(l->group, "auto", lab_margin(l) > 0
		    ? json_pack("{s:f, s:f}", "mdd_pct", optset_double(l->own, "mdd"), "margin_pct", lab_margin(l))
		    : json_pack("{s:f}", "mdd_pct", optset_double(l->own, "mdd"))) < 0) {
		json_decref(l->group);
		l->group = NULL;
	}
	if (!l->group) {
		log_error("out of memory recording round %u", k);
		return -ENOMEM;
	}
	if (l->autorounds)
		log_info("round %u (--rounds auto, seed %llu)", k, (unsigned long long)seed);
	else
		log_info("round %u of %u (seed %llu)", k, rounds, (unsigned long long)seed);
	return 0;
}

/* How often the host was busy during each configuration's boots. */
static void say_busy(const struct lab *l)
{
	const char *k;
	json_t *v;

	fflush(stdout); /* as log.c: what stdout had comes first */
	json_object_foreach(l->busy, k, v)
		if (log_get_level() > LOG_ERROR)
			fprintf(stderr, "vmbench: %s: host busy during %lld of %lld boot%s\n", k,
				(long long)json_integer_value(json_array_get(v, 0)),
				(long long)json_integer_value(json_array_get(v, 1)),
				json_integer_value(json_array_get(v, 1)) == 1 ? "" : "s");
}

/* --rounds auto: the verdicts of the headline metrics against the
 * baseline, as the comparison at the end will judge them (paired by
 * round), each a case of the rule; *n of them (the caller frees). */
static struct round_case *lab_round_cases(const struct lab *l, const struct lab_matrix *m, size_t *n)
{
	struct cmp_table t;
	struct round_case *c = NULL;
	size_t cap = 0;
	int r = 0;

	*n = 0;
	cmp_table_init(&t, suites_find);
	if (lab_margin(l) > 0)
		t.margin_pct = lab_margin(l);
	for (size_t o = 0; r == 0 && o < l->t.nops; o++)
		r = cmp_add_operand(&t, l->t.ops[o].name, json_incref(l->t.ops[o].docs));
	/* the operands as the comparison at the end has them: its baseline */
	lab_matrix_order(&t, m);
	if (r == 0 && t.nops > 1 && lab_compare(&t, lab_baseline_spec(l->rq), l->base, &l->base_pairs) == 0)
		for (size_t i = 0; i < t.nrows; i++) {
			const struct cmp_row *row = &t.rows[i];

			for (size_t o = 0; row->headline && o < t.nops; o++) {
				struct cmp_verdict v;
				char name[256];

				if (o == t.baseline || t.ops[o].aside)
					continue;
				cmp_judge(&t, row, o, &v);
				if (!v.comparable)
					continue;
				if (*n == cap) {
					struct round_case *x = realloc(c, (cap = cap ? 2 * cap : 16) * sizeof(*c));

					if (!x)
						goto out; /* the cases so far: fewer judged, never a made-up one */
					c = x;
				}
				round_row_name(&t, row, name, sizeof(name));
				c[*n] = (struct round_case){ .judged = true, .significant = v.rc.significant, .p = v.rc.p,
							     .same = v.rc.verdict == STATS_SAME,
							     .mdd_pct = isnan(v.rc.mdd_pct) ? INFINITY : v.rc.mdd_pct };
				snprintf(c[*n].name, sizeof(c[*n].name), "%s, %s vs %s", name, t.ops[o].name,
					 t.ops[t.baseline].name);
				(*n)++;
			}
		}
out:
	cmp_table_release(&t);
	return c;
}

/* --rounds auto after round k: whether to stop, and why, said. */
static bool lab_auto_done(const struct lab *l, const struct lab_matrix *m, struct round_auto *ra, unsigned k,
			  double started)
{
	char said[1200], why[80];
	struct round_case *c = NULL;
	size_t n = 0;
	bool decided;

	/* a study's rounds first, whatever the budget: its statistic needs them */
	if (k < l->rq->min_rounds)
		return false;
	/* no verdict before two rounds, but the budget holds from the first */
	if (k >= 2)
		c = lab_round_cases(l, m, &n);
	if (k >= 2 && !n) {
		/* more rounds would judge nothing either (no metric in common: boot against the host) */
		free(c);
		log_warn("--rounds auto: stopped after %u rounds: no verdict between the operands to judge, so no "
			 "case to decide (no headline metric measured on two sides); give --rounds N for a number of "
			 "rounds", k);
		return true;
	}
	decided = round_auto_after(ra, k, c, n, said, sizeof(said));
	free(c);
	if (*said)
		log_info("%s", said);
	if (decided)
		return true;
	/* another round as long as the mean one so far must end within --budget-total */
	if ((clock_s() - started) * (k + 1) / k > optset_double(l->own, "budget-total")) {
		snprintf(why, sizeof(why), "another would end after --budget-total %gs",
			 optset_double(l->own, "budget-total"));
		round_auto_undecided(ra, k, why, said, sizeof(said));
		log_info("%s", said);
		return true;
	}
	if (k == l->rounds) {
		snprintf(why, sizeof(why), "the most rounds, %u", k);
		round_auto_undecided(ra, k, why, said, sizeof(said));
		log_info("%s", said);
	}
	return false;
}

/* Every round: the host (its runs are the baseline's replication), then
 * every configuration. EXIT_OK, or EXIT_FAILED after a message. */
static int lab_rounds(struct lab *l, const struct lab_matrix *m, size_t *order)
{
	unsigned rounds = l->rounds;
	uint64_t seed = ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)) & 0xffffffffu, rng = seed;
	double started = clock_s();
	struct round_auto ra = { .what = "--rounds auto",
				 .rule = { .mdd_pct = l->autorounds ? optset_double(l->own, "mdd") : 0,
					   .margin = lab_margin(l) > 0 } };

	for (size_t i = 0; i < m->n; i++)
		order[i] = i;
	for (unsigned k = 1; k <= rounds && !vmb_stop_requested(); k++) {
		int r;

		l->round = k;
		if (rounds > 1 && lab_shuffle(l, m, order, k, rounds, seed, &rng) < 0)
			return EXIT_FAILED;
		r = strcmp(lab_baseline_spec(l->rq), "none") && !l->rq->fleet_host_by ? lab_baseline(l) : 0;
		if (r == -EINTR)
			break; /* said as an interruption by the caller */
		if (r < 0)
			return EXIT_FAILED;
		for (size_t i = 0; i < m->n && !vmb_stop_requested(); i++)
			lab_config(l, m, order[i]);
		if (l->autorounds && !vmb_stop_requested() && lab_auto_done(l, m, &ra, k, started))
			break;
	}
	return EXIT_OK;
}

/* session: NULL, or where the session's id goes.
 * With a session, no report is written: lab study draws its own. */
int lab_run(const struct vmb_cmd *self, struct lab_request *rq, const char *cache)
{
	struct optset *own = &rq->own;
	bool check_only = rq->check_only;
	char *session = rq->session;
	size_t session_len = rq->session_len;
	const char *image_dir = optset_str(own, "image-dir");
	struct lab l = { .rq = rq, .own = own, .cache = cache, .image_dir = image_dir,
			 .suites = rq->items ? rq->items : LAB_RUN_SUITES, .check_only = check_only,
			 .plan = optset_bool(own, "plan") };
	struct lab_matrix m = { 0 };
	const char *out = optset_str(own, "output");
	size_t *order = NULL;
	int ret;

	cmp_table_init(&l.t, suites_find);
	lab_evidence_init(&l.evidence);
	l.failures = json_array();
	l.t.failures = l.failures;
	snprintf(l.disk_size, sizeof(l.disk_size), "%llu", (unsigned long long)optset_size(own, "disk-size"));
	l.run_opts = lab_run_options(rq);
	if (!l.run_opts) {
		log_error("out of memory");
		ret = EXIT_FAILED;
		goto out;
	}
	ret = lab_request_rounds(self, rq, &l.rounds, &l.autorounds);
	if (ret != CMD_CONTINUE)
		goto out;
	ret = lab_prepare(self, &l, &m, out);
	if (ret != CMD_CONTINUE)
		goto out;
	if (check_only) {
		ret = EXIT_OK;
		goto out;
	}
	ret = lab_plan_first(&l, rq, &m);
	if (ret != CMD_CONTINUE)
		goto out;
	if (rq->fleet_session)
		snprintf(l.session, sizeof(l.session), "%s", rq->fleet_session); /* every host's, one session */
	else
		lab_session_new(l.session, sizeof(l.session));
	log_info("lab session %s=%s", LAB_SESSION_LABEL, l.session);
	l.busy = json_object();
	order = calloc(m.n ? m.n : 1, sizeof(*order));
	ret = order && l.busy && l.failures ? lab_rounds(&l, &m, order) : EXIT_FAILED;
	if (ret != EXIT_OK)
		goto out;
	say_busy(&l);
	if (vmb_stop_requested()) {
		log_error("interrupted");
		ret = EXIT_INTERRUPTED;
		goto out;
	}
	/* the host alone is no comparison of configurations */
	if (l.t.nops == (size_t)l.host && !l.failed) {
		log_error("no configuration of the matrix can run here (each was skipped, see why above)");
		ret = EXIT_FAILED;
		goto out;
	}
	lab_matrix_order(&l.t, &m);
	if (lab_margin(&l) > 0)
		l.t.margin_pct = lab_margin(&l); /* as --rounds auto judged its cases */
	if (l.t.nops && lab_compare(&l.t, lab_baseline_spec(rq), l.base, &l.base_pairs) == 0)
		ret = lab_show(&l.t, out, !session);
	else if (l.t.nops)
		ret = EXIT_FAILED;
	else
		cmp_print_failures(stdout, &l.t); /* nothing to compare, but what failed */
	if (l.failed)
		ret = EXIT_FAILED;
out:
	if (*l.session)
		log_info("lab session %s=%s: 'vmbench lab report %s=%s' redraws this comparison", LAB_SESSION_LABEL,
			 l.session, LAB_SESSION_LABEL, l.session);
	if (session)
		snprintf(session, session_len, "%s", l.session);
	free(order);
	lab_end(&l, &m);
	return ret;
}

static const struct vmb_opt lab_run_opts[] = {
	LAB_OPT_IMAGE_DIR,
	LAB_OPTS_BOOTS,
	LAB_OPTS_MEASURED,
	{ .name = "boots", .type = OPT_INT, .min = 1, .max = 100, .def = "3", .quick = "2", .metavar = "N",
	  .help = "cold boots timed per configuration (the first also runs the suites)" },
	LAB_OPT_ROUNDS,
	RUN_AUTO_OPTS,
	{ .name = "margin", .type = OPT_DOUBLE, .min = 0.01, .max = 100, .metavar = "PCT",
	  .help = "auto: a case whose verdict is the same within +-PCT% (the 90% confidence interval of the difference "
		  "inside it) is decided too; the comparison judges 'same' with this margin (default 5%, and no case "
		  "decided by it)" },
	LAB_OPT_PLAN,
	LAB_OPT_BASELINE,
	LAB_OPTS_DISK,
	{ .name = "retries", .type = OPT_INT, .min = 0, .max = 10, .def = "1", .metavar = "N",
	  .help = "boot a configuration that failed again, up to N more times in the same round; when no try "
		  "succeeds, the round is marked failed for it. Each failed boot's console and QEMU's output are "
		  "kept in $XDG_STATE_HOME/vmbench/lab-failures/, named in the message and the report" },
	LAB_OPT_HELLO_TIMEOUT,
	{ .name = "connect", .type = OPT_STRING, .metavar = "URI", .repeatable = true,
	  .help = "boot the guests through libvirt at URI (e.g. qemu:///system, qemu+ssh://HOST/system) instead of "
		  "QEMU directly: a transient domain per boot, written from the same configuration (machine, CPU "
		  "model, vCPUs, memory, kernel command line, the disk model's bus and controller), started so that "
		  "the daemon destroys it if vmbench dies; each result is labelled hv_backend=libvirt, "
		  "hv_host=HOST (the daemon's host name; directly: hv_backend=qemu and this machine's) and "
		  "hv_uri=URI (without its ?query or a password). 'direct' is QEMU driven here, labelled so. "
		  "Given once per host (repeatable), the whole matrix runs on each, a process per host: hosts in "
		  "parallel, the connections that reach one machine one after another, each message tagged with "
		  "its hv_uri, this machine measured as the baseline by one of them; a host that fails fails "
		  "alone, the others' results are kept; then one comparison of host x configuration, each "
		  "configuration named hv_uri=URI first. A NIC's domain opens a tap vmbtPID-N that the lab makes in "
		  "the root network namespace, without an address, joined by tc to a veth into a network "
		  "namespace of the lab's own, where the net suite's other end is, as directly. What libvirt "
		  "cannot carry yet is skipped with why: nics or queues above 1, a shared folder, firmware=uefi, "
		  "boot=cdrom, disk=nvme and usb-ehci. The balloon, pin=on, vmops.snapshot, vmops.savevm "
		  "and vmops.saverestore go through libvirt's own calls (a restored domain is not AUTODESTROY: a "
		  "kill -9 of vmbench after it leaves it running), vmops.migrate to the host of --migrate-to, and "
		  "boot.warm's reboot is timed from libvirt's reboot event" },
	LAB_OPT_CONNECT_TIMEOUT,
	{ .name = "migrate-to", .type = OPT_STRING, .metavar = "URI",
	  .help = "with --connect (one host): the libvirt host vmops.migrate moves each guest to, and back on "
		  "its next move, live, by libvirt's own call (virDomainMigrate3; a post-copy switched by "
		  "virDomainMigrateStartPostCopy; libvirt refuses a migration to the host a domain runs on); over "
		  "loopback when URI reaches this machine; the disk and kernel paths must be "
		  "the same there. libvirt migrates no domain marked AUTODESTROY, nor marks one migrated in: with "
		  "--migrate-to the domains are started without it, and the lab destroys them on its own exits "
		  "(Ctrl-C included), but a kill -9 of vmbench, or a second Ctrl-C, leaves them running ('virsh -c "
		  "URI destroy NAME')" },
	LAB_OPT_LABEL,
	LAB_OPT_OUTPUT,
	LAB_OPT_DB,
	LAB_OPTS_SAY,
	LAB_OPTS_REFUSED,
	OPT_TABLE_END,
};

static int cmd_lab_run(const struct vmb_cmd *self, int argc, char **argv)
{
	(void)self;
	return lab_request_main(LAB_VERB_RUN, argc, argv);
}

const struct vmb_cmd cmd_lab_run_desc = {
	.name = "run",
	.fn = cmd_lab_run,
	.args = "--matrix SPEC",
	.summary = "boot every configuration of a matrix, measure it, compare the configurations",
	.opts = lab_run_opts,
	.flags = CMD_SUITE_OPTS,
	.parent = &cmd_lab_desc,
};
