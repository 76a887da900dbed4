/* The hypervisor back-end seam: everything the lab asks of a hypervisor,
 * as one const ops table per back end (as fio's ioengine_ops). The lab
 * above it (labrun.c, contend.c through labrun.c, vmops.c, balloon.c)
 * calls a hypervisor only through a `const struct lab_hv_ops *` chosen once
 * per session (lab_hv_default: today always the QEMU row, hv_qemu.c); it
 * neither builds a command line nor speaks QMP.
 *
 * A hook a back end cannot do is NULL and named in .unsupported with the
 * reason, which the lab reports as the skip of what needed it (as a suite
 * declares one); lab_hv_check, at start-up, refuses a row with a hook
 * neither present nor declared unsupported. docs/extending.md says what a
 * new back end implements, hook by hook. */
#ifndef VMB_LAB_HV_H
#define VMB_LAB_HV_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "matrix.h"

#define LAB_HV_ABI 1

struct lab_paths;
struct strv;
struct proto_conn;
struct lab_hv_ops;

/* A connection to the hypervisor about one guest (QEMU: its QMP socket;
 * libvirt: a virConnect and the virDomain). Opaque: the back end's. */
struct lab_hv_mon;

/* The files of a guest's two starts in its work directory, as the back
 * ends that move it name them (lab_vm's set: 0 the boot's, 1 the other):
 * the control socket, the agent's socket, the console, the hypervisor's log */
enum { LAB_START_CTL, LAB_START_AGENT, LAB_START_CONSOLE, LAB_START_LOG, LAB_START_NFILES };
extern const char *const lab_hv_start_files[2][LAB_START_NFILES];

/* A running guest as the lab hands it to the back end's operations that
 * move it (migrate, save and restore): the back end leaves in it the
 * process and the channel that run the guest afterwards. */
struct lab_vm {
	const struct lab_hv_ops *hv;
	const struct lab_config *c;
	const struct lab_paths *paths; /* the first boot's: disk, kernel, firmware are every start's */
	const char *dir;               /* the work directory */
	unsigned set;                  /* the names of the running start's files: 0 the boot's, 1 the others */
	pid_t pid;                     /* the hypervisor's process running the guest (0: none of the lab's) */
	int fd;                        /* its agent channel, which conn reads */
	struct proto_conn *conn;
	/* ctl: the back end's address of the guest (QEMU: its QMP socket); agent, console, log: its files */
	char ctl[200], agent[200], console[200], log[200];
};

/* How a guest is moved (migrate, save_restore). */
struct lab_hv_move {
	uint64_t bandwidth;  /* bytes/s, 0: unlimited */
	bool postcopy;       /* switch to post-copy after postcopy_after passes */
	unsigned postcopy_after;
	double timeout_s;    /* the bound of the whole move */
};

/* What the back end measured of a move; -1 for a figure it does not give. */
struct lab_hv_moved {
	double total_ms, downtime_ms, setup_ms;
	double transferred;    /* bytes */
	double dirty_rate;     /* pages per second */
	double passes;
	double postcopy_bytes;
	uint64_t t_done;       /* clock_ns when the move was seen complete */
	/* save_restore: the save (s), the state's size (bytes), the restore (s), clock_ns at the resume */
	double save_s, state_bytes, restore_s;
	uint64_t t_resume;
};

/* What the lab knows when it asks why the hypervisor stopped early. */
struct lab_hv_exit {
	const struct lab_config *c;
	const struct lab_paths *p;
	const char *log; /* the hypervisor's own output (start's log; after a move, the running start's) */
	int status;      /* its process's wait status; -1: it did not exit (the guest stopped for good, or the lab
			  * asks for its words) */
	bool at_start;   /* it exited before the agent's channel was there */
	bool accel_only; /* status -1: only the accelerator's error counts (KVM could not run the guest) */
};

/* The hooks, in the order docs/extending.md describes them; X(name). */
#define LAB_HV_HOOKS(X)                                                                                            \
	X(control) X(define) X(start) X(channel) X(exit_why) X(destroy) X(open) X(close) X(run_state) X(reset)     \
	X(await_reset) X(vcpu_threads) X(pin) X(balloon_set) X(balloon_get) X(balloon_wait) X(tune) X(vcpu_stat)  \
	X(confine) X(migrate) X(save_restore) X(snapshot) X(commit) X(savevm)

