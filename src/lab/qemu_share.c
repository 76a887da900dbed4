/* The share back ends (the share key's host sides, rows of LAB_BACKENDS
 * in qemu.h): a host directory of the lab's in the boot's work directory,
 * served to the guest by QEMU's own 9p server or by virtiofsd; their
 * QEMU arguments, setup and teardown, and the removal of what they leave. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qemu.h"
#include "qemu_rows.h"
#include "procs.h"
#include "../core/clock.h"
#include "../core/reclaim.h"
#include "../core/str.h"
#include "../core/banned.h"

/* "DIR/NAME" of the boot's work directory into buf; false when it does not fit */
static bool work_path(const struct lab_paths *p, const char *name, char *buf, size_t len)
{
	int n = p->work_dir ? snprintf(buf, len, "%s/%s", p->work_dir, name) : -1;

	return n > 0 && (size_t)n < len;
}

/* The shared directory, new (the guest's files go nowhere else) */
static int share_dir_make(const struct lab_paths *p, char *why, size_t len)
{
	char dir[256];

	if (!work_path(p, LAB_SHARE_DIR, dir, sizeof(dir)))
		return errf(why, len, -ENAMETOOLONG, "the shared directory's path is too long");
	if (mkdir(dir, 0700) < 0)
		return errf(why, len, -errno, "creating the shared directory %s: %s", dir, strerror(errno));
	return 0;
}

/* 9p: QEMU's own server on a local directory. security_model=none: the
 * guest's files are the QEMU user's files, its chmod and chown are not
 * kept; mapped-xattr would keep them in extended attributes, which costs
 * an xattr write per metadata change (measured with the share) and needs
 * a host filesystem that takes user xattrs (tmpfs before Linux 6.6 does
 * not) */
int lab_share_9p_args(struct lab_args *a, const struct lab_backend *be, const struct lab_config *c,
			 const struct lab_paths *p)
{
	char dir[256], esc[1024];

	(void)be, (void)c;
	if (!work_path(p, LAB_SHARE_DIR, dir, sizeof(dir)))
		return -ENAMETOOLONG;
	lab_push(a, "-fsdev");
	lab_push(a, "local,id=s0,path=%s,security_model=none", lab_arg_esc(a, dir, esc, sizeof(esc)));
	return 1;
}

/* QEMU here has the 9p server: its device list names virtio-9p-pci (a
 * QEMU built without virtfs, as some distributions ship, does not); asked
 * once per architecture */
static int qemu_has_9p(const char *arch, char *why, size_t len)
{
	static int known[2] = { 1, 1 }; /* x86_64, aarch64: 1 not asked, else 0 or a negative errno */
	bool arm = arch && !strcmp(arch, "aarch64");
	char bin[64];
	char *const qargv[] = { bin, "-device", "virtio-9p-pci,help", NULL };

	snprintf(bin, sizeof(bin), "qemu-system-%s", arm ? "aarch64" : "x86_64");
	if (known[arm] == 1)
		known[arm] = run_capture(bin, qargv, NULL, NULL);
	if (known[arm] < 0)
		return errf(why, len, -EOPNOTSUPP, "share=9p: %s has no virtio-9p-pci (%s), as a QEMU built without "
			    "virtfs; share=virtiofs shares a directory without it", bin,
			    known[arm] == -ECHILD ? "its -device help refuses it" : strerror(-known[arm]));
	return 0;
}

int lab_share_9p_setup(const struct lab_backend *be, const struct lab_paths *p, char *why, size_t len)
{
	int r = qemu_has_9p(p->arch, why, len);

	(void)be;
	return r < 0 ? r : share_dir_make(p, why, len);
}

/* virtiofs: virtiofsd serves the directory over a vhost-user socket, and
 * the guest's memory is shared with it (a memfd backend as the guest's
 * only NUMA node: vhost-user maps the guest's RAM in virtiofsd) */
int lab_share_virtiofs_args(struct lab_args *a, const struct lab_backend *be, const struct lab_config *c,
			       const struct lab_paths *p)
{
	char sock[256], esc[1024];

	(void)be;
	if (!work_path(p, LAB_SHARE_SOCKET, sock, sizeof(sock)))
		return -ENAMETOOLONG;
	lab_push(a, "-chardev");
	lab_push(a, "socket,id=s0,path=%s", lab_arg_esc(a, sock, esc, sizeof(esc)));
	lab_push(a, "-object");
	lab_push(a, "memory-backend-memfd,id=vmbmem,size=%s,share=on", c->v[LAB_MEM]);
	lab_push(a, "-numa");
	lab_push(a, "node,memdev=vmbmem");
	return 1;
}

/* virtiofsd gone: killed with its process group and reaped, untracked.
 * Its sandbox is a child in a PID namespace of its own, which the init
 * process reaps, not this one: its group is waited for to empty (2 s at
 * most), so that nothing of it outlives the lab. */
static void virtiofsd_stop(pid_t *pid)
{
	uint64_t deadline = clock_ns() + 2000000000ull;

	if (lab_proc_reap(*pid, 0, NULL) == 0) {
		while (kill(-*pid, 0) == 0 && clock_ns() < deadline)
			nanosleep(&(struct timespec){ .tv_nsec = 5000000 }, NULL);
	}
	*pid = 0;
}

