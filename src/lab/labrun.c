/* Lab run: QEMU per configuration, boot phases, suites through the agent. */
#include <errno.h>
#include <linux/magic.h>
#include <math.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>

#include "distro.h"
#include "vmops.h"
#include "labnet.h"
#include "../guest/fs.h"
#include "hostmeasure.h"
#include "hostsuite.h"
#include "kvmguest.h"
#include "labrun.h"
#include "mirror.h"
#include "modules.h"
#include "procs.h"
#include "proto_host.h"
#include "qemu.h"
#include "hv.h"
#include "qemuproc.h"
#include "workdir.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/result.h"
#include "../store/doc.h"
#include "../suites/boot.h"
#include "../suites/suites.h"
#include "../suites/vmops.h"
#include "../core/str.h"
#include "../core/banned.h"

/* Every process the lab started killed and reaped, every work directory
 * removed, and the pid file a share's virtiofsd left outside it. */
void lab_kill_all(void)
{
	lab_procs_kill_all();
	lab_work_dirs_remove_all(lab_share_remove);
}

/* The scratch disk's image lives in $TMPDIR: on tmpfs the guest's disk
 * figures are the host's memory, which the guest cannot see. Said beside
 * them, in the notes of each suite that measured on the scratch disk. */
static void scratch_on_tmpfs(json_t *doc, const char *dir)
{
	struct statfs sfs;
	json_t *suites = json_object_get(doc, "suites"), *s;
	size_t i;

	if (statfs(dir, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC)
		return;
	json_array_foreach(suites, i, s) {
		const struct vmb_suite *desc = suites_find(json_string_value(json_object_get(s, "name")) ?: "");
		json_t *notes = json_object_get(s, "notes");

		if (desc && desc->scratch && json_is_object(notes))
			(void)json_object_set_new(notes, "scratch_disk_host",
						  json_string("the scratch disk's image (and a share's directory) is on the host's tmpfs ($TMPDIR): "
							      "these are figures of the host's memory; give the lab a "
							      "TMPDIR on a disk"));
	}
}

/* A line of progress on the terminal in place of the last, as `run`
 * draws its own; an empty one clears it. */
static void progress_draw(const struct lab_run_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress_draw(const struct lab_run_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->progress)
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

struct boot {
	const struct lab_hv_ops *hv; /* the session's hypervisor back end */
	pid_t pid;
	char dir[160];
	const struct lab_config *c;
	char kernel[300], initrd[300], disk[200], ctl[200], agent[200], console[200], vars[200];
	char overlay[200];              /* snapshot=on: the qcow2 overlay over the disk */
	struct lab_host_disk host_disk; /* what QEMU opens as the disk (the back end's record) */
	char modules[1024]; /* what the guest loads: its configuration's drivers */
	struct lab_paths paths; /* into the strings above */
	bool set_up;            /* the back ends are set up: torn down when QEMU is gone */
	bool dir_made;          /* dir is ours, until QEMU is gone */
	struct lab_mirror mirror; /* app.apt's package mirror, when a run asked for it */
	char qemu_log[200];     /* QEMU's stdout and stderr */
	struct proto_conn conn;
	int fd;
	json_t *fp;
	struct lab_net net;               /* the other end of the guest's NIC */
	double t_output, t_init, t_hello; /* seconds after QEMU started (or the reset) */
	char root[300];                   /* a distribution image's root disk */
	/* a distribution's SSH server, read from QEMU's network namespace */
	double t_ssh;                     /* when its banner was read; 0: not yet */
	int ssh_fd;                       /* the connection being tried, -1: none */
	double ssh_since, ssh_retry;      /* when it was started; when to try again */
	bool ssh_connected;
	char ssh_buf[512], ssh_version[256];
	size_t ssh_len;
	int ssh_err;                      /* the last failure to make a socket there (0: none) */
	size_t console_off;               /* console bytes that belong to earlier boots */
	unsigned vcpu_threads;            /* host threads running the vCPUs (QMP), 0: not known */
	pid_t share_pid;                  /* a share's virtiofsd, while it runs */
	char step[96];                    /* what is being done: "boot", "run disk", ... */
	/* while HELLO is awaited: whether QEMU stopped the guest for good */
	struct lab_hv_mon *watch;         /* the back end's connection, made at the first look (NULL: none) */
	bool watch_tried;                 /* its connection was tried */
	double watch_next;                /* when to look again, s after t0 */
	bool final;                       /* the boot failed for good: booting it again cannot help */
};

/* The SSH connection being tried, closed; the next try after delay s. */
static void ssh_close(struct boot *b, double now, double delay)
{
	if (b->ssh_fd >= 0)
		close(b->ssh_fd);
	b->ssh_fd = -1;
	b->ssh_connected = false;
	b->ssh_len = 0;
	b->ssh_retry = now + delay;
}

/* QEMU exited and was reaped: its pid is nobody's to kill any more. The
 * work directory stays until boot_gone, for the evidence of a failure. */
static void boot_reaped(struct boot *b)
{
	lab_proc_untrack(b->pid);
	b->pid = 0;
}

/* QEMU is gone (or never started): the back ends torn down, the work
 * directory removed. */
static void boot_gone(struct boot *b)
{
	lab_net_stop(&b->net);
	lab_mirror_stop(&b->mirror);
	if (b->set_up)
		lab_backends_teardown(b->c, &b->paths);
	b->set_up = false;
	if (b->dir_made)
		lab_work_dir_remove(b->dir);
	b->dir_made = false;
}

/* A boot that failed, ended at once: QEMU killed (a guest that hangs would
 * not answer BYE) and reaped, the channel closed. The files stay. */
static void boot_kill(struct boot *b)
{
	if (b->pid > 0)
		(void)b->hv->destroy(b->pid, b->ctl, 0, NULL);
	b->pid = 0;
	proto_release(&b->conn);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	ssh_close(b, 0, 0);
	json_decref(b->fp);
	b->fp = NULL;
}

/* The hypervisor's process exited (wait status) before HELLO (at_start:
 * before its agent channel): why, as its back end reads it. */
static int exited(struct boot *b, int status, bool at_start, char *err, size_t errlen)
{
	char why[600];
	int r = b->hv->exit_why(&(struct lab_hv_exit){ .c = b->c, .p = &b->paths, .log = b->qemu_log, .status = status,
						      .at_start = at_start }, why, sizeof(why));

	return errf(err, errlen, r < 0 ? r : -ECHILD, "%s", why);
}

/* Watch the console for the first output and the init line. */
static void watch_console(struct boot *b, double now)
{
	char *text = NULL;

	if (b->t_output && b->t_init)
		return;
	if (read_file(b->console, &text) < 0)
		return;
	if (strlen(text) > b->console_off) {
		const char *mine = text + b->console_off;

		/* the kernel's first words, after a firmware's own output */
		const struct lab_firmware *fw = lab_config_firmware(b->c);

		if (!b->t_output && (fw && fw->mark ? strstr(mine, fw->mark) != NULL : *mine != '\0'))
			b->t_output = now;
		if (!b->t_init && strstr(mine, lab_config_image(b->c)->init))
			b->t_init = now;
		/* a firmware's mark never seen: no phase of a negative length */
		if (b->t_init && !b->t_output)
			b->t_output = b->t_init;
	}
	free(text);
}

/* A distribution's SSH server: a connection to the guest's address on the
 * lab's link, from QEMU's network namespace, tried again 20 ms after a
 * refusal and after 250 ms without an answer (no ARP reply, no RST: the
 * guest's NIC is not up yet), until its banner is read; t_ssh is when it
 * was. 0, or -EPROTO with err when what answers is no SSH server. */
static int ssh_poll(struct boot *b, double now, char *err, size_t errlen)
{
	struct pollfd pf;
	ssize_t n;
	int r;

	if (b->t_ssh || now < b->ssh_retry)
		return 0;
	if (b->ssh_fd < 0) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(LAB_SSH_PORT) };
		int fd = lab_net_socket_in(b->pid, AF_INET, SOCK_STREAM | SOCK_NONBLOCK);

		if (fd < 0) {
			b->ssh_err = fd;
			ssh_close(b, now, 0.5);
			return 0;
		}
		(void)inet_pton(AF_INET, LAB_NET_GUEST, &sa.sin_addr);
		b->ssh_fd = fd;
		b->ssh_since = now;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
			ssh_close(b, now, 0.02);
			return 0;
		}
	}
	pf = (struct pollfd){ .fd = b->ssh_fd, .events = POLLIN | POLLOUT };
	if (poll(&pf, 1, 0) <= 0) {
		if (!b->ssh_connected && now - b->ssh_since > 0.25)
			ssh_close(b, now, 0);
		return 0;
	}
	if (!b->ssh_connected) {
		int e = 0;
		socklen_t el = sizeof(e);

		if (getsockopt(b->ssh_fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e) {
			ssh_close(b, now, 0.02); /* refused: nothing listens yet */
			return 0;
		}
		b->ssh_connected = pf.revents & (POLLOUT | POLLIN);
	}
	if (!(pf.revents & (POLLIN | POLLHUP | POLLERR)))
		return 0;
	n = recv(b->ssh_fd, b->ssh_buf + b->ssh_len, sizeof(b->ssh_buf) - b->ssh_len, MSG_DONTWAIT);
	if (n <= 0) {
		/* closed before a banner (a server starting up), or reset */
		ssh_close(b, now, 0.02);
		return 0;
	}
	b->ssh_len += (size_t)n;
	r = lab_ssh_banner(b->ssh_buf, b->ssh_len, b->ssh_version, sizeof(b->ssh_version));
	if (r == 0 && b->ssh_len == sizeof(b->ssh_buf))
		r = -EPROTO;
	if (r < 0) {
		ssh_close(b, now, 0.02);
		return errf(err, errlen, -EPROTO, "what answers on port %d of the guest (%s) is no SSH server: no "
			    "SSH-2.0 identification line in its first %zu bytes", LAB_SSH_PORT, LAB_NET_GUEST,
			    (size_t)n);
	}
	if (r == 1) {
		b->t_ssh = now;
		ssh_close(b, now, 0);
	}
	return 0;
}

