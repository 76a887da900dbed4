/* One configuration's run (labrun.h): its boots, the first one's items
 * and host-measured suites, the boot suite from the boots, the evidence of
 * a failure; and the guests lab contend keeps booted. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "labboot.h"
#include "labcheck.h"
#include "labitems.h"
#include "hostmeasure.h"
#include "hv.h"
#include "../guest/fs.h"
#include "labrun.h"
#include "procs.h"
#include "workdir.h"
#include "../core/str.h"
#include "../suites/boot.h"
#include "../core/log.h"
#include "../core/tempfile.h"
#include "../core/banned.h"

/* Every process the lab started killed and reaped, every work directory
 * removed, and the pid file a share's virtiofsd left outside it. */
void lab_kill_all(void)
{
	lab_procs_kill_all();
	/* the link devices of a hypervisor that opens its tap by name (lablink.h) */
	lab_links_remove_all();
	lab_work_dirs_remove_all(lab_share_remove);
	/* boot=cdrom's ISO being made: its staging tree (src/lab/iso.c) */
	vmb_tempfiles_unlink_all();
}

/* The host's side of the scratch disk: backend (the LAB_BACKENDS row),
 * file (the image, or the host block device), format, cache, and overlay
 * (snapshot=on: the qcow2 file QEMU writes to, else null). NULL: no memory. */
static json_t *host_disk_record(const struct lab_config *c, const struct lab_boot *b)
{
	const struct lab_backend *be = lab_backend_of(&b->paths, LAB_DISK);
	const char *file = b->host_disk.file[0] ? b->host_disk.file : b->disk;
	const char *format = b->host_disk.format ? b->host_disk.format : be ? be->name : "raw";

	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "backend", be ? be->name : "?", "file", file, "format", format,
			 "cache", c->v[LAB_CACHE], "overlay", lab_config_snapshot(c) ? json_string(b->overlay) : json_null(),
			 "loop_direct_io", b->host_disk.direct_io < 0 ? json_null() : json_boolean(b->host_disk.direct_io));
}

/* The filesystem the configuration asks for, made by the guest on its
 * scratch disk (after HELLO: the boot phases do not include it); *fsrec
 * records it, or the raw device for fs=none. */
static int prepare_fs(const struct lab_config *c, struct lab_boot *b, const char *scratch, json_t **fsrec, char *err,
		      size_t errlen)
{
	const struct lab_fs *fs = lab_config_fs(c);
	const struct lab_share *share = c->share;
	char dev[64];
	int r;

	snprintf(dev, sizeof(dev), "/dev/%s", scratch ? scratch : "");
	if (share) {
		char hostdir[220];

		/* the guest mounts the share where the filesystem would be; the
		 * host says which of its directories that is */
		snprintf(hostdir, sizeof(hostdir), "%s/%s", b->dir, LAB_SHARE_DIR);
		r = proto_host_share(&b->conn, share->name, LAB_FS_PREPARE_MS, fsrec);
		if (r < 0)
			return errf(err, errlen, r, "%s", b->conn.err);
		r = json_object_set_new(*fsrec, "host_directory", json_string(hostdir)) < 0 ? -ENOMEM : 0;
		if (r == 0)
			r = json_object_set_new(*fsrec, "share", json_string(share->name)) < 0 ? -ENOMEM : 0;
	} else if (!fs) {
		*fsrec = json_pack("{s:s, s:s}", "type", "none", "device", dev);
		r = *fsrec ? 0 : -ENOMEM;
	} else {
		r = proto_host_prepare(&b->conn, fs->name, dev, LAB_FS_PREPARE_MS, fsrec);
		if (r < 0)
			return errf(err, errlen, r, "%s", b->conn.err);
	}
	/* the host's own figure: the scratch disk it made (with a filesystem,
	 * larger than --disk-size: lab_fs_disk_size) */
	if (r == 0 && json_object_set_new(*fsrec, "disk_size_bytes", json_integer((json_int_t)b->paths.disk_size)) < 0)
		r = -ENOMEM;
	/* and what QEMU opened for it: the back end, its file or device, the cache mode, an overlay */
	if (r == 0 && json_object_set_new(*fsrec, "host_disk", host_disk_record(c, b)) < 0)
		r = -ENOMEM;
	if (r < 0) {
		json_decref(*fsrec);
		*fsrec = NULL;
		return errf(err, errlen, r, "out of memory");
	}
	return 0;
}

