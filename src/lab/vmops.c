/* The vmops suite, measured by the host through the hypervisor back end's
 * operations (hv.h: migrate, save_restore, snapshot, commit, savevm) and
 * the agent (vmops.h). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmops.h"
#include "balloon.h"
#include "hostsuite.h"
#include "hv.h"
#include "../core/clock.h"
#include "../core/result.h"
#include "../core/stop.h"
#include "../core/str.h"
#include "../suites/vmops.h"
#include "../core/banned.h"

#define VMOPS_AGENT_MS 10000 /* the agent's answer in the QEMU the guest ends in */
#define VMOPS_TOKEN "vmops-check"

/* The loads a migration runs under: what the guest runs meanwhile (NULL:
 * nothing), the prefix of its figures beside, how long after its first
 * case began the migration starts (mem's arrays written at least once, as
 * its steady state), and what makes the run longer. */
enum { LOAD_IDLE, LOAD_MEM, LOAD_CLOCK, NLOADS };
static const struct vmops_load {
	const char *name, *run, *prefix, *longer;
	unsigned delay_ms;
} loads[NLOADS] = {
	[LOAD_IDLE] = { "idle", NULL, NULL, NULL, 0 },
	[LOAD_MEM] = { "mem", VMOPS_LOAD, VMOPS_LOAD_PREFIX, "--mem.ntimes, --mem.array-size", 1000 },
	[LOAD_CLOCK] = { "clock", VMOPS_CLOCK, VMOPS_CLOCK_PREFIX, "--time", 0 },
};

struct vmops_opts {
	bool pre, post, load[NLOADS];
	uint64_t bandwidth;
	unsigned postcopy_after; /* pre-copy passes before the switch */
	double timeout_s;
};

/* One migration's figures (-1: not measured), or a save and restore's. */
struct fig {
	double total, downtime, setup, ram, dirty, passes, postcopy, agent;
	double save, state, restore, resume;
	double create, overlay, commit;
	double savevm, loadvm;
};