/* After HELLO, the SSH banner if it was not read yet (the agent starts
 * after the SSH server, so it is there; this is the last poll's lag). */
static int await_ssh(struct boot *b, uint64_t t0, uint64_t deadline, const struct lab_run_opts *o, char *err,
		     size_t errlen)
{
	while (!b->t_ssh) {
		double now = (double)(clock_ns() - t0) / NSEC_PER_SEC;
		int r = ssh_poll(b, now, err, errlen);

		if (r < 0)
			return r;
		if (b->t_ssh)
			break;
		if (clock_ns() > deadline || vmb_stop_requested())
			return errf(err, errlen, -ETIMEDOUT, "the guest's agent said HELLO, but its SSH server did not "
				    "answer on %s:%d within %g s (--hello-timeout)%s%s", LAB_NET_GUEST, LAB_SSH_PORT,
				    o->hello_timeout_ms / 1e3, b->ssh_err ? ": making a socket in QEMU's network "
				    "namespace failed: " : "", b->ssh_err ? strerror(-b->ssh_err) : "");
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	}
	return 0;
}

/* The watch's connection closed (the back end's takes one client at a time). */
static void watch_close(struct boot *b)
{
	if (b->watch && b->hv->close)
		b->hv->close(b->watch);
	b->watch = NULL;
}

/* Whether QEMU has stopped the guest for good before HELLO, looked at
 * every quarter second: its run state as QMP's query-status gives it
 * ("internal-error" when KVM could not run the guest, "guest-panicked"),
 * over a connection held while HELLO is awaited, with QEMU's own words
 * from its log; where QMP cannot be asked, the log's KVM error alone.
 * -ENOEXEC with why in err and b->final set, else 0. */
static int stopped_for_good(struct boot *b, double now, char *err, size_t errlen)
{
	char state[32] = "", words[400] = "", why[512];
	bool kvm, final = false;

	if (now < b->watch_next)
		return 0;
	b->watch_next = now + 0.25;
	if (!b->watch_tried) {
		b->watch_tried = true;
		if (!b->hv->run_state || b->hv->open(b->ctl, 2000, &b->watch, why, sizeof(why)) < 0)
			b->watch = NULL;
	}
	if (b->watch && b->hv->run_state(b->watch, state, sizeof(state), &final, why, sizeof(why)) < 0) {
		watch_close(b); /* not asked again: the log is read instead */
		state[0] = '\0';
	}
	if (*state && !final)
		return 0;
	kvm = b->hv->exit_why(&(struct lab_hv_exit){ .c = b->c, .p = &b->paths, .log = b->qemu_log, .status = -1,
						     .accel_only = true }, words, sizeof(words)) > 0;
	if (!*state && (b->watch || !kvm))
		return 0;
	b->final = true;
	if (!*state)
		snprintf(state, sizeof(state), "not asked");
	return errf(err, errlen, -ENOEXEC, "QEMU stopped the guest for good before it said HELLO (run state %s)%s%s%s",
		    state, kvm ? ": " : "", words, kvm && !strcmp(b->c->v[LAB_ACCEL], "kvm") ?
		    "; this machine's KVM cannot run the guest (accel=tcg emulates it)" : "");
}

static int await_hello_loop(struct boot *b, uint64_t t0, uint64_t deadline, const struct lab_run_opts *o, char *err,
			    size_t errlen);

/* HELLO on the agent channel, watching the console meanwhile for the
 * earlier phases and QEMU for a guest stopped for good; times are seconds
 * after t0. */
static int await_hello(struct boot *b, uint64_t t0, uint64_t deadline, const struct lab_run_opts *o, char *err,
		       size_t errlen)
{
	int r;

	b->watch_tried = false;
	b->watch_next = 0;
	r = await_hello_loop(b, t0, deadline, o, err, errlen);
	/* QMP takes one client at a time: the lab's next one is another */
	watch_close(b);
	/* a guest that ran under KVM, or that KVM stopped: what `vmbench info` says */
	if (!strcmp(b->c->v[LAB_ACCEL], "kvm") && (r == 0 || b->final)) {
		char why[400] = "";

		if (b->final)
			(void)b->hv->exit_why(&(struct lab_hv_exit){ .c = b->c, .p = &b->paths, .log = b->qemu_log,
								    .status = -1 }, why, sizeof(why));
		(void)lab_kvm_verdict_save(r == 0, *why ? why : NULL);
	}
	return r;
}

static int await_hello_loop(struct boot *b, uint64_t t0, uint64_t deadline, const struct lab_run_opts *o, char *err,
			    size_t errlen)
{
	unsigned drawn = 0;
	int r;

	/* HELLO through the protocol's host side, in slices short enough to
	 * watch the console meanwhile (every 5 ms until its two marks are seen);
	 * a partial line waits in the connection's buffer between slices */
	for (;;) {
		double now;
		int status;

		bool ssh = lab_config_image(b->c)->ssh;

		r = proto_host_hello(&b->conn, b->t_output && b->t_init && (!ssh || b->t_ssh) ? 50 : 5, &b->fp);
		now = (double)(clock_ns() - t0) / NSEC_PER_SEC;
		watch_console(b, now);
		if (ssh && ssh_poll(b, now, err, errlen) < 0)
			return -EPROTO;
		if (r == 0) {
			b->t_hello = now;
			progress_draw(o, "%s", "");
			return ssh ? await_ssh(b, t0, deadline, o, err, errlen) : 0;
		}
		if ((unsigned)now != drawn) {
			drawn = (unsigned)now;
			progress_draw(o, "[booting, %u s] %s", drawn, !b->t_output ? "firmware" : !b->t_init ? "kernel"
								      : ssh && !b->t_ssh ? "userspace (SSH)" : "agent");
		}
		if (r != -ETIMEDOUT && r != -EPIPE)
			return errf(err, errlen, r, "%s", b->conn.err);
		/* the console is the caller's evidence (lab_failure): not in these words */
		if (waitpid(b->pid, &status, WNOHANG) == b->pid) {
			boot_reaped(b);
			return exited(b, status, false, err, errlen);
		}
		if (r == -EPIPE)
			return errf(err, errlen, -EPIPE, "the guest closed its agent channel before it said HELLO");
		if (stopped_for_good(b, now, err, errlen) < 0)
			return -ENOEXEC;
		if (clock_ns() > deadline || vmb_stop_requested())
			return errf(err, errlen, -ETIMEDOUT, "the guest did not say HELLO within %g s (--hello-timeout)",
				    o->hello_timeout_ms / 1e3);
	}
}

/* The back end of each device key: the disk's is --disk-format; the others
 * their first (NULL). */
static void backend_names(const struct lab_run_opts *o, const struct lab_config *c, const char *names[LAB_NKEYS])
{
	for (int k = 0; k < LAB_NKEYS; k++)
		names[k] = NULL;
	names[LAB_DISK] = o->disk_format;
	if (o->nic_backend) {
		names[LAB_NIC] = o->nic_backend;
	} else {
		char why[512];
		const struct lab_backend *be = lab_backend_pick(LAB_NIC, why, sizeof(why));

		names[LAB_NIC] = be ? be->name : NULL;
	}
	lab_backends_own(c, names);
}

/* The work directory and the files of a boot, the back ends set up, and
 * QEMU's command line for it. On failure nothing is left behind. */
/* The modules this configuration's guest loads, from the image's manifest:
 * "" (every one the image has) when the manifest cannot say. */
static void config_modules(const char *image_dir, const struct lab_config *c, char *out, size_t len)
{
	char path[4200], *text = NULL;
	struct strv want = { 0 };

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/manifest.json", image_dir);
	if (read_file(path, &text) == 0 && lab_config_modules(c, &want) == 0)
		(void)lab_modules_for(text, &want, out, len);
	strv_clear(&want);
	free(text);
}

