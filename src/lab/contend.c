/* lab contend: several guests at once under a host scheduling policy (see
 * contend.h). How a policy is carried out and what the host sees of the
 * guests is a tuner row's (contend_tune.c): a cgroup per QEMU driven here,
 * or the hypervisor's own calls through --connect; every guest stops on
 * every exit path (lab_guest_stop; QEMU dies with this process, a libvirt
 * domain with its connection). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contend_int.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/result.h"
#include "../core/stop.h"
#include "../core/stoppoint.h"
#include "../core/str.h"
#include "../core/util.h"
#include "../store/doc.h"
#include "../suites/sched.h"
#include "../core/banned.h"

struct contend_cell {
	enum contend_policy p;
	unsigned load;
};

/* A guest booted, checked, and when a net item is asked its network path
 * started (the guest's serve), each guest's in a thread of its own. */
static void *boot_thread(void *arg)
{
	struct guest *g = arg;
	int r;

	g->r = lab_guest_ready(g->g, &g->f, g->err, sizeof(g->err));
	if (g->r < 0 || !g->want_net)
		return NULL;
	r = lab_guest_net_start(g->g, g->net_why, sizeof(g->net_why));
	if (r == -EOPNOTSUPP)
		return NULL;
	if (r < 0) {
		/* the failure's message, before net_why (only a skip's) is emptied */
		snprintf(g->f.step, sizeof(g->f.step), "start its network path");
		g->r = errf(g->err, sizeof(g->err), r, "%s", g->net_why);
	}
	g->net_why[0] = '\0';
	return NULL;
}

/* What a net item's guest was loaded with, in each suite's notes of its
 * document as `run --load` writes them: the load asked and what the
 * agent's spinners got (left out when not known). */
static int load_notes(json_t *doc, unsigned asked, double got)
{
	int r = doc_note_all(doc, "load_asked_pct", json_integer(asked));

	if (r == 0 && isfinite(got))
		r = doc_note_all(doc, "load_done_pct", json_real(round(got * 10) / 10));
	return r;
}

/* A net item's run: the guest's background load started (LOAD), the
 * host's client run against the guest's serve, then the window sampled
 * and the load stopped (LOAD 0), whatever the run did; its document says
 * what the load was asked and got. */
static int net_run(struct guest *g, void (*ended)(struct guest *))
{
	unsigned asked;
	double got;
	char e2[512];
	int r = lab_guest_load(g->g, g->load, &asked, &got, g->err, sizeof(g->err)), r2;

	if (r == 0)
		r = lab_guest_run(g->g, g->item, g->opts, &g->doc, g->err, sizeof(g->err));
	ended(g);
	r2 = lab_guest_load(g->g, 0, &asked, &got, e2, sizeof(e2));
	if (r == 0 && r2 < 0)
		r = errf(g->err, sizeof(g->err), r2, "%s", e2);
	if (r == 0 && asked != g->load)
		r = errf(g->err, sizeof(g->err), -EPROTO, "the guest's agent stopped a load of %u%%, and %u%% was "
			 "asked", asked, g->load);
	if (r == 0 && load_notes(g->doc, asked, got) < 0)
		r = errf(g->err, sizeof(g->err), -ENOMEM, "out of memory");
	if (r < 0) {
		json_decref(g->doc);
		g->doc = NULL;
	}
	return r;
}

/* The first RUN to end ends the window: every guest's vCPU threads sampled. */
static void window_end(struct guest *g)
{
	struct window *w = g->w;

	(void)pthread_mutex_lock(&w->lock);
	if (!w->ended) {
		w->ended = true;
		for (unsigned i = 0; i < w->n; i++)
			w->ok = w->ok && w->x->tune->sample(w->x, &w->gs[i], &w->b[i]) == 0;
		w->t1 = clock_s();
	}
	(void)pthread_mutex_unlock(&w->lock);
}

/* One guest's RUN: started with the others (the barrier), its vCPU
 * threads sampled at its ends. */
static void *run_thread(void *arg)
{
	struct guest *g = arg;
	struct window *w = g->w;
	int go;

	(void)pthread_mutex_lock(&w->lock);
	while (!w->go)
		(void)pthread_cond_wait(&w->go_cond, &w->lock);
	go = w->go;
	(void)pthread_mutex_unlock(&w->lock);
	if (go < 0) {
		g->r = -ECANCELED;
		return NULL;
	}
	if (g->net) {
		g->r = net_run(g, window_end);
		return NULL;
	}
	g->r = lab_guest_run(g->g, g->item, g->opts, &g->doc, g->err, sizeof(g->err));
	window_end(g);
	return NULL;
}