/* How the guest's NIC reaches the lab's link (a tap back end's, qemu.h):
 * QEMU started by the lab makes the network namespace and the tap in its
 * own forked child (the back end's child hook); a daemon's QEMU, in the
 * daemon's network namespace, opens a tap by name there, which the lab
 * makes and joins to a namespace of its own (lablink.h) before it starts,
 * its name in the paths (tap_name). */
enum lab_hv_link { LAB_HV_LINK_CHILD, LAB_HV_LINK_NAMED };

struct lab_hv_unsupported {
	const char *hook; /* a name of LAB_HV_HOOKS */
	const char *why;  /* what the user sees as the skip's reason */
};

struct lab_hv_ops {
	const char *name;    /* "qemu" */
	const char *summary; /* one line */
	unsigned abi;        /* LAB_HV_ABI */
	enum lab_hv_link link;

	/* -- define and boot -- */
	/* The guest's control address (what open takes; QEMU: DIR/qmp.sock, a
	 * socket in its work directory dir). 0, or -ENAMETOOLONG. */
	int (*control)(const char *dir, char *ctl, size_t len);
	/* The definition of configuration c with its files p (QEMU: its argv;
	 * libvirt: the domain XML as one string); incoming: a start that waits
	 * for a guest moved in (paused: left paused once it is in).
	 * -EOPNOTSUPP with why when the hypervisor cannot build c. */
	int (*define)(const struct lab_config *c, const struct lab_paths *p, bool incoming, bool paused,
		      struct strv *def, char *why, size_t len);
	/* Start it, tracked in the lab's registry (procs.h) until reaped; its
	 * own output into log (a new file). *pid: the process to reap. */
	int (*start)(const struct lab_config *c, const struct lab_paths *p, const struct strv *def, const char *log,
		     pid_t *pid);
	/* One try at the channel to the agent (p->agent_socket): 0 with *fd,
	 * -ENOENT or -ECONNREFUSED while it is not there yet; -ENOTCONN when
	 * the hypervisor is lost (exit_why says why), not tried again. */
	int (*channel)(const char *agent, int *fd);
	/* Why it stopped before the guest said HELLO. With e->status >= 0 (its
	 * process exited): a negative errno and the whole reason in why
	 * (-ENOENT: the hypervisor is not installed, -EPERM: its process could
	 * not be set up, -ECHILD: it exited). With e->status -1: its own words
	 * on why (QEMU: the KVM error in its log, else its last line), 1 with
	 * them in why, 0 when it said nothing (why ""). */
	int (*exit_why)(const struct lab_hv_exit *e, char *why, size_t len);
	/* The guest torn down, on every path: its process given grace_ms to
	 * exit by itself (0: none), then stopped, reaped through the lab's
	 * registry (procs.h), and what the back end made for it removed (the
	 * work directory's files are the lab's). ctl is its control address.
	 * 0 when it exited by itself, 1 when it had to be stopped; *status (not
	 * NULL) its wait status. */
	int (*destroy)(pid_t pid, const char *ctl, int grace_ms, int *status);