static int boot_prepare(const struct lab_config *c, const struct lab_run_opts *o, struct boot *b, struct strv *argv,
			char *err, size_t errlen)
{
	char why[512];
	int r;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->ssh_fd = -1;
	b->watch = NULL;
	b->hv = lab_hv_default();
	b->c = c;
	snprintf(b->step, sizeof(b->step), "prepare");
	r = lab_work_dir_new(b->dir, sizeof(b->dir));
	if (r < 0)
		return errf(err, errlen, r, "creating a work directory: %s", strerror(-r));
	b->dir_made = true;
	/* the kernel proper when the image has it (src/lab/kernel.h), else the bzImage */
	snprintf(b->kernel, sizeof(b->kernel), "%s/vmlinux", o->image_dir);
	if (access(b->kernel, R_OK) < 0)
		snprintf(b->kernel, sizeof(b->kernel), "%s/vmlinuz", o->image_dir);
	/* The kernel file is the one the firmware row names, else the image's own.
	 * OVMF cannot enter the PVH vmlinux, so its row names the bzImage.
	 * OVMF starts the bzImage through the kernel's EFI stub. */
	if (lab_config_firmware(c) && lab_config_firmware(c)->kernel)
		snprintf(b->kernel, sizeof(b->kernel), "%s/%s", o->image_dir, lab_config_firmware(c)->kernel);
	snprintf(b->vars, sizeof(b->vars), "%s/vars.fd", b->dir);
	snprintf(b->initrd, sizeof(b->initrd), "%s/initrd.img", o->image_dir);
	snprintf(b->disk, sizeof(b->disk), "%s/disk.img", b->dir);
	if (b->hv->control(b->dir, b->ctl, sizeof(b->ctl)) < 0) {
		boot_gone(b);
		return errf(err, errlen, -ENAMETOOLONG, "the work directory %s is too long a path", b->dir);
	}
	snprintf(b->agent, sizeof(b->agent), "%s/agent.sock", b->dir);
	snprintf(b->console, sizeof(b->console), "%s/console.log", b->dir);
	snprintf(b->qemu_log, sizeof(b->qemu_log), "%s/qemu.log", b->dir);
	snprintf(b->overlay, sizeof(b->overlay), "%s/overlay.qcow2", b->dir);
	b->host_disk.fd = -1;
	b->host_disk.direct_io = -1;
	/* the cache key's mode (--disk-cache where the matrix gives none) */
	b->paths = (struct lab_paths){ .kernel = b->kernel, .initrd = b->initrd, .disk = b->disk,
				       .disk_cache = c->v[LAB_CACHE], .qmp_socket = b->ctl, .agent_socket = b->agent,
				       .console_log = b->console, .modules = b->modules,
				       .fw_vars = b->vars, .overlay = b->overlay, .host_disk = &b->host_disk,
				       .work_dir = b->dir, .arch = c->v[LAB_ARCH], .share_helper = &b->share_pid };
	config_modules(o->image_dir, c, b->modules, sizeof(b->modules));
	if (lab_config_image(c)->root) {
		snprintf(b->root, sizeof(b->root), "%s/%s", o->image_dir, lab_config_image(c)->root);
		b->paths.root_disk = b->root;
	}
	backend_names(o, c, b->paths.backend);
	b->paths.backend[LAB_DISK] = lab_disk_backend_name(c, o->disk_format);
	/* a scratch disk of our own, behind the configuration's controller */
	if (parse_size(o->disk_size, 1 << 20, 1ull << 40, &b->paths.disk_size) < 0) {
		r = errf(why, sizeof(why), -EIO, "creating the scratch disk %s", b->disk);
	} else {
		/* with a filesystem, room for the test file of --disk-size and more */
		b->paths.disk_size = lab_fs_disk_size(lab_share_find(c->v[LAB_SHARE]) ? NULL : lab_config_fs(c),
						      b->paths.disk_size);
		r = lab_backends_setup(c, &b->paths, why, sizeof(why));
	}
	b->set_up = r == 0;
	/* a distribution's SSH banner is read over the lab's link (a tap in
	 * QEMU's namespace); user networking's guest is not reachable there */
	if (r == 0 && lab_config_image(c)->ssh && !lab_net_linked(c, &b->paths))
		r = errf(why, sizeof(why), -EOPNOTSUPP, "image=%s is timed to its SSH server's banner, read over the lab's "
			 "tap link; the NIC's back end here is %s (a tap needs CAP_NET_ADMIN and /dev/net/tun)",
			 c->v[LAB_IMAGE], b->paths.backend[LAB_NIC] ? b->paths.backend[LAB_NIC] : "none");
	if (r == 0)
		r = lab_firmware_setup(c, &b->paths, why, sizeof(why));
	if (r == 0)
		r = b->hv->define(c, &b->paths, false, false, argv, why, sizeof(why));
	if (r < 0) {
		boot_gone(b);
		strv_clear(argv);
		return errf(err, errlen, r, "%s", why);
	}
	vmb_test_stop_point("lab-prepared"); /* tests kill the process here, its work directory made */
	return 0;
}

/* Connect to the agent's socket once QEMU has made it. */
static int connect_agent(struct boot *b, uint64_t deadline, const struct lab_run_opts *o, char *err, size_t errlen)
{
	while (b->fd < 0) {
		int status;

		if (waitpid(b->pid, &status, WNOHANG) == b->pid) {
			boot_reaped(b);
			return exited(b, status, true, err, errlen);
		}
		/* the back end's channel, once it is there (any failure: tried again) */
		if (b->hv->channel(b->agent, &b->fd) < 0)
			b->fd = -1;
		if (b->fd < 0) {
			if (clock_ns() > deadline || vmb_stop_requested())
				return errf(err, errlen, -ETIMEDOUT, "QEMU did not open its agent socket within %g s "
					    "(--hello-timeout)", o->hello_timeout_ms / 1e3);
			nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
		}
	}
	return 0;
}

/* A boot's first half: its files and QEMU started; t0 when it was. */
static int boot_spawn(const struct lab_config *c, const struct lab_run_opts *o, struct boot *b, uint64_t *t0,
		      char *err, size_t errlen)
{
	struct strv argv = { 0 };
	int r = boot_prepare(c, o, b, &argv, err, errlen);

	if (r < 0)
		return r;
	snprintf(b->step, sizeof(b->step), "boot");
	*t0 = clock_ns();
	r = b->hv->start(c, &b->paths, &argv, b->qemu_log, &b->pid);
	strv_clear(&argv);
	if (r < 0)
		return errf(err, errlen, r, "starting QEMU: %s", strerror(-r));
	return 0;
}

/* Its second half: the agent's channel and HELLO. */
static int boot_await(const struct lab_run_opts *o, struct boot *b, uint64_t t0, char *err, size_t errlen)
{
	uint64_t deadline = t0 + (uint64_t)o->hello_timeout_ms * 1000000;
	int r = connect_agent(b, deadline, o, err, errlen);

	if (r < 0)
		return r;
	proto_init(&b->conn, b->fd, b->fd);
	r = await_hello(b, t0, deadline, o, err, errlen);
	if (r < 0)
		return r;
	if (!b->t_output)
		b->t_output = b->t_hello;
	if (!b->t_init)
		b->t_init = b->t_hello;
	return 0;
}

static int boot_once(const struct lab_config *c, const struct lab_run_opts *o, struct boot *b, char *err, size_t errlen)
{
	uint64_t t0;
	int r = boot_spawn(c, o, b, &t0, err, errlen);

	return r < 0 ? r : boot_await(o, b, t0, err, errlen);
}

/* BYE, then QEMU's exit (killed after 30 s, a distribution's after 120 s):
 * 0, or why in err. QEMU is reaped either way; its files stay. */
static int shut_down(struct boot *b, char *err, size_t errlen)
{
	int r = b->fd >= 0 ? proto_host_bye(&b->conn, 10000) : -EPIPE;
	/* a distribution stops its services first (systemctl poweroff): longer under TCG */
	unsigned limit_s = lab_config_image(b->c)->root ? 120 : 30;

	snprintf(b->step, sizeof(b->step), "shut down");
	if (r < 0)
		errf(err, errlen, r, "the guest did not shut down cleanly after BYE: %s", b->conn.err);
	/* the guest powers off after BYE; QEMU then exits */
	if (b->pid > 0 && b->hv->destroy(b->pid, b->ctl, (int)limit_s * 1000, NULL) == 1)
		r = errf(err, errlen, -ETIMEDOUT, "QEMU did not exit within %u s of the guest's BYE", limit_s);
	boot_reaped(b);
	boot_kill(b);
	return r;
}

/* The guest booting again in the same QEMU from t0 (a reset): its marks
 * and HELLO, as a cold boot's from QEMU's start. */