/* What the host saw of guest g over the RUN of item, kept for the cell's
 * host-measured suites (their rows' step LAB_HOST_CONTEND). */
static int seen_add(struct guest *g, const char *item, const struct contend_figures *f, double promised, double jain)
{
	struct lab_host_contended *e = realloc(g->seen, (g->nseen + 1) * sizeof(*e));

	if (!e)
		return -ENOMEM;
	g->seen = e;
	e = &e[g->nseen++];
	*e = (struct lab_host_contended){ .share_pct = f->share_pct, .promised_pct = promised, .delay_pct = f->delay_pct,
					  .delay_ns_per_slice = f->delay_ns_per_slice, .jain = jain };
	snprintf(e->item, sizeof(e->item), "%s", item);
	return 0;
}

static int set_labels(json_t *doc, enum contend_policy p, unsigned guest, unsigned load)
{
	json_t *labels = json_object_get(doc, "labels");
	char v[16];

	if (!json_is_object(labels)) {
		labels = json_object();
		if (!labels || json_object_set_new(doc, "labels", labels) < 0)
			return -ENOMEM;
	}
	snprintf(v, sizeof(v), "%u", guest);
	if (json_object_set_new(labels, "policy", json_string(contend_policy_names[p])) < 0 ||
	    json_object_set_new(labels, "guest", json_string(v)) < 0)
		return -ENOMEM;
	snprintf(v, sizeof(v), "%u", load);
	return json_object_set_new(labels, "load", json_string(v)) < 0 ? -ENOMEM : 0;
}

/* The facts of a cell that a guest's host-measured suites note. */
struct cell_notes {
	const char *notes[8][2];
	size_t n;
	char given[16], guests[16], rt[64], rt_us[16];
};

static void cell_notes(const struct contend *x, enum contend_policy p, unsigned i, struct cell_notes *cn)
{
	const struct contend_opts *o = x->o;

#define NOTE(name, value) (cn->notes[cn->n][0] = (name), cn->notes[cn->n][1] = (value), cn->n++)
	cn->n = 0;
	NOTE("policy", x->tune->note(p));
	NOTE("host_cpus", o->host_cpus ? o->host_cpus : "all");
	snprintf(cn->given, sizeof(cn->given), "%u", o->spec.ncpus);
	NOTE("host_cpus_given", cn->given);
	snprintf(cn->guests, sizeof(cn->guests), "%u", o->spec.nguests);
	NOTE("guests", cn->guests);
	if (p == CONTEND_RT) {
		if (o->rt_all)
			snprintf(cn->rt, sizeof(cn->rt), "SCHED_FIFO: vCPU threads %u, QEMU's other threads %u", o->rt_priority,
				 o->rt_priority < 99 ? o->rt_priority + 1 : 99);
		else
			snprintf(cn->rt, sizeof(cn->rt), "SCHED_FIFO %u: vCPU threads only", o->rt_priority);
		NOTE("rt", i == 0 ? cn->rt : "SCHED_OTHER");
	}
	if (x->l.ver)
		NOTE("cgroup", x->l.ver == CG_V1 ? "v1" : "v2");
	if (x->tune == &contend_tune_hv)
		NOTE("tuned_by", lab_hv_default()->name);
	/* the host's figures: a CPU time only in the kernel's ticks is coarse */
	if (x->ticks)
		NOTE("cpu_time", "the vCPU threads' utime + stime, in the kernel's ticks (the hypervisor gave no finer)");
	snprintf(cn->rt_us, sizeof(cn->rt_us), "%u", x->rt_us);
	if (p == CONTEND_RT && i == 0 && x->rt_us)
		NOTE("rt_runtime_us", cn->rt_us);
#undef NOTE
}

/* A --suites item measured over a network path (net.udp_rr): from the
 * host to the guest, beside the guest's LOAD. */
static bool net_item(const char *item)
{
	const struct vmb_suite *s = lab_item_suite(item);

	return s && (s->flags & VMB_SUITE_NET_PEER);
}

/* One cell (policy p, load) of round k: the policy applied, each item run
 * on every guest at once, the documents kept. */