	/* -- a connection about a running guest -- */
	int (*open)(const char *ctl, int timeout_ms, struct lab_hv_mon **out, char *why, size_t len);
	void (*close)(struct lab_hv_mon *m); /* NULL: nothing */
	/* The run state (a word) in state; *final when the hypervisor stopped
	 * the guest for good (KVM could not run it, the guest panicked). */
	int (*run_state)(struct lab_hv_mon *m, char *state, size_t slen, bool *final, char *why, size_t len);
	int (*reset)(struct lab_hv_mon *m, char *why, size_t len);
	/* Wait up to timeout_ms for the guest's own reset: 1 with *t (clock_ns,
	 * not before lo) when it came, 0 when the time ran out. */
	int (*await_reset)(struct lab_hv_mon *m, int timeout_ms, uint64_t lo, uint64_t *t, char *why, size_t len);
	/* The host threads of the vCPUs in vCPU order (malloc'd); repeats
	 * when one thread runs several (TCG single-threaded). */
	int (*vcpu_threads)(struct lab_hv_mon *m, int **tids, size_t *n, char *why, size_t len);
	/* vCPU i (thread tids[i]) pinned to host CPU i, round robin. A back end
	 * without vcpu_threads (libvirt names vCPUs, not threads) gets tids
	 * NULL and n 0, and pins the guest's vCPUs itself. */
	int (*pin)(struct lab_hv_mon *m, const int *tids, size_t n, char *why, size_t len);
	/* The balloon: the guest's memory set to bytes; as the guest last
	 * reported it; a wait of up to timeout_ms for its next report (1: it
	 * came, 0: not yet). */
	int (*balloon_set)(struct lab_hv_mon *m, uint64_t bytes, char *why, size_t len);
	int (*balloon_get)(struct lab_hv_mon *m, uint64_t *bytes, char *why, size_t len);
	int (*balloon_wait)(struct lab_hv_mon *m, int timeout_ms, char *why, size_t len);

	/* -- the guest's share of the host (lab contend through the hypervisor) -- */
	/* Its CPU weight (relative: 1 for every guest alike, as cgroup v1's
	 * cpu.shares 1024 x weight) and a cap over all its threads, quota_us
	 * of every period_us (0: none), set live and read back. */
	int (*tune)(struct lab_hv_mon *m, unsigned weight, unsigned long long quota_us, unsigned period_us, char *why,
		    size_t len);
	/* Its vCPUs' time on a host CPU and their time runnable but waiting
	 * for one (ns, summed over the vCPUs: schedstat's first two fields);
	 * *exact false when the CPU time is only in the kernel's ticks. */
	int (*vcpu_stat)(struct lab_hv_mon *m, unsigned long long *cpu_ns, unsigned long long *wait_ns, bool *exact,
			 char *why, size_t len);
	/* Every thread of the guest (its vCPUs and the hypervisor's own) on
	 * the host CPUs of cpus, set live and read back. */
	int (*confine)(struct lab_hv_mon *m, const cpu_set_t *cpus, char *why, size_t len);

	/* -- operations on the guest (vmops) -- */
	/* Live migration to a second start of the same configuration; vm is
	 * then the destination's (its channel switched, its vCPUs pinned as
	 * the boot's were). *lost when the guest can no longer be reached. */
	int (*migrate)(struct lab_vm *vm, const struct lab_hv_move *how, struct lab_hv_moved *out, bool *lost,
		       char *why, size_t len);
	/* Stop, save to a file, quit; restore in a new start, resume. */
	int (*save_restore)(struct lab_vm *vm, const struct lab_hv_move *how, struct lab_hv_moved *out, bool *lost,
			    char *why, size_t len);
	/* An external snapshot of the scratch disk into overlay, and its
	 * commit back (bounded by timeout_s); each timed in *secs. */
	int (*snapshot)(struct lab_vm *vm, const char *overlay, double *secs, char *why, size_t len);
	int (*commit)(struct lab_vm *vm, double timeout_s, double *secs, char *why, size_t len);
	/* The whole VM saved inside its disks as tag, reverted to, deleted:
	 * *save_s, *load_s. -EOPNOTSUPP with why when its disks cannot hold it. */
	int (*savevm)(struct lab_vm *vm, const char *tag, double *save_s, double *load_s, char *why, size_t len);

	/* What of configuration c this back end cannot carry, in words (the
	 * configuration is then skipped with them, as a model the
	 * architecture lacks is); NULL: it can (and NULL for no such limit). */
	const char *(*cannot)(const struct lab_config *c);

	/* the hooks this back end does not have, with why; {NULL} ends it */
	const struct lab_hv_unsupported *unsupported;
};

/* Why a back end whose guests are processes of this machine has no tune,
 * vcpu_stat nor confine: lab contend does it itself (contend_tune.c) */
#define LAB_HV_CONTEND_OWN                                                                                       \
	"lab contend tunes the guests of this machine's processes itself: a cgroup per guest, its threads' "      \
	"affinity and schedstat"