static int await_again(struct boot *b, uint64_t t0, const struct lab_run_opts *o, char *err, size_t errlen)
{
	int r = await_hello(b, t0, t0 + (uint64_t)o->hello_timeout_ms * 1000000, o, err, errlen);

	if (r == 0) {
		if (!b->t_output)
			b->t_output = b->t_hello;
		if (!b->t_init)
			b->t_init = b->t_hello;
	}
	return r;
}

/* A warm boot: QMP system_reset, then the same phases in the same QEMU
 * process (the agent channel outlives the guest's reset). */
static int warm_boot(struct boot *b, const struct lab_run_opts *o, char *err, size_t errlen)
{
	char *text = NULL, why[512] = "";
	struct lab_hv_mon *m = NULL;
	uint64_t t0;
	int r;

	/* the QEMU the guest runs in now (vmops may have moved it) */
	b->console_off = read_file(b->console, &text) == 0 ? strlen(text) : 0;
	free(text);
	r = b->hv->reset ? b->hv->open(b->ctl, 10000, &m, why, sizeof(why))
			 : errf(why, sizeof(why), -EOPNOTSUPP, "%s", lab_hv_why_not(b->hv, "reset"));
	json_decref(b->fp);
	b->fp = NULL;
	b->t_output = b->t_init = b->t_hello = b->t_ssh = 0;
	ssh_close(b, 0, 0);
	t0 = clock_ns();
	if (r == 0)
		r = b->hv->reset(m, why, sizeof(why));
	if (m && b->hv->close)
		b->hv->close(m);
	if (r < 0)
		return errf(err, errlen, r, "warm boot: %s", why);
	return await_again(b, t0, o, err, errlen);
}

/* A reboot inside the guest: the agent's REBOOT, which what started it
 * turns into the guest's own reboot (the busybox image's `reboot -f`, the
 * distribution's `systemctl reboot`). The phases are timed from QEMU's
 * RESET event, as a warm boot's from system_reset, in the same QEMU; the
 * guest's shutdown before it (REBOOT sent to RESET) is *shutdown, s. */
static int reboot_boot(struct boot *b, const struct lab_run_opts *o, double *shutdown, char *err, size_t errlen)
{
	char *text = NULL, why[512] = "";
	struct lab_hv_mon *m = NULL;
	uint64_t t_req, t0 = 0;
	int r;

	/* connected before REBOOT: the reset cannot come before */
	r = b->hv->await_reset ? b->hv->open(b->ctl, 10000, &m, why, sizeof(why))
			       : errf(why, sizeof(why), -EOPNOTSUPP, "%s", lab_hv_why_not(b->hv, "await_reset"));
	json_decref(b->fp);
	b->fp = NULL;
	b->t_output = b->t_init = b->t_hello = b->t_ssh = 0;
	ssh_close(b, 0, 0);
	if (r < 0)
		return errf(err, errlen, r, "reboot: %s", why);
	t_req = clock_ns();
	r = proto_host_reboot(&b->conn, 10000);
	if (r < 0) {
		errf(err, errlen, r, "reboot: %s", b->conn.err);
		if (b->hv->close)
			b->hv->close(m);
		return r;
	}
	/* the guest's own shutdown, bounded as a boot is */
	r = b->hv->await_reset(m, o->hello_timeout_ms, t_req, &t0, why, sizeof(why));
	/* what the console holds by now is the shutdown's (and maybe a firmware's first bytes) */
	b->console_off = read_file(b->console, &text) == 0 ? strlen(text) : 0;
	free(text);
	if (r == 0)
		r = errf(err, errlen, -ETIMEDOUT, "reboot: the guest did not reset within %g s of REBOOT "
			 "(--hello-timeout)", o->hello_timeout_ms / 1e3);
	else if (r < 0)
		errf(err, errlen, r, "reboot: %s", why);
	if (b->hv->close)
		b->hv->close(m);
	if (r < 0)
		return r;
	*shutdown = (double)(t0 - t_req) / NSEC_PER_SEC;
	return await_again(b, t0, o, err, errlen);
}

/* The vCPU threads of the boot's QEMU counted (lab_vcpu_threads), pinned with pin. */
static int vcpu_threads(struct boot *b, bool pin, char *err, size_t errlen)
{
	return lab_hv_vcpus(b->hv, b->ctl, pin, &b->vcpu_threads, err, errlen);
}

/* The guest's device of this list ("block_devices", "network") whose
 * driver is driver, or NULL. */
static const json_t *guest_device(const json_t *fp, const char *list, const char *driver)
{
	const json_t *one = json_object_get(fp, list);
	size_t i;
	json_t *d;

	/* the one device of its kind (the balloon: {"present", "driver"}) */
	if (json_is_object(one))
		return driver && !strcmp(json_string_value(json_object_get(one, "driver")) ?: "", driver) ? one : NULL;
	/* a distribution's root disk is never the device under test */
	json_array_foreach(json_object_get(fp, list), i, d)
		if (driver && !strcmp(json_string_value(json_object_get(d, "driver")) ?: "", driver) &&
		    json_string_value(json_object_get(d, "name")) &&
		    strcmp(json_string_value(json_object_get(d, "serial")) ?: "", LAB_ROOT_SERIAL))
			return d;
	return NULL;
}

/* A back end with a link: the guest's device is up, with the guest's
 * address of the link (the init script's work before HELLO). */
static int check_link(const struct lab_backend *be, const json_t *dev, const char *what, char *err, size_t errlen)
{
	const char *name = json_string_value(json_object_get(dev, "name"));
	const char *state = json_string_value(json_object_get(dev, "state"));
	const json_t *a;
	size_t i;

	if (!be->guest_addr)
		return 0;
	/* RFC 2863's "unknown": a driver that reports no carrier (pcnet32), its link up */
	if (!state || (strcmp(state, "up") && strcmp(state, "unknown")))
		return errf(err, errlen, -ENETDOWN, "the guest's %s %s is %s, not up", what, name, state ? state : "of no state");
	json_array_foreach(json_object_get(dev, "ipv4"), i, a)
		if (!strcmp(json_string_value(a) ?: "", be->guest_addr))
			return 0;
	return errf(err, errlen, -ENETDOWN, "the guest's %s %s does not have the address %s of the lab's link", what,
		    name, be->guest_addr);
}

/* The phases a configuration's boot has: boot_phases, or with an SSH
 * server boot_ssh_phases. */
static const struct boot_phase *config_phases(const struct lab_config *c, size_t *n)
{
	bool ssh = lab_config_image(c)->ssh;

	*n = ssh ? BOOT_SSH_NPHASES : BOOT_NPHASES;
	return ssh ? boot_ssh_phases : boot_phases;
}

/* The marks of a boot, in the order of the declared phases (boot_phases,
 * boot_ssh_phases): each phase is the time between two consecutive marks.
 * A mark seen after the next one (the SSH banner read in the poll after
 * HELLO) counts as that one: no phase is negative. */
static void boot_phases_of(const struct boot *b, double ph[BOOT_MAXPHASES])
{
	double marks[BOOT_MAXPHASES + 1] = { 0, b->t_output, b->t_init, b->t_hello };
	size_t n;

	(void)config_phases(b->c, &n);
	if (n == BOOT_SSH_NPHASES) {
		marks[3] = b->t_ssh;
		marks[4] = b->t_hello;
	}
	for (size_t k = n; k > 0; k--)
		if (marks[k - 1] > marks[k])
			marks[k - 1] = marks[k];
	for (size_t k = 0; k < BOOT_MAXPHASES; k++)
		ph[k] = k < n ? marks[k + 1] - marks[k] : 0;
}

/* A count in the guest's fingerprint object o is want (null: not known there) */
static int check_count(const json_t *o, const char *field, json_int_t want, const char *what, char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, field);

	if (json_is_integer(v) && json_integer_value(v) == want)
		return 0;
	if (json_is_integer(v))
		return errf(err, errlen, -EPROTO, "the guest shows %lld %s, the configuration asked for %lld",
			    (long long)json_integer_value(v), what, (long long)want);
	return errf(err, errlen, -EPROTO, "the guest shows no count of its %s (the configuration asked for %lld)", what,
		    (long long)want);
}

/* The guest's CPUs: smp of them, the model the cpu row names, and the
 * sockets, cores and threads of the topology. */
static int check_cpu(const struct lab_config *c, const json_t *fp, char *err, size_t errlen)
{
	const json_t *cpu = json_object_get(fp, "cpu");
	const struct lab_cpu *row = lab_config_cpu(c);
	const char *model = json_string_value(json_object_get(cpu, "model"));
	unsigned t[3];
	int64_t smp = 0;
	int r;

	(void)parse_i64(c->v[LAB_SMP], 1, 256, &smp);
	r = check_count(cpu, "logical", smp, "vCPUs", err, errlen);
	if (r == 0 && row && row->model && (!model || strcmp(model, row->model)))
		r = errf(err, errlen, -EPROTO, "the guest's CPU is '%s', cpu=%s shows '%s'", model ? model : "(unnamed)",
			 row->name, row->model);
	if (r < 0 || lab_topology_parse(c->v[LAB_TOPOLOGY], t) < 0)
		return r;
	r = check_count(cpu, "sockets", t[0], "sockets", err, errlen);
	if (r == 0)
		r = check_count(cpu, "cores", (json_int_t)t[0] * t[1], "cores", err, errlen);
	if (r == 0)
		r = check_count(cpu, "threads_per_core", t[2], "threads per core", err, errlen);
	return r;
}

