/* One boot of a guest (labboot.h). */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "labboot.h"
#include "../guest/fs.h"
#include "kvmguest.h"
#include "modules.h"
#include "procs.h"
#include "workdir.h"
#include "../core/clock.h"
#include "../core/str.h"
#include "../core/banned.h"

/* A line of progress on the terminal in place of the last, as `run`
 * draws its own; an empty one clears it. */
void lab_progress_draw(const struct lab_run_opts *o, const char *fmt, ...)
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

pid_t lab_boot_netns(const struct lab_boot *b)
{
	return b->link.holder ? b->link.holder : b->pid;
}

/* The SSH connection being tried, closed; the next try after delay s. */
static void ssh_close(struct lab_boot *b, double now, double delay)
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
static void boot_reaped(struct lab_boot *b)
{
	lab_proc_untrack(b->pid);
	b->pid = 0;
}

/* QEMU is gone (or never started): the back ends torn down, the work
 * directory removed. */
void lab_boot_gone(struct lab_boot *b)
{
	lab_net_stop(&b->net);
	lab_mirror_stop(&b->mirror);
	lab_link_down(&b->link);
	if (b->set_up)
		lab_backends_teardown(b->c, &b->paths);
	b->set_up = false;
	if (b->dir_made)
		lab_work_dir_remove(b->dir);
	b->dir_made = false;
}

/* A boot that failed, ended at once: QEMU killed (a guest that hangs would
 * not answer BYE) and reaped, the channel closed. The files stay. */
void lab_boot_kill(struct lab_boot *b)
{
	/* a back end whose guest is no process of the lab's (libvirt) destroys it by its control address */
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
static int exited(struct lab_boot *b, int status, bool at_start, char *err, size_t errlen)
{
	char why[600];
	int r = b->hv->exit_why(&(struct lab_hv_exit){ .c = b->c, .p = &b->paths, .log = b->qemu_log, .status = status,
						      .at_start = at_start }, why, sizeof(why));

	return errf(err, errlen, r < 0 ? r : -ECHILD, "%s", why);
}

/* Watch the console for the first output and the init line. */
static void watch_console(struct lab_boot *b, double now)
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
static int ssh_poll(struct lab_boot *b, double now, char *err, size_t errlen)
{
	struct pollfd pf;
	ssize_t n;
	int r;

	if (b->t_ssh || now < b->ssh_retry)
		return 0;
	if (b->ssh_fd < 0) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(LAB_SSH_PORT) };
		int fd = lab_net_socket_in(lab_boot_netns(b), AF_INET, SOCK_STREAM | SOCK_NONBLOCK);

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
static int await_ssh(struct lab_boot *b, uint64_t t0, uint64_t deadline, const struct lab_run_opts *o, char *err,
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
static void watch_close(struct lab_boot *b)
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
 * -ENOEXEC with why in err and b->final set; -ENOTCONN with why when the
 * hypervisor is lost (libvirt's daemon); else 0. */
static int stopped_for_good(struct lab_boot *b, double now, char *err, size_t errlen)
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
	if (b->watch) {
		int r = b->hv->run_state(b->watch, state, sizeof(state), &final, why, sizeof(why));

		/* the hypervisor lost (libvirt's daemon): why, not a guest's verdict */
		if (r == -ENOTCONN)
			return errf(err, errlen, r, "%s", why);
		if (r < 0) {
			watch_close(b); /* not asked again: the log is read instead */
			state[0] = '\0';
		}
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
		    state, kvm ? ": " : "", words, kvm && b->c->accel == LAB_ACCEL_KVM ?
		    "; this machine's KVM cannot run the guest (accel=tcg emulates it)" : "");
}

static int await_hello_loop(struct lab_boot *b, uint64_t t0, uint64_t deadline, const struct lab_run_opts *o, char *err,
			    size_t errlen);

/* HELLO on the agent channel, watching the console meanwhile for the
 * earlier phases and QEMU for a guest stopped for good; times are seconds
 * after t0. */
static int await_hello(struct lab_boot *b, uint64_t t0, uint64_t deadline, const struct lab_run_opts *o, char *err,
		       size_t errlen)
{
	int r;

	b->watch_tried = false;
	b->watch_next = 0;
	r = await_hello_loop(b, t0, deadline, o, err, errlen);
	/* QMP takes one client at a time: the lab's next one is another */
	watch_close(b);
	/* a guest that ran under KVM, or that KVM stopped: what `vmbench info` says */
	if (b->c->accel == LAB_ACCEL_KVM && (r == 0 || b->final)) {
		char why[400] = "";

		if (b->final)
			(void)b->hv->exit_why(&(struct lab_hv_exit){ .c = b->c, .p = &b->paths, .log = b->qemu_log,
								    .status = -1 }, why, sizeof(why));
		(void)lab_kvm_verdict_save(r == 0, *why ? why : NULL);
	}
	return r;
}

static int await_hello_loop(struct lab_boot *b, uint64_t t0, uint64_t deadline, const struct lab_run_opts *o, char *err,
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
			lab_progress_draw(o, "%s", "");
			return ssh ? await_ssh(b, t0, deadline, o, err, errlen) : 0;
		}
		if ((unsigned)now != drawn) {
			drawn = (unsigned)now;
			lab_progress_draw(o, "[booting, %u s] %s", drawn, !b->t_output ? "firmware" : !b->t_init ? "kernel"
								      : ssh && !b->t_ssh ? "userspace (SSH)" : "agent");
		}
		if (r != -ETIMEDOUT && r != -EPIPE)
			return errf(err, errlen, r, "%s", b->conn.err);
		/* the console is the caller's evidence (lab_failure): not in these words */
		if (b->pid > 0 && waitpid(b->pid, &status, WNOHANG) == b->pid) {
			boot_reaped(b);
			return exited(b, status, false, err, errlen);
		}
		/* libvirt's daemon lost: the lab ended its QEMU (hv_libvirt.c), why */
		if (r == -EPIPE && lab_hv_libvirt_lost())
			return exited(b, -1, false, err, errlen);
		if (r == -EPIPE)
			return errf(err, errlen, -EPIPE, "the guest closed its agent channel before it said HELLO");
		r = stopped_for_good(b, now, err, errlen);
		if (r < 0)
			return r;
		if (clock_ns() > deadline || vmb_stop_requested())
			return errf(err, errlen, -ETIMEDOUT, "the guest did not say HELLO within %g s (--hello-timeout)",
				    o->hello_timeout_ms / 1e3);
	}
}