static int cell(struct contend *x, enum contend_policy p, unsigned load, unsigned k, const json_t *order, char *err,
		size_t errlen)
{
	const struct contend_opts *o = x->o;
	unsigned n = o->spec.nguests;
	double promised[CONTEND_MAX_GUESTS];
	bool rt = false;
	int r;

	log_info("round %u: %s, load %u%%", k, contend_policy_names[p], load);
	r = x->tune->knobs(x, p, err, errlen);
	if (r == 0 && p == CONTEND_RT) {
		r = x->tune->rt(x, o->rt_priority);
		rt = true;
		if (r < 0) {
			contend_skip(x, CONTEND_RT, "guest 1's threads could not be made SCHED_FIFO: %s%s", strerror(-r),
				    r == -EPERM ? " (it needs root or CAP_SYS_NICE, and with RT group scheduling a "
						  "granted runtime)" : "");
			log_info("%s: skipped: %s", contend_policy_names[p], x->why[p]);
			(void)x->tune->rt(x, 0);
			return 0;
		}
	}
	if (r < 0) {
		contend_skip(x, p, "%s", err);
		log_info("%s: skipped: %s", contend_policy_names[p], err);
		return 0;
	}
	/* tests interrupt or kill -9 the run here: the groups made, the knobs
	 * and any real-time priority set, the guests idle */
	vmb_test_stop_point("contend-cell");
	(void)contend_expected(p, &o->spec, promised);
	for (unsigned i = 0; i < n; i++) {
		x->gs[i].cell = NULL;
		x->gs[i].nseen = 0;
	}
	/* Ctrl-C: after the RUN under way (a second one kills every QEMU at once) */
	for (const char *it = o->ro->suites; r == 0 && it && *it && !vmb_stop_requested();
	     it += strcspn(it, ","), it += *it == ',') {
		char item[64];
		pthread_t th[CONTEND_MAX_GUESTS];
		struct contend_figures f[CONTEND_MAX_GUESTS];
		double got[CONTEND_MAX_GUESTS], jain;
		struct window w = { .lock = PTHREAD_MUTEX_INITIALIZER, .go_cond = PTHREAD_COND_INITIALIZER, .x = x, .gs = x->gs,
				    .n = n, .ok = true };
		unsigned started = 0;
		bool measured = true, net;

		snprintf(item, sizeof(item), "%.*s", (int)strcspn(it, ","), it);
		if (lab_host_measured(item))
			continue;
		net = net_item(item);
		if (net && *x->net_why)
			continue; /* skipped, as was said after the boot */
		for (unsigned i = 0; i < n && r == 0; i++) {
			struct guest *g = &x->gs[i];

			g->item = item;
			g->net = net;
			g->load = load;
			g->doc = NULL;
			g->w = &w;
			g->opts = lab_guest_opts(g->g, o->ro, item);
			/* a net item's load is the guest's LOAD, not its client's (the host's) */
			if (!g->opts || (!net && json_object_set_new(g->opts, "load", json_integer(load)) < 0))
				r = errf(err, errlen, -ENOMEM, "out of memory");
		}
		/* the wall clock read before the first counter and after the last
		 * (run_thread): the window holds every CPU second counted in it */
		w.t0 = clock_s();
		for (unsigned i = 0; i < n && r == 0; i++)
			w.ok = w.ok && x->tune->sample(x, &x->gs[i], &w.a[i]) == 0;
		/* every thread waits for go: the RUNs leave together, or none does */
		for (; started < n && r == 0; started++)
			if (pthread_create(&th[started], NULL, run_thread, &x->gs[started]) != 0)
				r = errf(err, errlen, -EAGAIN, "starting a thread per guest");
		(void)pthread_mutex_lock(&w.lock);
		w.go = r == 0 ? 1 : -1;
		(void)pthread_cond_broadcast(&w.go_cond);
		(void)pthread_mutex_unlock(&w.lock);
		for (unsigned i = 0; i < started; i++)
			(void)pthread_join(th[i], NULL);
		for (unsigned i = 0; i < n; i++) {
			struct guest *g = &x->gs[i];

			json_decref(g->opts);
			g->opts = NULL;
			if (r == 0 && g->r < 0)
				r = errf(err, errlen, g->r, "guest %u: %s", i + 1, g->err);
			if (r == 0 && (!w.ok || contend_figures(&w.a[i], &w.b[i], w.t1 - w.t0, o->spec.ncpus, &f[i]) < 0))
				measured = false;
			got[i] = r == 0 && measured ? f[i].share_pct : NAN;
		}
		jain = measured ? sched_jain(got, promised, n) : NAN;
		for (unsigned i = 0; i < n && r == 0; i++) {
			struct guest *g = &x->gs[i];
			struct contend_figures none = { NAN, NAN, NAN };

			if (!measured)
				log_warn("guest %u: %s: no host figures (a vCPU thread's schedstat could not be read, or a "
					 "guest's share of the window was over 100%%)", i + 1, item);
			if (seen_add(g, item, measured ? &f[i] : &none, promised[i], jain) < 0)
				r = errf(err, errlen, -ENOMEM, "out of memory");
			else if (!g->cell)
				g->cell = g->doc;
			else if (json_array_extend(json_object_get(g->cell, "suites"), json_object_get(g->doc, "suites")) < 0)
				r = errf(err, errlen, -ENOMEM, "out of memory");
			if (g->cell != g->doc)
				json_decref(g->doc);
			g->doc = NULL;
		}
		for (unsigned i = 0; i < n && r < 0; i++) {
			if (x->gs[i].cell != x->gs[i].doc)
				json_decref(x->gs[i].doc);
			x->gs[i].doc = NULL;
		}
	}
	if (rt)
		(void)x->tune->rt(x, 0);
	/* a cell cut short by Ctrl-C is not stored as if it were whole */
	if (r == 0 && vmb_stop_requested())
		r = errf(err, errlen, -EINTR, "interrupted");
	for (unsigned i = 0; i < n; i++) {
		struct guest *g = &x->gs[i];
		struct cell_notes cn;

		/* the host-measured suites of a cell (rows of step LAB_HOST_CONTEND), from what was seen */
		cell_notes(x, p, i, &cn);
		for (size_t h = 0; r == 0 && g->cell && h < lab_host_nrows; h++) {
			const struct lab_host_row *row = &lab_host_rows[h];
			struct lab_host_req rq = { .suite = row->suite, .c = o->c, .o = o->ro, .seen = g->seen, .nseen = g->nseen,
						   .notes = (const char *const (*)[2])cn.notes, .nnotes = cn.n };
			json_t *suite = NULL;
			char why[512];

			if (row->when != LAB_HOST_CONTEND)
				continue;
			r = row->measure(&rq, &suite, why, sizeof(why));
			if (r < 0)
				r = errf(err, errlen, r, "guest %u: %s", i + 1, why);
			else if (json_array_append_new(json_object_get(g->cell, "suites"), suite) < 0)
				r = errf(err, errlen, -ENOMEM, "out of memory");
		}
		if (r == 0 && g->cell) {
			if (set_labels(g->cell, p, i + 1, load) < 0 ||
			    json_object_set_new(g->cell, "run_group", json_pack("{s:s, s:I, s:I, s:I, s:O}", "id", "contend",
					"round", (json_int_t)k, "rounds", (json_int_t)o->rounds, "seed", (json_int_t)o->seed,
					"order", order)) < 0)
				r = errf(err, errlen, -ENOMEM, "out of memory");
			else
				o->keep(o->arg, json_incref(g->cell));
		} /* else every item was skipped: nothing to store */
		json_decref(g->cell);
		g->cell = NULL;
		g->nseen = 0;
	}
	return r;
}