/* The guest is what the configuration asked for: its architecture, its
 * CPUs, and behind each device key's model the driver the device table
 * names, where the model's back end says the guest shows it (with the
 * queues of a NIC that takes several). *scratch: the block device behind
 * the disk key, which the suites that need a scratch disk get. */
static int check_guest(const struct lab_config *c, const struct boot *b, const char **scratch, char *err,
		       size_t errlen)
{
	const char *arch = json_string_value(json_object_get(b->fp, "arch"));

	if (!arch || strcmp(arch, c->v[LAB_ARCH]))
		return errf(err, errlen, -EPROTO, "the guest says it is %s, the configuration asked for %s",
			    arch ? arch : "of no architecture", c->v[LAB_ARCH]);
	*scratch = NULL;
	if (check_cpu(c, b->fp, err, errlen) < 0)
		return -EPROTO;
	/* the firmware: a UEFI one hands the kernel its runtime services */
	if (lab_config_firmware(c) && json_is_true(json_object_get(json_object_get(b->fp, "kernel"), "efi")) !=
					      lab_config_firmware(c)->efi)
		return errf(err, errlen, -EPROTO, "the guest's kernel was %sbooted by UEFI, and firmware=%s %s",
			    lab_config_firmware(c)->efi ? "not " : "", c->v[LAB_FIRMWARE],
			    lab_config_firmware(c)->efi ? "is UEFI" : "is not");
	for (int k = 0; k < LAB_NKEYS; k++) {
		const struct lab_device *d = lab_config_device(c, (enum lab_key)k);
		const struct lab_backend *be = d ? lab_backend_of(&b->paths, (enum lab_key)k) : NULL;
		const json_t *dev = be ? guest_device(b->fp, be->guest_list, d->driver) : NULL;
		int r;

		if (d && !dev)
			return errf(err, errlen, -ENODEV, "the guest shows no %s with the %s driver that %s=%s needs",
				    be ? be->guest_what : "device", d->driver, lab_key_name((enum lab_key)k), d->name);
		r = dev ? check_link(be, dev, be->guest_what, err, errlen) : 0;
		/* the queue pairs the agent set: the device's queues in the guest */
		if (r == 0 && dev && k == LAB_NIC && lab_config_mq(c))
			r = check_count(dev, "queues", lab_config_queues(c), "queues on its NIC", err, errlen);
		if (r < 0)
			return r;
		if (k == LAB_DISK)
			*scratch = json_string_value(json_object_get(dev, "name"));
	}
	return 0;
}

/* QEMU's CPU time so far, user and system seconds (all its threads), the
 * wall clock and its nice value: { user, system, wall, nice }; NaN when
 * /proc says nothing. */
static void qemu_cpu(pid_t pid, double out[4])
{
	char path[64], *text = NULL, *p;
	unsigned long long ut = 0, st = 0;
	long long nice = 0;
	long tck = sysconf(_SC_CLK_TCK);

	out[0] = out[1] = out[3] = NAN;
	out[2] = (double)clock_ns() / NSEC_PER_SEC;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pid <= 0 || read_file(path, &text) < 0)
		return;
	/* after the command's ")": state is field 3, utime and stime 14 and 15, nice 19 */
	p = strrchr(text, ')');
	if (p && tck > 0 && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %lld", &ut,
				   &st, &nice) == 3) {
		out[0] = (double)ut / (double)tck;
		out[1] = (double)st / (double)tck;
		out[3] = nice >= -20 && nice <= 19 ? (double)nice : NAN;
	}
	free(text);
}

/* QEMU's CPU over one RUN, in the notes of each suite of its document:
 * what the host paid for what the guest measured (the NIC models' cost),
 * and the nice value QEMU ran at (the nice key's, as /proc says it). */
static int host_cost(json_t *doc, const double a[4], const double b[4], unsigned threads)
{
	double wall = b[2] - a[2], user = b[0] - a[0], sys = b[1] - a[1];
	json_t *s;
	size_t i;

	if (!isfinite(user) || !isfinite(sys) || wall <= 0)
		return 0; /* not measured: nothing said */
	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		json_t *notes = json_object_get(s, "notes");

		if (!json_is_object(notes))
			continue;
		if (json_object_set_new(notes, "qemu_cpu_user_s", json_real(user)) < 0 ||
		    json_object_set_new(notes, "qemu_cpu_system_s", json_real(sys)) < 0 ||
		    json_object_set_new(notes, "qemu_wall_s", json_real(wall)) < 0 ||
		    (isfinite(b[3]) && json_object_set_new(notes, "qemu_nice", json_integer((json_int_t)b[3])) < 0) ||
		    (threads && json_object_set_new(notes, "qemu_vcpu_threads", json_integer(threads)) < 0))
			return -ENOMEM;
	}
	return 0;
}

/* QEMU's CPU per second while the guest runs one RUN (issue 28): a sample
 * of /proc/PID/stat at the RUN's start, at each of the guest's PROGRESS
 * heartbeats (the agent sends one a second, and one at once when a new
 * case begins) and at its RESULT; each point is QEMU's CPU time (all its
 * threads, user + system) over the interval since the sample before / the
 * interval's length, in % of one host CPU. An interval belongs to the case
 * the guest's PROGRESS named at its start, by its test and place among the
 * test's cases (a document of one case takes the whole RUN); the time before the first case (the guest's start-up) to
 * none. /proc counts in clock ticks (10 ms): a point of d seconds is
 * within 2 ticks / d, so intervals are at least HOST_CPU_MIN_S, and at a
 * case's end (its last, shorter interval) HOST_CPU_END_MIN_S, else joined
 * to the point before them. */
#define HOST_CPU_SERIES "qemu_host_cpu"
#define HOST_CPU_MIN_S 0.5
#define HOST_CPU_END_MIN_S 0.1
#define HOST_CPU_MAX_POINTS 100000 /* 27 h of heartbeats; a RUN has 1 h at most */

struct host_cpu {
	const struct lab_run_opts *o; /* for guest_progress */
	pid_t pid;
	size_t ncase, first;
	char step[64];                /* the case's test, and the first of its cases named */
	double last[4];               /* the last sample kept (qemu_cpu) */
	struct lab_cpu_point *pts;
	size_t n, cap;
};

static void host_cpu_begin(struct host_cpu *h, const struct lab_run_opts *o, pid_t pid)
{
	*h = (struct host_cpu){ .o = o, .pid = pid };
	qemu_cpu(pid, h->last);
}

/* A sample, closing an interval of case h->ncase; end: the case ends here
 * (a new case's PROGRESS, or the RESULT). */
static void host_cpu_sample(struct host_cpu *h, bool end)
{
	double now[4], dt;
	struct lab_cpu_point *p = h->n ? &h->pts[h->n - 1] : NULL;

	qemu_cpu(h->pid, now);
	dt = now[2] - h->last[2];
	if (!isfinite(now[0]) || !isfinite(now[1]) || !isfinite(h->last[0]) || !isfinite(h->last[1])) {
		memcpy(h->last, now, sizeof(now)); /* not measured: no point across it */
		return;
	}
	if (dt < (end ? HOST_CPU_END_MIN_S : HOST_CPU_MIN_S)) {
		if (!end)
			return; /* the next sample closes a longer interval */
		if (p && p->ncase == h->ncase && p->t1 == h->last[2]) {
			p->t1 = now[2];
			p->cpu1 = now[0] + now[1];
		}
		memcpy(h->last, now, sizeof(now));
		return;
	}
	if (h->n == h->cap) {
		size_t ncap = h->cap ? 2 * h->cap : 64;

		if (h->cap >= HOST_CPU_MAX_POINTS || !(p = realloc(h->pts, ncap * sizeof(*p)))) {
			memcpy(h->last, now, sizeof(now));
			return; /* bounded: later seconds go without points */
		}
		h->pts = p;
		h->cap = ncap;
	}
	h->pts[h->n++] = (struct lab_cpu_point){ .ncase = h->ncase, .first = h->first, .t0 = h->last[2], .t1 = now[2],
						 .cpu0 = h->last[0] + h->last[1], .cpu1 = now[0] + now[1] };
	memcpy(h->pts[h->n - 1].step, h->step, sizeof(h->step));
	memcpy(h->last, now, sizeof(now));
}