/* The back ends, one row each; the session's choice. */
extern const struct lab_hv_ops lab_hv_qemu;
extern const struct lab_hv_ops lab_hv_libvirt; /* built with libvirt's headers (HAVE_LIBVIRT) */
const struct lab_hv_ops *lab_hv_default(void);
/* The session's row from now on (lab_hv_libvirt_connect sets libvirt's). */
void lab_hv_set_default(const struct lab_hv_ops *hv);
/* lab_config_unsupported (matrix.h), then what the session's back end
 * cannot carry of c (its cannot): true with why ("through libvirt, ..."). */
bool lab_hv_config_unsupported(const struct lab_config *c, char *why, size_t len);
/* --connect URI: libvirt loaded (dlopen) and connected, its row the
 * session's; the connection stays open until the process ends, so that its
 * domains (started with AUTODESTROY) go with it. timeout_s bounds the
 * connection (a daemon that takes it and never answers: -ETIMEDOUT), and
 * then, as libvirt's keepalive, how long the daemon may stay silent before
 * it is lost. -EOPNOTSUPP with why when this vmbench or machine has no
 * libvirt. */
int lab_hv_libvirt_connect(const char *uri, double timeout_s, char *why, size_t len);
/* Whether the daemon was lost after the connection (it ended, or stopped
 * answering): said once when it was, its domains' QEMUs ended where they
 * run on this machine, every call of the back end failing since */
bool lab_hv_libvirt_lost(void);
/* The connected hypervisor host's name (virConnectGetHostname); NULL
 * when there is no connection. */
const char *lab_hv_libvirt_host(void);
/* --migrate-to URI: a second libvirt connection, the host vmops.migrate
 * moves the session's guests to (libvirt refuses a migration to the host
 * a domain runs on), within timeout_s. 0, or a negative errno with why. */
int lab_hv_libvirt_migrate_to(const char *uri, double timeout_s, char *why, size_t len);
/* The connection the session's guests go through, as the user named it
 * (--connect URI, or "direct" for QEMU driven here by a lab run over
 * several hosts): the label hv_uri of each guest's result. NULL when none
 * was named (a plain lab run). */
void lab_hv_set_uri(const char *uri);
const char *lab_hv_uri(void);
/* The host a --connect value reaches, which decides what may run at once
 * (lab run over several hosts: one host's guests one after another): the
 * authority of a libvirt URI (scheme://[USER@]HOST[:PORT]/PATH), without
 * the user and the port, lower case; "" for this machine (no host, as
 * qemu:///system, or "direct"). -EINVAL when uri is neither a URI of that
 * form nor "direct"; -ENAMETOOLONG when the host does not fit. */
int lab_hv_uri_host(const char *uri, char *host, size_t len);
/* The label value hv_uri of a --connect value: the URI without its query
 * and fragment (connection details, as ?socket= or ?keyfile=), without a
 * password after "USER:", a ',' or '=' left (no selector could select it)
 * made '_'; "direct" as it is. Cut at len. */
void lab_hv_uri_label(const char *uri, char *buf, size_t len);
/* A connection to a Unix socket of the guest's agent channel: 0 with *fd,
 * or a negative errno (-ENOENT, -ECONNREFUSED while it is not there). */
int lab_hv_unix_channel(const char *path, int *fd);

/* Start-up check of a row: its ABI, a name, every hook present or
 * declared unsupported with a reason (and none both, none unknown). */
int lab_hv_check(const struct lab_hv_ops *hv, char *why, size_t len);
/* Why hv cannot do hook (a name of LAB_HV_HOOKS), or NULL when it can. */
const char *lab_hv_why_not(const struct lab_hv_ops *hv, const char *hook);

/* The vCPU threads of the guest at ctl counted (distinct threads in
 * *nthreads when not NULL), pinned with pin; only a failed pinning is an
 * error (without pin a failed query leaves *nthreads as it was). */
int lab_hv_vcpus(const struct lab_hv_ops *hv, const char *ctl, bool pin, unsigned *nthreads, char *err,
		 size_t errlen);

#endif