/* The last line virtiofsd wrote to its log, for a message */
static void virtiofsd_words(const struct lab_paths *p, char *buf, size_t len)
{
	char log[256], *text = NULL, *end, *start;

	buf[0] = '\0';
	if (!work_path(p, LAB_SHARE_LOG, log, sizeof(log)) || read_file(log, &text) < 0)
		return;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	start = strrchr(text, '\n');
	snprintf(buf, len, "%.200s", start ? start + 1 : text);
	free(text);
}

/* virtiofsd on the shared directory, in a process group of its own that
 * dies with this process, tracked (a Ctrl-C's cleanup kills it), its
 * stderr into LAB_SHARE_LOG; ready when its socket is there. A host
 * without it, or where it cannot start, cannot have the share:
 * -EOPNOTSUPP (the configuration is skipped with why). */
int lab_share_virtiofs_setup(const struct lab_backend *be, const struct lab_paths *p, char *why, size_t len)
{
	char dir[256], sock[256], log[256], esc[520], srcopt[530], sockopt[300], words[256];
	char *const vargv[] = { LAB_VIRTIOFSD, sockopt, "-o", srcopt, "-o", "cache=auto", NULL };
	uint64_t deadline = clock_ns() + (uint64_t)LAB_VIRTIOFSD_START_MS * 1000000;
	struct stat sb;
	pid_t pid;
	int r, status;

	(void)be;
	if (!p->share_helper || !work_path(p, LAB_SHARE_DIR, dir, sizeof(dir)) ||
	    !work_path(p, LAB_SHARE_SOCKET, sock, sizeof(sock)) || !work_path(p, LAB_SHARE_LOG, log, sizeof(log)))
		return errf(why, len, -EINVAL, "share=virtiofs: no work directory for its files");
	if (access(LAB_VIRTIOFSD, X_OK) < 0)
		return errf(why, len, -EOPNOTSUPP, "share=virtiofs needs %s (%s): Debian's qemu-system-common has it",
			    LAB_VIRTIOFSD, strerror(errno));
	/* -o's list is libfuse's: a comma of the path escaped, as its backslash */
	if (lab_opt_escape(LAB_OPT_FUSE, dir, esc, sizeof(esc)) < 0)
		return errf(why, len, -ENAMETOOLONG, "share=virtiofs: the directory's path is too long");
	r = share_dir_make(p, why, len);
	if (r < 0)
		return r;
	snprintf(srcopt, sizeof(srcopt), "source=%s", esc);
	snprintf(sockopt, sizeof(sockopt), "--socket-path=%s", sock);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		lab_share_remove(p->work_dir);
		return errf(why, len, r, "starting virtiofsd: %s", strerror(-r));
	}
	if (pid == 0) {
		int out = open(log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

		(void)setpgid(0, 0);
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		(void)dup2(open("/dev/null", O_RDWR | O_CLOEXEC), STDIN_FILENO);
		if (out >= 0) {
			(void)dup2(out, STDOUT_FILENO);
			(void)dup2(out, STDERR_FILENO);
		}
		execv(vargv[0], vargv);
		_exit(127);
	}
	(void)setpgid(pid, pid);
	r = lab_proc_track(pid);
	if (r < 0) {
		lab_share_remove(p->work_dir);
		return errf(why, len, r, "starting virtiofsd: %s", strerror(-r));
	}
	*p->share_helper = pid;
	/* its socket, or its exit */
	while (lstat(sock, &sb) < 0 || !S_ISSOCK(sb.st_mode)) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			lab_proc_untrack(pid);
			*p->share_helper = 0;
			virtiofsd_words(p, words, sizeof(words));
			lab_share_remove(p->work_dir);
			return errf(why, len, -EOPNOTSUPP, "share=virtiofs: %s exited at start (%s %d)%s%s", LAB_VIRTIOFSD,
				    WIFEXITED(status) ? "status" : "signal",
				    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), *words ? ": " : "", words);
		}
		if (clock_ns() > deadline) {
			virtiofsd_stop(p->share_helper);
			lab_share_remove(p->work_dir);
			return errf(why, len, -ETIMEDOUT, "share=virtiofs: %s made no socket within %d s", LAB_VIRTIOFSD,
				    LAB_VIRTIOFSD_START_MS / 1000);
		}
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	return 0;
}

/* After QEMU: virtiofsd stopped (9p has none), the share's files removed
 * (its log stays with the work directory, the evidence of a failure) */
void lab_share_teardown(const struct lab_backend *be, const struct lab_paths *p)
{
	(void)be;
	if (p->share_helper)
		virtiofsd_stop(p->share_helper);
	if (p->work_dir)
		lab_share_remove(p->work_dir);
}

void lab_share_remove(const char *dir)
{
	char p[320], pid[400];
	size_t off;

	snprintf(p, sizeof(p), "%s/%s", dir, LAB_SHARE_DIR);
	(void)reclaim_remove_tree(AT_FDCWD, p, NULL);
	snprintf(p, sizeof(p), "%s/%s", dir, LAB_SHARE_SOCKET);
	(void)unlink(p);
	/* virtiofsd's lock: /run/virtiofsd/ and the socket's path, each '/' a '.' */
	off = (size_t)snprintf(pid, sizeof(pid), "/run/virtiofsd/");
	for (const char *c = p; *c && off + 5 < sizeof(pid); c++)
		pid[off++] = *c == '/' ? '.' : *c;
	memcpy(pid + off, ".pid", 5);
	(void)unlink(pid);
}