/* The guest's PROGRESS: drawn, and a sample of QEMU's CPU. */
static void guest_progress(void *arg, const struct proto_msg *m);
static void host_cpu_progress(void *arg, const struct proto_msg *m)
{
	struct host_cpu *h = arg;
	bool next = m->ncases && m->ncase != h->ncase;

	guest_progress((void *)h->o, m);
	/* the interval up to now was the case named before */
	host_cpu_sample(h, next);
	if (next) {
		/* the case by its test and its place among the test's cases, not
		 * by its number in the RUN: a case that failed or was skipped
		 * before its first repetition (vmexit.cntvct on x86) has a number
		 * and no place in the document; it is the last its test began.
		 * A case the agent did not name (over within 0.1 s) still has its
		 * number: the place is the number less the test's first named */
		bool same = m->steplen == strlen(h->step) && !strncmp(m->step, h->step, m->steplen);

		if (!same)
			h->first = m->ncase;
		snprintf(h->step, sizeof(h->step), "%.*s", (int)m->steplen, m->step);
		h->ncase = m->ncase;
	}
}

/* The points of each case into its "series", as repetition 1's: the
 * series of a case spans the case (warm-up and every repetition), t_s from
 * the start of its first interval. A series of that name the guest's
 * document already carried is removed first: only the host measures it. */
int lab_host_cpu_attach(json_t *doc, const struct lab_cpu_point *cpu, size_t npts)
{
	size_t ncases = 0, si, ti, ci;
	json_t *s, *t, *c;
	double *tv, *vv;
	int r = 0;

	json_array_foreach(json_object_get(doc, "suites"), si, s)
		json_array_foreach(json_object_get(s, "tests"), ti, t)
			ncases += json_array_size(json_object_get(t, "cases"));
	tv = malloc((npts ? npts : 1) * sizeof(*tv));
	vv = malloc((npts ? npts : 1) * sizeof(*vv));
	if (!tv || !vv) {
		r = -ENOMEM;
		goto out;
	}
	json_array_foreach(json_object_get(doc, "suites"), si, s)
		json_array_foreach(json_object_get(s, "tests"), ti, t)
			json_array_foreach(json_object_get(t, "cases"), ci, c) {
				json_t *series, *pts, *o;
				unsigned bucket = 1;
				size_t n = 0;
				double origin = NAN;
				char step[160];

				snprintf(step, sizeof(step), "%s.%s", json_string_value(json_object_get(s, "name")) ?: "",
					 json_string_value(json_object_get(t, "name")) ?: "");
				/* the host's figure only: a series a guest sent under its name is dropped */
				series = json_object_get(c, "series");
				for (size_t k = json_array_size(series); k-- > 0;)
					if (!strcmp(json_string_value(json_object_get(json_array_get(series, k), "name")) ?: "",
						    HOST_CPU_SERIES))
						json_array_remove(series, k);
				if (series && !json_array_size(series))
					json_object_del(c, "series");
				/* repetition 1 must be one the case has */
				if (json_integer_value(json_object_get(c, "repetitions")) < 1)
					continue;
				for (size_t i = 0; i < npts; i++) {
					const struct lab_cpu_point *p = &cpu[i];

					/* a document of one case takes the guest's start-up too */
					if (!(ncases == 1 && !p->ncase) &&
					    (!p->ncase || p->ncase < p->first || p->ncase - p->first != ci ||
					     strcmp(p->step, step)))
						continue;
					if (isnan(origin))
						origin = p->t0;
					tv[n] = p->t1 - origin;
					/* a tick's rounding never makes CPU time run backwards into a negative rate */
					vv[n++] = p->cpu1 > p->cpu0 ? 100 * (p->cpu1 - p->cpu0) / (p->t1 - p->t0) : 0;
				}
				if (!n)
					continue;
				n = vmb_series_downsample(tv, vv, n, VMB_SERIES_MAX, &bucket);
				pts = json_array();
				for (size_t i = 0; pts && i < n; i++)
					if (json_array_append_new(pts, json_pack("[f, f]", tv[i], vv[i])) < 0) {
						json_decref(pts);
						pts = NULL;
					}
				o = pts ? json_pack("{s:s, s:s, s:i, s:i, s:o}", "name", HOST_CPU_SERIES, "unit", "%", "rep", 1,
						    "bucket", (int)bucket, "points", pts)
					: NULL;
				series = json_object_get(c, "series");
				if (!series && o) {
					series = json_array();
					if (!series || json_object_set_new(c, "series", series) < 0)
						series = NULL;
				}
				if (!o || !series || json_array_append_new(series, o) < 0) {
					r = -ENOMEM;
					goto out;
				}
			}
out:
	free(tv);
	free(vv);
	return r;
}

/* The bytes QEMU has had written to storage so far (all its threads):
 * write_bytes of /proc/PID/io, what its files and devices on the host
 * received from it; NaN when /proc does not say. */
static double qemu_write_bytes(pid_t pid)
{
	char path[64], *text = NULL, *p;
	unsigned long long v;
	double out = NAN;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	if (pid <= 0 || read_file(path, &text) < 0)
		return NAN;
	p = strstr(text, "\nwrite_bytes: ");
	if (p && sscanf(p, "\nwrite_bytes: %llu", &v) == 1)
		out = (double)v;
	free(text);
	return out;
}

int lab_write_amplification(double host_bytes, double guest_bytes, double *amp)
{
	double a = host_bytes / guest_bytes;

	if (!isfinite(host_bytes) || !isfinite(guest_bytes) || !(host_bytes > 0) || !(guest_bytes > 0) ||
	    !isfinite(a) || !(a > 0))
		return -EINVAL;
	*amp = a;
	return 0;
}

/* The host's writes over one RUN, in the notes of each suite of its
 * document that counted the bytes its device received
 * (device_write_bytes): host_write_bytes and their ratio,
 * host_write_amplification, each only when measured. */
static int host_writes(json_t *doc, double before, double after)
{
	double host = after - before;
	json_t *s;
	size_t i;

	if (!isfinite(host) || host < 0)
		return 0; /* not measured: nothing said */
	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		json_t *notes = json_object_get(s, "notes");
		const json_t *dev = json_object_get(notes, "device_write_bytes");
		double amp;
		int64_t guest = -1;

		/* a note of the guest's: a number, or a decimal string (as notes are made) */
		if (json_is_integer(dev))
			guest = json_integer_value(dev);
		else if (!json_is_string(dev) || parse_i64(json_string_value(dev), 0, INT64_MAX, &guest) < 0)
			guest = -1;
		if (!json_is_object(notes) || guest < 0)
			continue;
		if (json_object_set_new(notes, "host_write_bytes", json_integer((json_int_t)host)) < 0 ||
		    (lab_write_amplification(host, (double)guest, &amp) == 0 &&
		     json_object_set_new(notes, "host_write_amplification", json_real(amp)) < 0))
			return -ENOMEM;
	}
	return 0;
}

/* The options the lab's run gives every RUN of this suite: the run-level
 * keys, and the suite's own (RUN refuses another suite's). */
static int add_run_opts(json_t *opts, const json_t *run_opts, const struct vmb_suite *suite)
{
	size_t sl = suite ? strlen(suite->name) : 0;
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)run_opts, k, v)
		if ((!strchr(k, '.') || (suite && !strncmp(k, suite->name, sl) && k[sl] == '.')) &&
		    json_object_set(opts, k, v) < 0)
			return -ENOMEM;
	return 0;
}

/* Where a suite that measures storage works: with a filesystem, its
 * directory on it and a test file of --disk-size (the host's size); with
 * fs=none, the raw device (ours to overwrite) and its file tests skipped
 * with the reason, rather than measuring the guest's tmpfs. */
static int lab_fs_opts(json_t *opts, const struct lab_run_opts *o, const struct vmb_suite *suite,
		       const char *scratch, const struct lab_fs *fs, bool share)
{
	const struct vmb_scratch *sc = suite ? suite->scratch : NULL;
	char key[96], devpath[64];
	int r = 0;

	if (!sc)
		return 0;
	/* a share mounted there takes the place of the filesystem */
	if (fs || share) {
		snprintf(key, sizeof(key), "%s.%s", suite->name, sc->dir_opt);
		r = sc->dir_opt ? json_object_set_new(opts, key, json_string(PROTO_MOUNTPOINT)) : 0;
		snprintf(key, sizeof(key), "%s.%s", suite->name, sc->size_opt ? sc->size_opt : "");
		if (r == 0 && sc->size_opt)
			r = json_object_set_new(opts, key, json_string(o->disk_size));
		return r;
	}
	snprintf(key, sizeof(key), "%s.%s", suite->name, sc->device_opt ? sc->device_opt : "");
	snprintf(devpath, sizeof(devpath), "/dev/%s", scratch);
	if (sc->device_opt && (json_object_set_new(opts, key, json_string(devpath)) < 0 ||
			       json_object_set_new(opts, "destructive", json_true()) < 0))
		return -ENOMEM;
	return json_object_set_new(opts, "skip-fs-tests", json_string(LAB_FS_NONE_REASON));
}