int lab_contend(const struct contend_opts *o, char *err, size_t errlen)
{
	struct contend *x = calloc(1, sizeof(*x));
	unsigned n = o->spec.nguests, ncells = 0;
	struct contend_cell cells[CONTEND_NPOLICIES * CONTEND_MAX_LOADS];
	uint64_t rng = o->seed;
	pthread_t th[CONTEND_MAX_GUESTS];
	bool ran = false;
	int r = 0;

	if (!x)
		return errf(err, errlen, -ENOMEM, "out of memory");
	x->o = o;
	/* a back end that tunes its guests itself (libvirt), else lab contend's own cgroups */
	x->tune = lab_hv_default()->tune ? &contend_tune_hv : &contend_tune_cgroup;
	cg_tree_init(&x->tree);
	for (int p = 0; p < CONTEND_NPOLICIES; p++)
		for (unsigned l = 0; o->policy[p] && l < o->nloads; l++)
			cells[ncells].p = (enum contend_policy)p, cells[ncells++].load = o->loads[l];
	x->tune->prepare(x);
	vmb_test_stop_point("contend-groups"); /* tests kill the process here, its groups made */
	for (int p = 0; p < CONTEND_NPOLICIES; p++)
		if (o->policy[p] && x->why[p])
			log_info("%s: skipped: %s", contend_policy_names[p], x->why[p]);
	{
		/* nothing to measure: no guest is booted for it */
		int p = 0;

		while (p < CONTEND_NPOLICIES && (!o->policy[p] || x->why[p]))
			p++;
		if (p == CONTEND_NPOLICIES) {
			x->tune->undo(x);
			free(x);
			return errf(err, errlen, -EOPNOTSUPP, "no policy asked can run here (each was skipped, see why above)");
		}
	}
	/* boot every guest at once, each from a thread of its own; when a net
	 * item is asked, each guest's network path is started there too: the
	 * host's client in each QEMU's namespace against the guest's serve */
	for (const char *it = o->ro->suites; it && *it && !x->gs[0].want_net; it += strcspn(it, ","), it += *it == ',') {
		char item[64];

		snprintf(item, sizeof(item), "%.*s", (int)strcspn(it, ","), it);
		x->gs[0].want_net = net_item(item);
	}
	for (unsigned i = 0; i < n; i++) {
		x->gs[i].idx = i;
		x->gs[i].o = o;
		x->gs[i].r = -EAGAIN;
		x->gs[i].want_net = x->gs[0].want_net;
	}
	log_info("booting %u guests (%s)", n, o->c->v[LAB_ACCEL]);
	/* QEMU is started here, by the thread that lives as long as it does */
	for (unsigned i = 0; i < n && r == 0; i++)
		r = lab_guest_spawn(o->c, o->ro, &x->gs[i].g, err, errlen);
	for (unsigned i = 0; i < n; i++)
		if (r < 0 || !x->gs[i].g)
			th[i] = 0;
		else if (pthread_create(&th[i], NULL, boot_thread, &x->gs[i]) != 0)
			th[i] = 0, x->gs[i].r = errf(x->gs[i].err, sizeof(x->gs[i].err), -EAGAIN, "no thread to boot it");
	for (unsigned i = 0; i < n; i++)
		if (th[i])
			(void)pthread_join(th[i], NULL);
	for (unsigned i = 0; i < n; i++)
		if (x->gs[i].g && x->gs[i].r < 0 && x->gs[i].r != -EINTR && o->failed)
			o->failed(o->arg, i + 1, &x->gs[i].f, x->gs[i].err); /* before its files go */
	for (unsigned i = 0; i < n && r == 0; i++)
		if (x->gs[i].r < 0)
			r = errf(err, errlen, x->gs[i].r, "guest %u: %s failed: %s", i + 1, x->gs[i].f.step, x->gs[i].err);
	for (unsigned i = 0; i < n && r == 0; i++)
		r = x->tune->attach(x, &x->gs[i], err, errlen);
	/* a guest's NIC without a link skips the net items (every guest's is alike) */
	for (unsigned i = 0; i < n && r == 0 && !*x->net_why; i++)
		snprintf(x->net_why, sizeof(x->net_why), "%s", x->gs[i].net_why);
	if (r == 0 && *x->net_why) {
		bool other = false;

		for (const char *it = o->ro->suites; it && *it; it += strcspn(it, ","), it += *it == ',') {
			char item[64];

			snprintf(item, sizeof(item), "%.*s", (int)strcspn(it, ","), it);
			other = other || !net_item(item);
		}
		log_info("the net items: skipped: %s", x->net_why);
		if (!other)
			r = errf(err, errlen, -EOPNOTSUPP, "nothing to measure: the net items were skipped (%s)", x->net_why);
	}
	for (unsigned k = 1; r == 0 && k <= o->rounds && !vmb_stop_requested(); k++) {
		json_t *order = json_array();

		for (size_t i = ncells; i > 1; i--) {
			size_t j;

			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			j = (size_t)((rng >> 33) % i);
			{
				struct contend_cell t = cells[i - 1];

				cells[i - 1] = cells[j];
				cells[j] = t;
			}
		}
		for (size_t c = 0; order && c < ncells; c++) {
			char w[48];

			snprintf(w, sizeof(w), "policy=%s load=%u", contend_policy_names[cells[c].p], cells[c].load);
			if (json_array_append_new(order, json_string(w)) < 0) {
				json_decref(order);
				order = NULL;
			}
		}
		if (!order)
			r = errf(err, errlen, -ENOMEM, "out of memory");
		for (size_t c = 0; r == 0 && c < ncells && !vmb_stop_requested(); c++) {
			if (x->why[cells[c].p])
				continue;
			r = cell(x, cells[c].p, cells[c].load, k, order, err, errlen);
			ran = ran || (r == 0 && !x->why[cells[c].p]);
		}
		json_decref(order);
	}
	if (r == 0 && vmb_stop_requested())
		r = errf(err, errlen, -EINTR, "interrupted");
	if (r == 0 && !ran)
		r = errf(err, errlen, -EOPNOTSUPP, "no policy could run here (each was skipped, see why above)");
	for (unsigned i = 0; i < n; i++) {
		char e2[512];

		lab_failure_release(&x->gs[i].f);
		free(x->gs[i].seen);
		if (x->gs[i].g && lab_guest_stop(x->gs[i].g, r == 0, e2, sizeof(e2)) < 0 && r == 0)
			r = errf(err, errlen, -EIO, "guest %u: %s", i + 1, e2);
	}
	x->tune->undo(x);
	free(x);
	return r;
}