static const char *opt_default(const char *name)
{
	for (const struct vmb_opt *o = vmops_suite.opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o->def;
	return "";
}

/* The lab run's vmops options (checked by their rows already), the rows'
 * defaults where not given. */
static int read_opts(const json_t *run_opts, struct vmops_opts *o, char *why, size_t len)
{
	const json_t *bw = json_object_get(run_opts, "vmops.bandwidth"), *to = json_object_get(run_opts, "vmops.timeout");
	const json_t *pa = json_object_get(run_opts, "vmops.postcopy-after");
	const char *mode = json_string_value(json_object_get(run_opts, "vmops.mode")) ?: opt_default("mode");
	const char *load = json_string_value(json_object_get(run_opts, "vmops.load")) ?: opt_default("load");

	o->pre = !strcmp(mode, "precopy") || !strcmp(mode, "both");
	o->post = !strcmp(mode, "postcopy") || !strcmp(mode, "both");
	for (int k = 0; k < NLOADS; k++)
		o->load[k] = !strcmp(load, loads[k].name) || !strcmp(load, "all") || (k < LOAD_CLOCK && !strcmp(load, "both"));
	o->bandwidth = json_is_integer(bw) ? (uint64_t)json_integer_value(bw) : 0;
	o->postcopy_after = json_is_integer(pa) ? (unsigned)json_integer_value(pa)
						  : (unsigned)strtoul(opt_default("postcopy-after"), NULL, 10);
	o->timeout_s = json_is_number(to) ? json_number_value(to) : strtod(opt_default("timeout"), NULL);
	if ((!o->pre && !o->post) || (!o->load[LOAD_IDLE] && !o->load[LOAD_MEM] && !o->load[LOAD_CLOCK]) ||
	    !(o->timeout_s >= 1) || o->postcopy_after > 100)
		return errf(why, len, -EINVAL, "--vmops.mode is precopy, postcopy or both; --vmops.load idle, mem, clock, "
			    "both or all; --vmops.timeout at least 1 s");
	return 0;
}

const char *lab_vmops_unsupported(const struct lab_config *c, const struct lab_paths *p)
{
	const struct lab_backend *nic = lab_config_device(c, LAB_NIC) ? lab_backend_of(p, LAB_NIC) : NULL;

	if (lab_config_device(c, LAB_SHARE))
		return "a share's device (its host daemon or directory) does not move with the guest to a second QEMU: "
		       "give share=none to migrate or restore the guest";
	if (nic && nic->child)
		return "the NIC's tap lives in a network namespace of the first QEMU's own, which a second QEMU "
		       "cannot share: give nic=none to migrate or restore the guest";
	return NULL;
}

/* The vmops test a back end cannot do, skipped with its reason (NULL: it can). */
static const char *cannot(const struct lab_vm *vm, const char *hook)
{
	return lab_hv_why_not(vm->hv, hook);
}

static struct lab_hv_move move_of(const struct vmops_opts *o, bool postcopy)
{
	return (struct lab_hv_move){ .bandwidth = o->bandwidth, .postcopy = postcopy,
				     .postcopy_after = o->postcopy_after, .timeout_s = o->timeout_s };
}

/* One live migration of the guest to a second start (the back end's
 * migrate); with check, the agent is asked to answer there (*f's agent).
 * *lost when the guest can no longer be reached (a post-copy that failed
 * after its switch, an agent that does not answer): that ends the boot. */
static int migrate_once(struct lab_vm *vm, const struct vmops_opts *o, bool postcopy, bool check, struct fig *f,
			bool *lost, char *why, size_t len)
{
	struct lab_hv_move how = move_of(o, postcopy);
	struct lab_hv_moved m;
	int r = vm->hv->migrate(vm, &how, &m, lost, why, len);

	if (r < 0 && !*lost)
		return r;
	if (r == 0)
		*f = (struct fig){ .total = m.total_ms / 1e3, .downtime = m.downtime_ms / 1e3,
				   .setup = m.setup_ms >= 0 ? m.setup_ms / 1e3 : -1, .ram = m.transferred,
				   /* QEMU computes the rate once a second: a shorter migration has none */
				   .dirty = m.total_ms >= 1000 ? m.dirty_rate : -1, .passes = m.passes,
				   .postcopy = postcopy ? (m.postcopy_bytes >= 0 ? m.postcopy_bytes : 0) : -1, .agent = -1,
				   .save = -1, .state = -1, .restore = -1, .resume = -1, .create = -1, .overlay = -1,
				   .commit = -1, .savevm = -1, .loadvm = -1 };
	if (r == 0 && check) {
		r = proto_host_token(vm->conn, VMOPS_TOKEN, VMOPS_AGENT_MS);
		if (r < 0)
			errf(why, len, r, "the guest's agent did not answer in the destination QEMU: %s", vm->conn->err);
		else
			f->agent = (double)(clock_ns() - m.t_done) / NSEC_PER_SEC;
	}
	*lost = r < 0;
	return r;
}

/* Stop, save, restore in a new start, resume (the back end's
 * save_restore); the agent's answer after. Before the old start is gone,
 * a failure resumes the guest there; after, the guest is *lost. */
static int saverestore(struct lab_vm *vm, const struct vmops_opts *o, struct fig *f, bool *lost, char *why, size_t len)
{
	struct lab_hv_move how = move_of(o, false);
	struct lab_hv_moved m;
	int r = vm->hv->save_restore(vm, &how, &m, lost, why, len);

	if (r < 0)
		return r;
	*f = (struct fig){ .total = -1, .downtime = -1, .setup = -1, .ram = -1, .dirty = -1, .passes = -1,
			   .postcopy = -1, .agent = -1, .save = m.save_s, .state = m.state_bytes, .restore = m.restore_s,
			   .resume = -1, .create = -1, .overlay = -1, .commit = -1, .savevm = -1, .loadvm = -1 };
	r = proto_host_token(vm->conn, VMOPS_TOKEN, VMOPS_AGENT_MS);
	if (r < 0)
		errf(why, len, r, "the guest's agent did not answer in the restored QEMU: %s", vm->conn->err);
	else
		f->resume = (double)(clock_ns() - m.t_resume) / NSEC_PER_SEC;
	*lost = r < 0;
	return r;
}


/* A migration under load: its delay after the first PROGRESS of the
 * guest's RUN of the load that has begun a case, in the protocol's
 * callback (the run
 * goes on meanwhile, and its later lines come from the destination). */
struct load {
	struct lab_vm *vm;
	const struct vmops_opts *o;
	unsigned delay_ms;
	bool postcopy, started, lost;
	int r;
	uint64_t t_run;
	double window[2]; /* the migration, seconds after the RUN */
	struct fig f;
	char why[512];
};

static void load_progress(void *arg, const struct proto_msg *m)
{
	struct load *l = arg;

	if (l->started || !m->ncases)
		return;
	l->started = true;
	/* the case's arrays written at least once, as its steady state: its
	 * lines meanwhile wait in the channel */
	nanosleep(&(struct timespec){ .tv_sec = l->delay_ms / 1000, .tv_nsec = (l->delay_ms % 1000) * 1000000L }, NULL);
	l->window[0] = (double)(clock_ns() - l->t_run) / NSEC_PER_SEC;
	l->r = migrate_once(l->vm, l->o, l->postcopy, false, &l->f, &l->lost, l->why, sizeof(l->why));
	l->window[1] = (double)(clock_ns() - l->t_run) / NSEC_PER_SEC;
}

static int note(struct vmb_suite_result *s, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int note(struct vmb_suite_result *s, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return vmb_params_add(&s->notes, &s->nnotes, key, buf);
}

/* A metric of one sample, when measured (v >= 0). */
static int add(struct vmb_case *c, const char *name, enum vmb_unit unit, bool headline, double v)
{
	struct vmb_metric *m;

	if (!(v >= 0))
		return 0;
	m = vmb_case_add_metric(c, name, unit, VMB_LOWER);
	if (!m || vmb_metric_push(m, v) < 0)
		return -ENOMEM;
	m->headline = headline;
	stats_summarize(m->samples, m->n, &m->sum);
	return 0;
}

static int add_fig(struct vmb_case *c, const struct fig *f)
{
	int r = 0;

	c->reps = 1;
	r = r ? r : add(c, VMOPS_TOTAL, VMB_UNIT_S, true, f->total);
	r = r ? r : add(c, VMOPS_DOWNTIME, VMB_UNIT_S, true, f->downtime);
	r = r ? r : add(c, VMOPS_SETUP, VMB_UNIT_S, false, f->setup);
	r = r ? r : add(c, VMOPS_RAM, VMB_UNIT_BYTES, false, f->ram);
	r = r ? r : add(c, VMOPS_DIRTY, VMB_UNIT_PER_S, false, f->dirty);
	r = r ? r : add(c, VMOPS_PASSES, VMB_UNIT_NONE, false, f->passes);
	r = r ? r : add(c, VMOPS_POSTCOPY, VMB_UNIT_BYTES, false, f->postcopy);
	r = r ? r : add(c, VMOPS_AGENT, VMB_UNIT_S, false, f->agent);
	r = r ? r : add(c, VMOPS_SAVE, VMB_UNIT_S, true, f->save);
	r = r ? r : add(c, VMOPS_STATE, VMB_UNIT_BYTES, false, f->state);
	r = r ? r : add(c, VMOPS_RESTORE, VMB_UNIT_S, true, f->restore);
	r = r ? r : add(c, VMOPS_RESUME, VMB_UNIT_S, false, f->resume);
	r = r ? r : add(c, VMOPS_CREATE, VMB_UNIT_S, true, f->create);
	r = r ? r : add(c, VMOPS_OVERLAY, VMB_UNIT_BYTES, false, f->overlay);
	r = r ? r : add(c, VMOPS_COMMIT, VMB_UNIT_S, true, f->commit);
	r = r ? r : add(c, VMOPS_SAVEVM, VMB_UNIT_S, true, f->savevm);
	r = r ? r : add(c, VMOPS_LOADVM, VMB_UNIT_S, true, f->loadvm);
	return r;
}


/* The guest's RUN of VMOPS_WRITE: *doc, or why (1: a failed test, the
 * guest's ERROR) or a negative errno in err (its channel broken). */
static int write_run(struct lab_vmops *v, json_t **doc, char *why, size_t len, char *err, size_t errlen)
{
	int r = proto_host_run(v->vm->conn, VMOPS_WRITE, v->write_opts, v->fp, 120000, 3600000, doc);

	if (r == -EIO) {
		errf(why, len, r, "the guest's %s: %s", VMOPS_WRITE, v->vm->conn->err);
		return 1;
	}
	return r < 0 ? errf(err, errlen, r, "vmops.snapshot, the guest's %s: %s", VMOPS_WRITE, v->vm->conn->err) : 0;
}

/* The snapshot test into c: VMOPS_WRITE, the back end's snapshot of the
 * scratch disk to a new qcow2 overlay, VMOPS_WRITE again (its first
 * write to each cluster copies it up), its commit back into the image. 1
 * with why for a failed test; a negative errno in err ends the boot. */
static int snapshot(struct lab_vmops *v, const struct vmops_opts *o, struct vmb_case *c, char *why, size_t len,
		    char *err, size_t errlen)
{
	struct fig f = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	json_t *before = NULL, *after = NULL;
	char overlay[200];
	struct stat st;
	int r;

	snprintf(overlay, sizeof(overlay), "%s/snap.qcow2", v->vm->dir);
	(void)unlink(overlay);
	r = write_run(v, &before, why, len, err, errlen);
	if (r != 0)
		return r;
	if (v->vm->hv->snapshot(v->vm, overlay, &f.create, why, len) < 0) {
		json_decref(before);
		return 1;
	}
	r = write_run(v, &after, why, len, err, errlen);
	if (r == 0 && stat(overlay, &st) == 0)
		f.overlay = (double)st.st_size;
	if (r == 0)
		r = v->vm->hv->commit(v->vm, o->timeout_s, &f.commit, why, len) < 0 ? 1 : 0;
	/* committed, the overlay is no longer the hypervisor's; a failed one's stays until the work directory goes */
	if (r == 0)
		(void)unlink(overlay);
	c->reps = 1;
	if (r == 0 && (add_fig(c, &f) < 0 || lab_load_metrics(c, before, VMOPS_BEFORE_PREFIX) < 0 ||
		       lab_load_metrics(c, after, VMOPS_AFTER_PREFIX) < 0))
		r = errf(err, errlen, -ENOMEM, "out of memory");
	json_decref(before);
	json_decref(after);
	return r;
}

/* The savevm test into c: the VM saved inside its disks, reverted to,
 * deleted (the back end's savevm), the agent's answer after. 1 with why
 * for a failed test, 2 for one the back end cannot do here (a disk or
 * firmware store that is not qcow2: QEMU's words); a negative errno in
 * err ends the boot (the guest reverted and silent). */
static int savevm(struct lab_vmops *v, struct vmb_case *c, char *why, size_t len, char *err, size_t errlen)
{
	struct fig f = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	int r = v->vm->hv->savevm(v->vm, VMOPS_TOKEN, &f.savevm, &f.loadvm, why, len);

	if (r == -EOPNOTSUPP)
		return 2;
	if (r < 0)
		return 1;
	why[0] = '\0';
	r = proto_host_token(v->vm->conn, VMOPS_TOKEN, VMOPS_AGENT_MS);
	if (r < 0)
		return errf(err, errlen, r, "vmops.savevm: the guest's agent did not answer after loadvm: %s",
			    v->vm->conn->err);
	c->reps = 1;
	return add_fig(c, &f) < 0 ? errf(err, errlen, -ENOMEM, "out of memory") : 0;
}


/* The largest of the clock loop's gaps (ns, a sample per repetition, one
 * of which spans the migration), seconds; -1 when the run has none. */
static double clock_pause(const json_t *doc)
{
	const json_t *cs = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
					 json_object_get(doc, "suites"), 0), "tests"), 0), "cases"), 0), *mt, *v;
	double max = -1;
	size_t i, j;

	json_array_foreach(json_object_get(cs, "metrics"), i, mt)
		if (!strcmp(json_string_value(json_object_get(mt, "name")) ?: "", VMOPS_CLOCK_GAP) &&
		    !strcmp(json_string_value(json_object_get(mt, "unit")) ?: "", "ns"))
			json_array_foreach(json_object_get(mt, "samples"), j, v)
				if (json_is_number(v) && json_number_value(v) >= 0 && json_number_value(v) < 1e13 &&
				    json_number_value(v) / 1e9 > max)
					max = json_number_value(v) / 1e9;
	return max;
}