/* The database the configuration's db key names (db=mariadb: the guest's
 * MariaDB) in the option of a suite's db_opt (app.db); the suite's own
 * default (SQLite) otherwise. */
static int db_item_opts(const struct lab_config *c, const struct vmb_suite *suite, json_t *opts)
{
	const struct lab_db *db = lab_config_db(c);
	char key[96];

	if (!db || !db->url || !suite || !suite->db_opt)
		return 0;
	snprintf(key, sizeof(key), "%s.%s", suite->name, suite->db_opt);
	return json_object_set_new(opts, key, json_string(db->url)) < 0 ? -ENOMEM : 0;
}

/* Does item (app, app.apt) run a test that needs a package mirror (its
 * suite's mirror names it)? */
static bool mirror_item(const char *item)
{
	const struct vmb_suite *s = lab_item_suite(item);
	const char *dot = strchr(item, '.');

	return s && s->mirror && (!dot || !strcmp(dot + 1, s->mirror->test));
}

/* app.apt in a distribution guest on a link: the lab's mirror of the
 * image's own packages (src/lab/mirror.h) as app.apt-mirror, and
 * --destructive, as the reinstall asks (the root disk is QEMU's snapshot:
 * nothing of it outlives the boot). Where the mirror cannot be made the
 * guest's test is skipped for want of a mirror, and the host says why. */