/* The host-measured suites of the first boot's step (hostmeasure.c's
 * rows), in the table's order, each whose tests --suites asks: the guest's
 * QEMU lent to its measure function with the options of the items it runs
 * in the guest meanwhile; its result appended to doc's suites. The guest
 * may end in another QEMU (vmops): b is that one's afterwards. */
static int host_measure(const struct lab_config *c, const struct lab_run_opts *o, struct lab_boot *b, const char *scratch,
			json_t *doc, char *err, size_t errlen)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < lab_host_nrows; i++) {
		const struct lab_host_row *row = &lab_host_rows[i];
		const struct vmb_suite *s = row->suite;
		struct lab_vm vm = { .hv = b->hv, .c = c, .paths = &b->paths, .dir = b->dir, .pid = b->pid, .fd = b->fd,
				     .conn = &b->conn };
		json_t *loads[sizeof(s->host->loads) / sizeof(s->host->loads[0])] = { 0 }, *suite = NULL;
		struct lab_host_req rq = { .suite = s, .c = c, .o = o, .vm = &vm, .fp = b->fp, .loads = loads };
		/* a load on the scratch disk, on its filesystem where the guest made one */
		const struct lab_fs *fs = lab_items_ask(o->suites, lab_suite_on_scratch) ? lab_config_fs(c) : NULL;
		size_t n = 0;

		if (row->when != LAB_HOST_FIRST_BOOT || !lab_host_asked(s, o->suites, NULL))
			continue;
		snprintf(b->step, sizeof(b->step), "run %s", s->name);
		for (; s->host && n < sizeof(loads) / sizeof(loads[0]) && s->host->loads[n]; n++)
			if (!(loads[n] = lab_item_opts(o, lab_item_suite(s->host->loads[n]), scratch, &b->net, fs, false)))
				r = errf(err, errlen, -ENOMEM, "out of memory");
		snprintf(vm.ctl, sizeof(vm.ctl), "%s", b->ctl);
		snprintf(vm.agent, sizeof(vm.agent), "%s", b->agent);
		snprintf(vm.console, sizeof(vm.console), "%s", b->console);
		snprintf(vm.log, sizeof(vm.log), "%s", b->qemu_log);
		if (r == 0)
			r = row->measure(&rq, &suite, err, errlen);
		for (size_t k = 0; k < n; k++)
			json_decref(loads[k]);
		/* whatever happened, the QEMU that runs the guest (or is left) is the boot's */
		b->pid = vm.pid;
		b->fd = vm.fd;
		snprintf(b->ctl, sizeof(b->ctl), "%s", vm.ctl);
		snprintf(b->agent, sizeof(b->agent), "%s", vm.agent);
		snprintf(b->console, sizeof(b->console), "%s", vm.console);
		snprintf(b->qemu_log, sizeof(b->qemu_log), "%s", vm.log);
		if (r == 0 && json_array_append_new(json_object_get(doc, "suites"), suite) < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory");
	}
	return r;
}

/* Which hypervisor back end ran the guest, on which host, through which
 * --connect: the labels hv_backend, hv_host and hv_uri of its document */
static int hv_labels(const struct lab_boot *b, json_t *doc)
{
	json_t *labels = json_object_get(doc, "labels");
	const char *host = lab_hv_libvirt_host();
	char here[256] = "";

	if (!host) {
		(void)gethostname(here, sizeof(here) - 1);
		host = *here ? here : "unknown";
	}
	if (!json_is_object(labels) && (labels = json_object()) && json_object_set_new(doc, "labels", labels) < 0)
		labels = NULL;
	if (!labels || json_object_set_new(labels, "hv_backend", json_string(b->hv->name)) < 0 ||
	    json_object_set_new(labels, "hv_host", json_string(host)) < 0 ||
	    (lab_hv_uri() && json_object_set_new(labels, "hv_uri", json_string(lab_hv_uri())) < 0))
		return -ENOMEM;
	return 0;
}

/* The first boot: pinned when asked, checked, the filesystem made, the
 * suites run in it, then the warm boots in this same QEMU. */