/* The back end of each device key: the disk's is --disk-format; the others
 * their first (NULL). */
static void backend_names(const struct lab_run_opts *o, const struct lab_config *c, const char *names[LAB_KEYS_MAX])
{
	for (int k = 0; k < (int)lab_nkeys; k++)
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

static int boot_prepare(const struct lab_config *c, const struct lab_run_opts *o, struct lab_boot *b, struct strv *argv,
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
	/* A firmware row that names a kernel file boots that file instead of
	 * the image's own. UEFI's row names the bzImage (vmlinuz): OVMF enters a
	 * kernel at its EFI entry point, which the bzImage has and the PVH
	 * vmlinux lacks. */
	if (lab_config_firmware(c) && lab_config_firmware(c)->kernel)
		snprintf(b->kernel, sizeof(b->kernel), "%s/%s", o->image_dir, lab_config_firmware(c)->kernel);
	snprintf(b->vars, sizeof(b->vars), "%s/vars.fd", b->dir);
	snprintf(b->initrd, sizeof(b->initrd), "%s/initrd.img", o->image_dir);
	snprintf(b->disk, sizeof(b->disk), "%s/disk.img", b->dir);
	if (b->hv->control(b->dir, b->ctl, sizeof(b->ctl)) < 0) {
		lab_boot_gone(b);
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
	if (c->boot && c->boot->file) {
		snprintf(b->boot_file, sizeof(b->boot_file), "%s/%s", o->image_dir, c->boot->file);
		b->paths.boot_file = b->boot_file;
	}
	backend_names(o, c, b->paths.backend);
	b->paths.backend[LAB_DISK] = lab_disk_backend_name(c, o->disk_format);
	/* a scratch disk of our own, behind the configuration's controller */
	if (parse_size(o->disk_size, 1 << 20, 1ull << 40, &b->paths.disk_size) < 0) {
		r = errf(why, sizeof(why), -EIO, "creating the scratch disk %s", b->disk);
	} else {
		/* with a filesystem, room for the test file of --disk-size and more */
		b->paths.disk_size = lab_fs_disk_size(c->share ? NULL : lab_config_fs(c),
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
	/* a hypervisor that opens the guest's tap by name: the link made for it */
	if (r == 0 && b->hv->link == LAB_HV_LINK_NAMED && lab_net_linked(c, &b->paths)) {
		r = lab_link_up(&b->link, lab_backend_of(&b->paths, LAB_NIC), c, why, sizeof(why));
		b->paths.tap_name = r == 0 ? b->link.tap : NULL;
	}
	if (r == 0)
		r = lab_firmware_setup(c, &b->paths, why, sizeof(why));
	if (r == 0)
		r = b->hv->define(c, &b->paths, false, false, argv, why, sizeof(why));
	if (r < 0) {
		lab_boot_gone(b);
		strv_clear(argv);
		return errf(err, errlen, r, "%s", why);
	}
	vmb_test_stop_point("lab-prepared"); /* tests kill the process here, its work directory made */
	return 0;
}

/* Connect to the agent's socket once QEMU has made it. */
static int connect_agent(struct lab_boot *b, uint64_t deadline, const struct lab_run_opts *o, char *err, size_t errlen)
{
	while (b->fd < 0) {
		int status, r;

		if (b->pid > 0 && waitpid(b->pid, &status, WNOHANG) == b->pid) {
			boot_reaped(b);
			return exited(b, status, true, err, errlen);
		}
		/* the back end's channel, once it is there (any failure but the
		 * hypervisor's loss: tried again) */
		r = b->hv->channel(b->agent, &b->fd);
		if (r == -ENOTCONN)
			return exited(b, -1, true, err, errlen);
		if (r < 0)
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
int lab_boot_spawn(const struct lab_config *c, const struct lab_run_opts *o, struct lab_boot *b, uint64_t *t0,
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
	if (r < 0) {
		/* the back end's own words on it where it wrote them (libvirt: the daemon's), else the errno's */
		char words[600] = "";

		if (b->hv->exit_why(&(struct lab_hv_exit){ .c = c, .p = &b->paths, .log = b->qemu_log, .status = -1 },
				    words, sizeof(words)) <= 0)
			words[0] = '\0';
		return errf(err, errlen, r, "starting the guest (%s): %s", b->hv->name, *words ? words : strerror(-r));
	}
	return 0;
}

/* Its second half: the agent's channel and HELLO. */
int lab_boot_await(const struct lab_run_opts *o, struct lab_boot *b, uint64_t t0, char *err, size_t errlen)
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

int lab_boot_once(const struct lab_config *c, const struct lab_run_opts *o, struct lab_boot *b, char *err, size_t errlen)
{
	uint64_t t0;
	int r = lab_boot_spawn(c, o, b, &t0, err, errlen);

	return r < 0 ? r : lab_boot_await(o, b, t0, err, errlen);
}

/* BYE, then QEMU's exit (killed after 30 s, a distribution's after 120 s):
 * 0, or why in err. QEMU is reaped either way; its files stay. */
int lab_boot_shut_down(struct lab_boot *b, char *err, size_t errlen)
{
	int r = b->fd >= 0 ? proto_host_bye(&b->conn, 10000) : -EPIPE;
	/* a distribution stops its services first (systemctl poweroff): longer under TCG */
	unsigned limit_s = lab_config_image(b->c)->root ? 120 : 30;

	snprintf(b->step, sizeof(b->step), "shut down");
	if (r < 0)
		errf(err, errlen, r, "the guest did not shut down cleanly after BYE: %s", b->conn.err);
	/* the guest powers off after BYE; QEMU then exits */
	if (b->hv->destroy(b->pid, b->ctl, (int)limit_s * 1000, NULL) == 1)
		r = errf(err, errlen, -ETIMEDOUT, "QEMU did not exit within %u s of the guest's BYE", limit_s);
	boot_reaped(b);
	lab_boot_kill(b);
	return r;
}

/* The guest booting again in the same QEMU from t0 (a reset): its marks
 * and HELLO, as a cold boot's from QEMU's start. */
static int await_again(struct lab_boot *b, uint64_t t0, const struct lab_run_opts *o, char *err, size_t errlen)
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
int lab_boot_warm(struct lab_boot *b, const struct lab_run_opts *o, char *err, size_t errlen)
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
int lab_boot_reboot(struct lab_boot *b, const struct lab_run_opts *o, double *shutdown, char *err, size_t errlen)
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
int lab_boot_vcpus(struct lab_boot *b, bool pin, char *err, size_t errlen)
{
	return lab_hv_vcpus(b->hv, b->ctl, pin, &b->vcpu_threads, err, errlen);
}

/* The phases a configuration's boot has: boot_phases, or with an SSH
 * server boot_ssh_phases. */
const struct boot_phase *lab_boot_phase_list(const struct lab_config *c, size_t *n)
{
	bool ssh = lab_config_image(c)->ssh;

	*n = ssh ? BOOT_SSH_NPHASES : BOOT_NPHASES;
	return ssh ? boot_ssh_phases : boot_phases;
}

/* The marks of a boot, in the order of the declared phases (boot_phases,
 * boot_ssh_phases): each phase is the time between two consecutive marks.
 * A mark seen after the next one (the SSH banner read in the poll after
 * HELLO) counts as that one: no phase is negative. */
void lab_boot_phases(const struct lab_boot *b, double ph[BOOT_MAXPHASES])
{
	double marks[BOOT_MAXPHASES + 1] = { 0, b->t_output, b->t_init, b->t_hello };
	size_t n;

	(void)lab_boot_phase_list(b->c, &n);
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