static int mirror_item_opts(const struct lab_run_opts *o, struct boot *b, const char *item, json_t *opts, char *err,
			    size_t errlen)
{
	const struct lab_image_row *img = lab_config_image(b->c);
	const struct vmb_suite *s = lab_item_suite(item);
	char debs[PATH_MAX], why[512], key[96];
	int r;

	if (!img->distro || !o->cache || !b->net.be || !lab_net_linked(b->c, &b->paths))
		return 0;
	if (!b->mirror.pid) {
		lab_distro_debs_dir(o->cache, lab_distro_find(img->distro), b->c->v[LAB_ARCH], debs, sizeof(debs));
		r = lab_mirror_start(&b->mirror, b->pid, debs, b->dir, why, sizeof(why));
		if (r < 0) {
			log_warn("%s: %s.%s will be skipped for want of it", why, s->name, s->mirror->test);
			return 0;
		}
	}
	snprintf(key, sizeof(key), "%s.%s", s->name, s->mirror->url_opt);
	if (json_object_set_new(opts, key, json_string(b->mirror.url)) < 0 ||
	    json_object_set_new(opts, "destructive", json_true()) < 0)
		return errf(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

/* The options the guest's run of item gets: the lab run's own, then what
 * the lab gives the guest (a step each: the peer at the other end of its
 * NIC, where a suite that measures storage works). NULL: out of memory. */
static json_t *item_opts(const struct lab_run_opts *o, const struct vmb_suite *suite, const char *scratch,
			 const struct lab_net *net, const struct lab_fs *fs, bool share)
{
	json_t *opts = json_object();

	if (!opts || add_run_opts(opts, o->run_opts, suite) < 0 || lab_net_item_opts(net, suite, opts) < 0 ||
	    lab_fs_opts(opts, o, suite, scratch, fs, share) < 0) {
		json_decref(opts);
		return NULL;
	}
	return opts;
}

/* The guest's PROGRESS: the case of how many and the time left when its
 * run says them, else the time since the RUN began. */
static void guest_progress(void *arg, const struct proto_msg *m)
{
	const struct lab_run_opts *o = arg;
	char step[PROTO_MAX_WHAT + PROTO_MAX_DETAIL + 64], left[32];

	if (!m->ncases) {
		proto_quote(step, sizeof(step), m->text, strcspn(m->text, " "));
		progress_draw(o, "[%.0f s] %s", m->seconds, step);
		return;
	}
	proto_quote(step, sizeof(step), m->step, PROTO_MAX_WHAT + PROTO_MAX_DETAIL + 1);
	if (m->left < 0)
		snprintf(left, sizeof(left), "%.0f s so far", m->seconds);
	else
		str_time_left(m->left, left, sizeof(left));
	progress_draw(o, "[case %zu/%zu, %s] %s", m->ncase, m->ncases, left, step);
}

/* Every item but boot is a suite or test the guest runs (cpu,
 * disk.randread...): their results in one document, *doc. */
static int run_items(const struct lab_run_opts *o, struct boot *b, const char *scratch, const struct lab_fs *fs,
		     json_t **doc, char *err, size_t errlen)
{
	double cpu0[4], cpu1[4], wb0, wb1;
	struct host_cpu hc = { 0 };
	int r = 0;

	for (const char *p = o->suites; r == 0 && p && *p;) {
		const char *comma = strchr(p, ',');
		const struct vmb_suite *suite;
		char what[64];
		json_t *opts, *d = NULL;

		snprintf(what, sizeof(what), "%.*s", comma ? (int)(comma - p) : (int)strlen(p), p);
		p = comma ? comma + 1 : NULL;
		if (lab_host_measured(what))
			continue;
		suite = lab_item_suite(what);
		snprintf(b->step, sizeof(b->step), "run %s", what);
		opts = item_opts(o, suite, scratch, &b->net, fs, lab_share_find(b->c->v[LAB_SHARE]) != NULL);
		if (opts && db_item_opts(b->c, suite, opts) < 0) {
			json_decref(opts);
			opts = NULL;
		}
		if (!opts) {
			r = errf(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		if (mirror_item(what) && (r = mirror_item_opts(o, b, what, opts, err, errlen)) < 0) {
			json_decref(opts);
			break;
		}
		qemu_cpu(b->pid, cpu0);
		wb0 = qemu_write_bytes(b->pid);
		free(hc.pts);
		host_cpu_begin(&hc, o, b->pid);
		/* the host adopts the guest's result: only what it asked for,
		 * the id, labels and fingerprint (the HELLO's, checked above) its own */
		b->conn.on_progress = host_cpu_progress;
		b->conn.progress_arg = &hc;
		if (b->net.dir && suite && (suite->flags & VMB_SUITE_NET_PEER)) {
			r = lab_net_run(&b->net, &b->conn, what, opts, b->fp, o->run_table, &d, err, errlen);
		} else {
			r = proto_host_run(&b->conn, what, opts, b->fp, 120000, 3600000, &d);
			if (r < 0)
				errf(err, errlen, r, "%s", b->conn.err);
		}
		progress_draw(o, "%s", "");
		b->conn.on_progress = NULL;
		json_decref(opts);
		if (r < 0)
			break;
		host_cpu_sample(&hc, true);
		qemu_cpu(b->pid, cpu1);
		wb1 = qemu_write_bytes(b->pid);
		if (host_cost(d, cpu0, cpu1, b->vcpu_threads) < 0 || host_writes(d, wb0, wb1) < 0 ||
		    lab_host_cpu_attach(d, hc.pts, hc.n) < 0) {
			json_decref(d);
			r = errf(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		if (suite && suite->scratch)
			scratch_on_tmpfs(d, b->dir);
		if (!*doc) {
			*doc = d;
			continue;
		}
		r = json_array_extend(json_object_get(*doc, "suites"), json_object_get(d, "suites"));
		json_decref(d);
		if (r < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory");
	}
	free(hc.pts);
	if (r < 0)
		return r;
	if (!*doc) {
		/* only boot was asked: the guest's fingerprint still belongs to the result */
		struct vmb_results empty = { 0 };

		r = doc_from_results(&empty, &(struct doc_meta){ .fingerprint = b->fp, .started = wall_time_s(),
								 .ended = wall_time_s() }, doc, err, errlen);
	}
	return r;
}

/* Is an item's suite one that pred says yes of? */
static bool suite_asked(const char *items, bool (*pred)(const struct vmb_suite *s))
{
	char what[64];

	for (const char *p = items; p && *p; p += strcspn(p, ","), p += *p == ',') {
		const struct vmb_suite *s;

		snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
		s = lab_item_suite(what);
		if (s && pred(s))
			return true;
	}
	return false;
}

/* a suite that measures over a NIC (net) */
static bool net_peer(const struct vmb_suite *s)
{
	return s->flags & VMB_SUITE_NET_PEER;
}

/* a suite that measures the disk under test (disk, app) */
static bool on_scratch(const struct vmb_suite *s)
{
	return s->scratch != NULL;
}

/* The host's side of the scratch disk: backend (the LAB_BACKENDS row),
 * file (the image, or the host block device), format, cache, and overlay
 * (snapshot=on: the qcow2 file QEMU writes to, else null). NULL: no memory. */
static json_t *host_disk_record(const struct lab_config *c, const struct boot *b)
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
static int prepare_fs(const struct lab_config *c, struct boot *b, const char *scratch, json_t **fsrec, char *err,
		      size_t errlen)
{
	const struct lab_fs *fs = lab_config_fs(c);
	const struct lab_share *share = lab_share_find(c->v[LAB_SHARE]);
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
static int host_measure(const struct lab_config *c, const struct lab_run_opts *o, struct boot *b, const char *scratch,
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
		const struct lab_fs *fs = suite_asked(o->suites, on_scratch) ? lab_config_fs(c) : NULL;
		size_t n = 0;

		if (row->when != LAB_HOST_FIRST_BOOT || !lab_host_asked(s, o->suites, NULL))
			continue;
		snprintf(b->step, sizeof(b->step), "run %s", s->name);
		for (; s->host && n < sizeof(loads) / sizeof(loads[0]) && s->host->loads[n]; n++)
			if (!(loads[n] = item_opts(o, lab_item_suite(s->host->loads[n]), scratch, &b->net, fs, false)))
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

/* The first boot: pinned when asked, checked, the filesystem made, the
 * suites run in it, then the warm boots in this same QEMU. */
static int first_boot(const struct lab_config *c, const struct lab_run_opts *o, struct boot *b, json_t **doc,
		      struct lab_boot_series series[BOOT_NTESTS], char *err, size_t errlen)
{
	const char *scratch = NULL;
	json_t *fsrec = NULL;
	int r = 0;

	snprintf(b->step, sizeof(b->step), "find the vCPU threads");
	r = vcpu_threads(b, !strcmp(c->v[LAB_PIN], "on"), err, errlen);
	snprintf(b->step, sizeof(b->step), "check the guest");
	if (r == 0)
		r = check_guest(c, b, &scratch, err, errlen);
	/* a link, and a suite to measure over it: its other end */
	b->net.qemu = b->pid;
	b->net.be = lab_backend_of(&b->paths, LAB_NIC);
	if (r == 0 && lab_net_linked(c, &b->paths) && suite_asked(o->suites, net_peer)) {
		r = lab_net_start(&b->net, &b->conn, c, err, errlen);
		if (r == 0)
			vmb_test_stop_point("lab-net-up");
	}
	/* the filesystem, made only for the suites that measure the disk under test */
	snprintf(b->step, sizeof(b->step), "make the filesystem");
	if (r == 0 && suite_asked(o->suites, on_scratch))
		r = prepare_fs(c, b, scratch, &fsrec, err, errlen);
	if (r == 0)
		r = run_items(o, b, scratch, lab_config_fs(c), doc, err, errlen);
	if (r == 0)
		r = host_measure(c, o, b, scratch, *doc, err, errlen);
	/* the document says what its file tests ran on */
	if (r == 0 && fsrec && json_object_set_new(*doc, "filesystem", fsrec) < 0)
		r = errf(err, errlen, -ENOMEM, "out of memory");
	else if (r < 0)
		json_decref(fsrec);
	if (r == 0 && lab_config_device(c, LAB_NIC) && b->net.be) {
		/* which back end carried the traffic */
		json_t *labels = json_object_get(*doc, "labels");

		if (!json_is_object(labels) && (labels = json_object()) && json_object_set_new(*doc, "labels", labels) < 0)
			labels = NULL;
		if (!labels || json_object_set_new(labels, "net_backend", json_string(b->net.be->name)) < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory");
	}
	/* warm boots in this same QEMU, after the suites of the first boot */
	for (unsigned w = 0; r == 0 && lab_host_asked(&boot_suite, o->suites, BOOT_TEST_WARM) &&
			     w < (o->boots ? o->boots : 1) && !vmb_stop_requested();
	     w++) {
		snprintf(b->step, sizeof(b->step), "warm boot %u", w + 1);
		r = warm_boot(b, o, err, errlen);
		if (r == 0)
			boot_phases_of(b, series[BOOT_WARM].ph[series[BOOT_WARM].n++]);
	}
	/* then the guest's own reboots, as many */
	for (unsigned w = 0; r == 0 && lab_host_asked(&boot_suite, o->suites, BOOT_TEST_REBOOT) &&
			     w < (o->boots ? o->boots : 1) && !vmb_stop_requested();
	     w++) {
		struct lab_boot_series *se = &series[BOOT_REBOOT];

		snprintf(b->step, sizeof(b->step), "reboot %u", w + 1);
		r = reboot_boot(b, o, &se->shutdown[se->n], err, errlen);
		if (r == 0)
			boot_phases_of(b, se->ph[se->n++]);
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
static void boot_evidence(const struct boot *b, struct lab_failure *f)
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

int lab_run_config(const struct lab_config *c, const struct lab_run_opts *o, json_t **out, struct lab_failure *f,
		   char *err, size_t errlen)
{
	unsigned boots = o->boots ? o->boots : 1;
	struct lab_boot_series series[BOOT_NTESTS] = { 0 };
	json_t *doc = NULL;
	int r = 0;

	memset(f, 0, sizeof(*f));
	for (size_t t = 0; t < BOOT_NTESTS; t++)
		if (!(series[t].ph = calloc(boots, sizeof(*series[t].ph))))
			r = -ENOMEM;
	if (r == 0 && !(series[BOOT_REBOOT].shutdown = calloc(boots, sizeof(double))))
		r = -ENOMEM;
	for (unsigned i = 0; i < boots && r == 0; i++) {
		struct boot b;

		r = boot_once(c, o, &b, err, errlen);
		if (r == 0) {
			vmb_test_stop_point("lab-booted");
			if (vmb_stop_requested())
				r = errf(err, errlen, -EINTR, "interrupted");
		}
		if (r == 0) {
			boot_phases_of(&b, series[BOOT_COLD].ph[series[BOOT_COLD].n++]);
			if (i == 0)
				r = first_boot(c, o, &b, &doc, series, err, errlen);
		}
		/* a guest that failed is not asked to shut down: it may hang */
		if (r == 0)
			r = shut_down(&b, err, errlen);
		else
			boot_kill(&b);
		if (r < 0)
			boot_evidence(&b, f);
		boot_gone(&b);
	}
	/* the suites measured from the boots (boot) */
	for (size_t k = 0; r == 0 && k < lab_host_nrows; k++) {
		const struct lab_host_row *row = &lab_host_rows[k];
		struct lab_host_req rq = { .suite = row->suite, .c = c, .o = o, .series = series };
		json_t *bs = NULL;

		if (row->when != LAB_HOST_BOOTS || !lab_host_asked(row->suite, o->suites, NULL))
			continue;
		rq.phase = config_phases(c, &rq.nphase);
		r = row->measure(&rq, &bs, err, errlen);
		if (r == 0 && json_array_append_new(json_object_get(doc, "suites"), bs) < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory storing the boot phases");
	}
	for (size_t t = 0; t < BOOT_NTESTS; t++) {
		free(series[t].ph);
		free(series[t].shutdown);
	}
	progress_draw(o, "%s", ""); /* also after a failure: its message comes next */
	if (r < 0) {
		json_decref(doc);
		return r;
	}
	*out = doc;
	return 0;
}

/* A guest kept booted for lab contend: the boot, checked. */
struct lab_guest {
	struct boot b;
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
	int r = hv->vcpu_threads ? hv->open(g->b.ctl, 10000, &m, why, sizeof(why))
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
	r = boot_spawn(c, o, &g->b, &g->t0, err, errlen);
	if (r < 0) {
		boot_kill(&g->b);
		boot_gone(&g->b);
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
	r = boot_await(g->o, &g->b, g->t0, err, errlen);
	if (r == 0 && vmb_stop_requested())
		r = errf(err, errlen, -EINTR, "interrupted");
	if (r == 0) {
		snprintf(g->b.step, sizeof(g->b.step), "find the vCPU threads");
		r = guest_vcpus(g, err, errlen);
	}
	if (r == 0) {
		snprintf(g->b.step, sizeof(g->b.step), "check the guest");
		r = check_guest(g->c, &g->b, &g->scratch, err, errlen);
	}
	if (r < 0)
		boot_evidence(&g->b, f);
	return r;
}

pid_t lab_guest_pid(const struct lab_guest *g)
{
	return g->b.pid;
}

json_t *lab_guest_opts(const struct lab_guest *g, const struct lab_run_opts *o, const char *item)
{
	json_t *opts = item_opts(o, lab_item_suite(item), g->scratch, &g->b.net, NULL, false);

	if (opts && db_item_opts(g->c, lab_item_suite(item), opts) < 0) {
		json_decref(opts);
		return NULL;
	}
	return opts;
}

int lab_guest_net_start(struct lab_guest *g, char *err, size_t errlen)
{
	int r;

	g->b.net.qemu = g->b.pid;
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
	qemu_cpu(g->b.pid, cpu0);
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
	qemu_cpu(g->b.pid, cpu1);
	if (host_cost(d, cpu0, cpu1, g->b.vcpu_threads) < 0) {
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
		r = shut_down(&g->b, err, errlen);
	else
		boot_kill(&g->b);
	boot_gone(&g->b);
	free(g->vcpus);
	free(g);
	return r;
}