/* One case of the migrate test into c: the migration, idle or under a
 * load. 1 with why for a failed case; a negative errno in err ends the boot. */
static int migrate_case(struct lab_vmops *v, const struct vmops_opts *o, bool postcopy, int load,
			struct vmb_suite_result *s, struct vmb_case *c, char *why, size_t len, char *err, size_t errlen)
{
	const struct vmops_load *ld = &loads[load];
	struct lab_vm *vm = v->vm;
	char bw[32], after[16];
	struct fig f;
	bool lost = false;
	int r;

	snprintf(bw, sizeof(bw), "%llu", (unsigned long long)o->bandwidth);
	snprintf(after, sizeof(after), "%u", o->postcopy_after);
	if (vmb_params_add(&c->params, &c->nparams, "mode", postcopy ? "postcopy" : "precopy") < 0 ||
	    (postcopy && vmb_params_add(&c->params, &c->nparams, "postcopy-after", after) < 0) ||
	    vmb_params_add(&c->params, &c->nparams, "load", ld->name) < 0 ||
	    vmb_params_add(&c->params, &c->nparams, "bandwidth", bw) < 0)
		return errf(err, errlen, -ENOMEM, "out of memory");
	if (!ld->run) {
		r = migrate_once(vm, o, postcopy, true, &f, &lost, why, len);
		if (r < 0)
			return lost ? errf(err, errlen, r, "vmops.migrate: %s", why) : 1;
	} else {
		struct load l = { .vm = vm, .o = o, .delay_ms = ld->delay_ms, .postcopy = postcopy, .r = -EINPROGRESS };
		void (*was)(void *, const struct proto_msg *) = vm->conn->on_progress;
		void *was_arg = vm->conn->progress_arg;
		json_t *d = NULL;
		double ran;
		bool spanned;
		char key[64];

		vm->conn->on_progress = load_progress;
		vm->conn->progress_arg = &l;
		l.t_run = clock_ns();
		r = proto_host_run(vm->conn, ld->run, load == LOAD_MEM ? v->load_opts : v->clock_opts, v->fp, 120000,
				   3600000, &d);
		vm->conn->on_progress = was;
		vm->conn->progress_arg = was_arg;
		if (l.lost) {
			r = errf(err, errlen, l.r, "vmops.migrate: %s", l.why);
		} else if (r < 0 && r != -EIO) {
			r = errf(err, errlen, r, "vmops.migrate, the guest's %s: %s", ld->run, vm->conn->err);
		} else {
			/* a failed case: why says it, the boot goes on */
			if (r < 0)
				errf(why, len, r, "the guest's %s: %s", ld->run, vm->conn->err);
			else if (!l.started)
				errf(why, len, -EINVAL, "the guest's %s ended before its first case was under way: give it "
				     "longer (%s)", ld->run, ld->longer);
			else if (l.r < 0)
				errf(why, len, l.r, "%s", l.why);
			r = r < 0 || !l.started || l.r < 0 ? 1 : 0;
		}
		ran = json_number_value(json_object_get(d, "duration_s"));
		/* the agent answers after its run in the destination too */
		if (r == 0 && l.started && (r = proto_host_token(vm->conn, VMOPS_TOKEN, VMOPS_AGENT_MS)) < 0)
			r = errf(err, errlen, r, "vmops.migrate: the guest's agent did not answer in the destination QEMU: %s",
				 vm->conn->err);
		f = l.f;
		if (r == 0)
			r = lab_load_metrics(c, d, ld->prefix) < 0 ? errf(err, errlen, -ENOMEM, "out of memory") : 0;
		snprintf(key, sizeof(key), "loaded_overlap_%s_%s", postcopy ? "postcopy" : "precopy", ld->name);
		/* the guest's run (its clock, which may lose up to the migration's
		 * length) against the migration's end (the host's, from the RUN) */
		spanned = ran + (f.total > 0 ? f.total : 0) >= l.window[1];
		if (r == 0 && !spanned &&
		    note(s, key, "the guest's %s ended about %.1f s before the migration did: give it longer (%s)%s",
			 ld->run, l.window[1] - ran, ld->longer,
			 load == LOAD_CLOCK ? "; no pause_s: its loop may not have spanned the switch" : "") < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory");
		if (r == 0 && load == LOAD_CLOCK && spanned &&
		    add(c, VMOPS_PAUSE, VMB_UNIT_S, false, clock_pause(d)) < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory");
		json_decref(d);
		if (r != 0)
			return r;
	}
	return add_fig(c, &f) < 0 ? errf(err, errlen, -ENOMEM, "out of memory") : 0;
}

/* The migrate test into t: a case for each mode and load asked, in that
 * order. The first failed case fails the test (the cases after it are not
 * run). */
static int migrate_test(struct lab_vmops *v, const struct vmops_opts *o, struct vmb_suite_result *s,
			struct vmb_test_result *t, char *err, size_t errlen)
{
	char why[600];

	t->cases = calloc(2 * NLOADS, sizeof(*t->cases));
	if (!t->cases)
		return errf(err, errlen, -ENOMEM, "out of memory");
	for (int k = 0; k < 2 * NLOADS; k++) {
		bool postcopy = k >= NLOADS;
		int load = k % NLOADS, r;

		if (!(postcopy ? o->post : o->pre) || !o->load[load])
			continue;
		why[0] = '\0';
		r = migrate_case(v, o, postcopy, load, s, &t->cases[t->ncases], why, sizeof(why), err, errlen);
		if (r == 0) {
			t->ncases++;
			continue;
		}
		/* a case without its figures is not stored */
		vmb_case_release(&t->cases[t->ncases]);
		if (r == 1) {
			/* Ctrl-C cut it short (its wait says "interrupted"): no failure */
			t->status = vmb_stop_requested() ? VMB_INTERRUPTED : VMB_FAILED;
			t->reason = xasprintf("%s, %s%s: %s", postcopy ? "post-copy" : "pre-copy", loads[load].run ? "under " : "",
					       loads[load].run ? loads[load].run : "idle", why);
			return t->reason ? 0 : errf(err, errlen, -ENOMEM, "out of memory");
		}
		if (r < 0)
			return r;
	}
	return 0;
}

int lab_vmops_measure(struct lab_vmops *v, json_t **suite, char *err, size_t errlen)
{
	struct vmb_results res;
	struct vmb_suite_result *s;
	struct vmops_opts o;
	char why[600];
	int r = lab_host_suite_begin(&res, &vmops_suite, 4, &s);

	if (r < 0)
		return errf(err, errlen, r, "out of memory");
	if (read_opts(v->run_opts, &o, why, sizeof(why)) < 0) {
		vmb_results_release(&res);
		return errf(err, errlen, -EINVAL, "%s", why);
	}
	r = o.bandwidth ? note(s, "bandwidth_limit", "%llu B/s (--vmops.bandwidth)", (unsigned long long)o.bandwidth)
			: note(s, "bandwidth_limit", "none (QMP max-bandwidth 1 TiB/s)");
	for (size_t i = 0; r == 0 && i < 4; i++) {
		struct vmb_test_result *t = &s->tests[s->ntests];
		const bool asked[4] = { v->migrate, v->saverestore, v->snapshot, v->savevm };
		/* the back end's hook each test needs */
		static const char *const hooks[4] = { "migrate", "save_restore", "snapshot", "savevm" };

		if (!asked[i])
			continue;
		s->ntests++;
		t->name = xstrdup(vmops_suite.tests[i].name);
		if (!t->name) {
			r = -ENOMEM;
		} else if (vmb_stop_requested()) {
			/* after Ctrl-C what is left is not begun (the lab stores what
			 * the boot measured, as interrupted, not failed) */
			t->status = VMB_INTERRUPTED;
			t->reason = xstrdup("interrupted");
			r = t->reason ? 0 : -ENOMEM;
		} else if (i < 2 && v->no_move) {
			/* migrate and saverestore move the guest to another QEMU */
			t->status = VMB_SKIPPED;
			t->reason = xstrdup(v->no_move);
			r = t->reason ? 0 : -ENOMEM;
		} else if (cannot(v->vm, hooks[i]) || (i == 2 && cannot(v->vm, "commit"))) {
			/* the back end has no such operation: a skip with its reason */
			t->status = VMB_SKIPPED;
			t->reason = xstrdup(cannot(v->vm, hooks[i]) ?: cannot(v->vm, "commit"));
			r = t->reason ? 0 : -ENOMEM;
		} else if (!i) {
			r = migrate_test(v, &o, s, t, err, errlen);
			if (r < 0) {
				vmb_results_release(&res);
				return r;
			}
		} else if (i >= 2) {
			t->cases = calloc(1, sizeof(*t->cases));
			if (!t->cases) {
				r = -ENOMEM;
				break;
			}
			why[0] = '\0';
			r = i == 2 ? snapshot(v, &o, t->cases, why, sizeof(why), err, errlen)
				   : savevm(v, t->cases, why, sizeof(why), err, errlen);
			if (r < 0) {
				vmb_case_release(t->cases);
				vmb_results_release(&res);
				return r;
			}
			if (r == 1 || r == 2) {
				vmb_case_release(t->cases);
				t->status = r == 2 ? VMB_SKIPPED : vmb_stop_requested() ? VMB_INTERRUPTED : VMB_FAILED;
				t->reason = r == 2 ? xasprintf("QEMU cannot save this VM inside its disks (%s): give --disk-format "
							       "qcow2, and no firmware=uefi (its raw variable store)", why)
						   : xstrdup(why);
				r = t->reason ? 0 : -ENOMEM;
			} else {
				t->ncases = 1;
			}
		} else {
			struct fig f;
			bool lost = false;

			t->cases = calloc(1, sizeof(*t->cases));
			if (!t->cases) {
				r = -ENOMEM;
				break;
			}
			r = saverestore(v->vm, &o, &f, &lost, why, sizeof(why));
			if (r < 0 && lost) {
				vmb_results_release(&res);
				return errf(err, errlen, r, "vmops.saverestore: %s", why);
			}
			if (r < 0) {
				t->status = vmb_stop_requested() ? VMB_INTERRUPTED : VMB_FAILED;
				t->reason = xstrdup(why);
				r = t->reason ? 0 : -ENOMEM;
			} else {
				char bw[32];

				snprintf(bw, sizeof(bw), "%llu", (unsigned long long)o.bandwidth);
				t->ncases = 1;
				r = vmb_params_add(&t->cases->params, &t->cases->nparams, "bandwidth", bw);
				if (r == 0)
					r = add_fig(t->cases, &f);
			}
		}
	}
	if (r < 0) {
		vmb_results_release(&res);
		return errf(err, errlen, r, "out of memory measuring vmops");
	}
	*suite = lab_host_suite_end(&res);
	return *suite ? 0 : errf(err, errlen, -ENOMEM, "out of memory measuring vmops");
}