static int first_boot(const struct lab_config *c, const struct lab_run_opts *o, struct lab_boot *b, json_t **doc,
		      struct lab_boot_series series[BOOT_NTESTS], char *err, size_t errlen)
{
	const char *scratch = NULL;
	json_t *fsrec = NULL;
	int r = 0;

	snprintf(b->step, sizeof(b->step), "find the vCPU threads");
	r = lab_boot_vcpus(b, c->pin, err, errlen);
	if (r == 0 && c->pin)
		vmb_test_stop_point("lab-pinned");
	snprintf(b->step, sizeof(b->step), "check the guest");
	if (r == 0)
		r = lab_check_guest(c, b->fp, &b->paths, &scratch, err, errlen);
	/* a link, and a suite to measure over it: its other end */
	b->net.qemu = lab_boot_netns(b);
	b->net.be = lab_backend_of(&b->paths, LAB_NIC);
	if (r == 0 && lab_net_linked(c, &b->paths) && lab_items_ask(o->suites, lab_suite_net_peer)) {
		r = lab_net_start(&b->net, &b->conn, c, err, errlen);
		if (r == 0)
			vmb_test_stop_point("lab-net-up");
	}
	/* the filesystem, made only for the suites that measure the disk under test */
	snprintf(b->step, sizeof(b->step), "make the filesystem");
	if (r == 0 && lab_items_ask(o->suites, lab_suite_on_scratch))
		r = prepare_fs(c, b, scratch, &fsrec, err, errlen);
	if (r == 0)
		r = lab_items_run(o, b, scratch, lab_config_fs(c), doc, err, errlen);
	if (r == 0)
		r = host_measure(c, o, b, scratch, *doc, err, errlen);
	/* the document says what its file tests ran on */
	if (r == 0 && fsrec && json_object_set_new(*doc, "filesystem", fsrec) < 0)
		r = errf(err, errlen, -ENOMEM, "out of memory");
	else if (r < 0)
		json_decref(fsrec);
	if (r == 0 && hv_labels(b, *doc) < 0)
		r = errf(err, errlen, -ENOMEM, "out of memory");
	if (r == 0 && lab_config_device(c, LAB_NIC) && b->net.be) {
		/* which back end carried the traffic */
		json_t *labels = json_object_get(*doc, "labels");

		if (!json_is_object(labels) && (labels = json_object()) && json_object_set_new(*doc, "labels", labels) < 0)
			labels = NULL;
		if (!labels || json_object_set_new(labels, "net_backend", json_string(b->net.be->name)) < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory");
	}
	/* the boots a host-measured suite's tests ask of this same QEMU, after
	 * the suites of the first boot (its row's boots), as many as --boots */
	for (size_t i = 0; r == 0 && i < lab_host_nrows; i++)
		for (const struct lab_host_boot *hb = lab_host_rows[i].boots; r == 0 && hb && hb->test; hb++)
			for (unsigned w = 0; r == 0 && lab_host_asked(lab_host_rows[i].suite, o->suites, hb->test) &&
					     w < (o->boots ? o->boots : 1) && !vmb_stop_requested();
			     w++) {
				struct lab_boot_series *se = &series[hb->series];

				snprintf(b->step, sizeof(b->step), "%s %u", hb->kind == LAB_BOOT_WARM ? "warm boot" : "reboot",
					 w + 1);
				r = hb->kind == LAB_BOOT_WARM ? lab_boot_warm(b, o, err, errlen)
							      : lab_boot_reboot(b, o, &se->shutdown[se->n], err, errlen);
				if (r == 0)
					lab_boot_phases(b, se->ph[se->n++]);
			}
	return r;
}

void lab_failure_release(struct lab_failure *f)
{
	free(f->console);
	free(f->qemu_log);
	memset(f, 0, sizeof(*f));
}

/* The evidence of a failed boot into f: its console and QEMU's output. */
static void boot_evidence(const struct lab_boot *b, struct lab_failure *f)
{
	snprintf(f->step, sizeof(f->step), "%s", b->step);
	f->final = b->final;
	if (!b->dir_made)
		return;
	if (read_file(b->console, &f->console) < 0)
		f->console = NULL;
	if (read_file(b->qemu_log, &f->qemu_log) < 0)
		f->qemu_log = NULL;
	{
		/* a share's virtiofsd wrote its own: kept after QEMU's */
		char p[200], *text = NULL, *both;

		snprintf(p, sizeof(p), "%s/%s", b->dir, LAB_SHARE_LOG);
		if (read_file(p, &text) == 0 && *text &&
		    asprintf(&both, "%s\n--- %s's output (%s) ---\n%s", f->qemu_log ? f->qemu_log : "", LAB_VIRTIOFSD, p,
			     text) >= 0) {
			free(f->qemu_log);
			f->qemu_log = both;
		}
		free(text);
	}
}

/* How long boot.start waits for the guest's answer on its link: its
 * network is configured before HELLO, so a guest that has not answered in
 * 5 s (25 echoes, under TCG too) is one whose NIC did not come up. */
#define LAB_START_PING_MS 5000

/* boot.start's check of a boot that said HELLO: the devices the
 * configuration asks for (lab_check_guest: the NIC's driver bound, its
 * link up with the guest's address), and, on a link to the host, the
 * guest answering an ICMP echo there. 0, or why in err. */
static int start_check(const struct lab_config *c, struct lab_boot *b, char *err, size_t errlen)
{
	const struct lab_backend *be = lab_backend_of(&b->paths, LAB_NIC);
	const char *scratch = NULL;
	int r;

	snprintf(b->step, sizeof(b->step), "check the guest's start");
	vmb_test_stop_point("lab-start-check"); /* tests stop a guest's link here */
	r = lab_check_guest(c, b->fp, &b->paths, &scratch, err, errlen);
	if (r == 0 && lab_net_linked(c, &b->paths))
		r = lab_net_ping(lab_boot_netns(b), be->guest_addr, LAB_START_PING_MS, err, errlen);
	return r;
}

/* A boot that did not start, counted for boot.start: why, in its note. */
static int start_failed(struct lab_boot_series *se, unsigned boot, const char *why)
{
	char *more = NULL;

	if (asprintf(&more, "%s%sboot %u: %s", se->failures ? se->failures : "", se->failures ? "; " : "", boot, why) < 0)
		return -ENOMEM;
	free(se->failures);
	se->failures = more;
	return 0;
}

int lab_run_config(const struct lab_config *c, const struct lab_run_opts *o, json_t **out, struct lab_failure *f,
		   char *err, size_t errlen)
{
	unsigned boots = o->boots ? o->boots : 1;
	struct lab_boot_series series[BOOT_NTESTS] = { 0 };
	struct lab_boot_series *st = &series[BOOT_START];
	/* boot.start: a boot that does not start is counted and the next one
	 * tried; the first that starts runs the items */
	bool count = lab_host_asked(&boot_suite, o->suites, BOOT_TEST_START);
	json_t *doc = NULL;
	int r = 0;

	memset(f, 0, sizeof(*f));
	for (size_t t = 0; t < BOOT_NTESTS; t++)
		if (!(series[t].ph = calloc(boots, sizeof(*series[t].ph))) ||
		    !(series[t].shutdown = calloc(boots, sizeof(double))))
			r = -ENOMEM;
	for (unsigned i = 0; i < boots && r == 0; i++) {
		struct lab_boot b;
		bool started;

		r = lab_boot_once(c, o, &b, err, errlen);
		if (r == 0) {
			vmb_test_stop_point("lab-booted");
			if (vmb_stop_requested())
				r = errf(err, errlen, -EINTR, "interrupted");
		}
		if (count && r != -EINTR && !vmb_stop_requested()) {
			st->attempted++;
			if (r == 0)
				r = start_check(c, &b, err, errlen);
			started = r == 0;
			st->n += started;
			if (!started) {
				log_info("boot %u of %u did not start: %s", i + 1, boots, err);
				lab_boot_kill(&b);
				lab_boot_gone(&b);
				r = start_failed(st, i + 1, err) < 0 ? errf(err, errlen, -ENOMEM, "out of memory") : 0;
				continue;
			}
		}
		if (r == 0) {
			lab_boot_phases(&b, series[BOOT_COLD].ph[series[BOOT_COLD].n++]);
			if (!doc)
				r = first_boot(c, o, &b, &doc, series, err, errlen);
		}
		/* a guest that failed is not asked to shut down: it may hang */
		if (r == 0)
			r = lab_boot_shut_down(&b, err, errlen);
		else
			lab_boot_kill(&b);
		if (r < 0)
			boot_evidence(&b, f);
		lab_boot_gone(&b);
	}
	/* no boot started: nothing measured the items, and the try fails
	 * (its boots' reasons in the message) */
	if (r == 0 && count && !doc) {
		snprintf(f->step, sizeof(f->step), "start");
		r = errf(err, errlen, -EIO, "none of the %u boots started: %s", st->attempted,
			 st->failures ? st->failures : "interrupted");
	}
	/* the suites measured from the boots (boot) */
	for (size_t k = 0; r == 0 && k < lab_host_nrows; k++) {
		const struct lab_host_row *row = &lab_host_rows[k];
		struct lab_host_req rq = { .suite = row->suite, .c = c, .o = o, .series = series };
		json_t *bs = NULL;

		if (row->when != LAB_HOST_BOOTS || !lab_host_asked(row->suite, o->suites, NULL))
			continue;
		rq.phase = lab_boot_phase_list(c, &rq.nphase);
		r = row->measure(&rq, &bs, err, errlen);
		if (r == 0 && json_array_append_new(json_object_get(doc, "suites"), bs) < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory storing the boot phases");
	}
	for (size_t t = 0; t < BOOT_NTESTS; t++) {
		free(series[t].ph);
		free(series[t].shutdown);
		free(series[t].failures);
	}
	lab_progress_draw(o, "%s", ""); /* also after a failure: its message comes next */
	if (r < 0) {
		json_decref(doc);
		return r;
	}
	*out = doc;
	return 0;
}

/* A guest kept booted for lab contend: the boot, checked. */
struct lab_guest {
	struct lab_boot b;
	const struct lab_run_opts *o;
	const struct lab_config *c;
	uint64_t t0;        /* QEMU started */
	const char *scratch;
	int *vcpus; /* the vCPU threads, as QMP named them */
	size_t nvcpus;
};

/* The guest's vCPU threads over one connection of the back end's (QEMU's
 * QMP socket takes one client at a time: a second connection right after
 * the first may be refused). */
static int guest_vcpus(struct lab_guest *g, char *err, size_t errlen)
{
	const struct lab_hv_ops *hv = g->b.hv;
	struct lab_hv_mon *m = NULL;
	char why[512] = "";
	int r;

	/* a back end that reads its vCPUs' statistics itself names no thread */
	if (!hv->vcpu_threads && hv->vcpu_stat)
		return 0;
	r = hv->vcpu_threads ? hv->open(g->b.ctl, 10000, &m, why, sizeof(why))
			     : errf(why, sizeof(why), -EOPNOTSUPP, "%s", lab_hv_why_not(hv, "vcpu_threads"));
	if (r == 0)
		r = hv->vcpu_threads(m, &g->vcpus, &g->nvcpus, why, sizeof(why));
	if (r < 0)
		errf(err, errlen, r, "its vCPU threads (QMP query-cpus-fast): %s", why[0] ? why : strerror(-r));
	for (size_t i = 0; r == 0 && i < g->nvcpus; i++) {
		size_t j = 0;

		while (j < i && g->vcpus[j] != g->vcpus[i])
			j++;
		g->b.vcpu_threads += j == i;
	}
	if (m && hv->close)
		hv->close(m);
	return r;
}

size_t lab_guest_vcpus(const struct lab_guest *g, const int **tids)
{
	*tids = g->vcpus;
	return g->nvcpus;
}

int lab_guest_spawn(const struct lab_config *c, const struct lab_run_opts *o, struct lab_guest **out, char *err,
		    size_t errlen)
{
	struct lab_guest *g = calloc(1, sizeof(*g));
	int r;

	if (!g)
		return errf(err, errlen, -ENOMEM, "out of memory");
	g->o = o;
	g->c = c;
	r = lab_boot_spawn(c, o, &g->b, &g->t0, err, errlen);
	if (r < 0) {
		lab_boot_kill(&g->b);
		lab_boot_gone(&g->b);
		free(g);
		return r;
	}
	*out = g;
	return 0;
}

int lab_guest_ready(struct lab_guest *g, struct lab_failure *f, char *err, size_t errlen)
{
	int r;

	memset(f, 0, sizeof(*f));
	r = lab_boot_await(g->o, &g->b, g->t0, err, errlen);
	if (r == 0 && vmb_stop_requested())
		r = errf(err, errlen, -EINTR, "interrupted");
	if (r == 0) {
		snprintf(g->b.step, sizeof(g->b.step), "find the vCPU threads");
		r = guest_vcpus(g, err, errlen);
	}
	if (r == 0) {
		snprintf(g->b.step, sizeof(g->b.step), "check the guest");
		r = lab_check_guest(g->c, g->b.fp, &g->b.paths, &g->scratch, err, errlen);
	}
	if (r < 0)
		boot_evidence(&g->b, f);
	return r;
}

pid_t lab_guest_pid(const struct lab_guest *g)
{
	return g->b.pid;
}

const char *lab_guest_ctl(const struct lab_guest *g)
{
	return g->b.ctl;
}

json_t *lab_guest_opts(const struct lab_guest *g, const struct lab_run_opts *o, const char *item)
{
	json_t *opts = lab_item_opts(o, lab_item_suite(item), g->scratch, &g->b.net, NULL, false);

	if (opts && lab_db_item_opts(g->c, lab_item_suite(item), opts) < 0) {
		json_decref(opts);
		return NULL;
	}
	return opts;
}

int lab_guest_net_start(struct lab_guest *g, char *err, size_t errlen)
{
	int r;

	g->b.net.qemu = lab_boot_netns(&g->b);
	g->b.net.be = lab_backend_of(&g->b.paths, LAB_NIC);
	if (!lab_net_linked(g->c, &g->b.paths))
		return errf(err, errlen, -EOPNOTSUPP, "the guest's NIC has no link to the host (%s)",
			    !lab_config_device(g->c, LAB_NIC) ? "nic=none"
			    : g->b.net.be ? "its back end has no addresses: a tap needs CAP_NET_ADMIN" : "no back end");
	snprintf(g->b.step, sizeof(g->b.step), "start the network path");
	r = lab_net_start(&g->b.net, &g->b.conn, g->c, err, errlen);
	if (r == 0)
		vmb_test_stop_point("lab-net-up");
	return r;
}

int lab_guest_load(struct lab_guest *g, unsigned pct, unsigned *asked, double *got, char *err, size_t errlen)
{
	int r = proto_host_load(&g->b.conn, pct, 10000, asked, got);

	return r < 0 ? errf(err, errlen, r, "%s", g->b.conn.err) : 0;
}

int lab_guest_run(struct lab_guest *g, const char *item, const json_t *opts, json_t **doc, char *err, size_t errlen)
{
	const struct vmb_suite *suite = lab_item_suite(item);
	double cpu0[4], cpu1[4];
	json_t *d = NULL;
	int r;

	snprintf(g->b.step, sizeof(g->b.step), "run %s", item);
	lab_qemu_cpu(g->b.pid, cpu0);
	if (g->b.net.dir && suite && (suite->flags & VMB_SUITE_NET_PEER)) {
		/* measured over the network path, in its direction */
		r = lab_net_run(&g->b.net, &g->b.conn, item, opts, g->b.fp, g->o->run_table, &d, err, errlen);
		if (r < 0)
			return r;
	} else {
		r = proto_host_run(&g->b.conn, item, opts, g->b.fp, 120000, 3600000, &d);
		if (r < 0)
			return errf(err, errlen, r, "%s", g->b.conn.err);
	}
	lab_qemu_cpu(g->b.pid, cpu1);
	if (lab_host_cost(d, cpu0, cpu1, g->b.vcpu_threads) < 0 || hv_labels(&g->b, d) < 0) {
		json_decref(d);
		return errf(err, errlen, -ENOMEM, "out of memory");
	}
	*doc = d;
	return 0;
}

int lab_guest_stop(struct lab_guest *g, bool clean, char *err, size_t errlen)
{
	int r = 0;

	if (!g)
		return 0;
	if (clean)
		r = lab_boot_shut_down(&g->b, err, errlen);
	else
		lab_boot_kill(&g->b);
	lab_boot_gone(&g->b);
	free(g->vcpus);
	free(g);
	return r;
}
