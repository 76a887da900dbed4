/* One boot of a guest: its work directory and files, the back ends set
 * up, the hypervisor started through the back end (hv.h), the agent's
 * channel and HELLO with the boot phases timed from the console, the SSH
 * banner of a distribution, and its end (BYE, or destroyed at once); warm
 * boots and the guest's own reboots in the same hypervisor. Called by a
 * configuration's run (labrun.c) and its items (labitems.c); it calls the
 * back end, networking, the mirror and below. */
#ifndef VMB_LAB_LABBOOT_H
#define VMB_LAB_LABBOOT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hv.h"
#include "labnet.h"
#include "lablink.h"
#include "labopts.h"
#include "matrix.h"
#include "mirror.h"
#include "qemu.h"
#include "../proto/proto.h"
#include "../suites/boot.h"

struct lab_boot {
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
	struct lab_link link;             /* its link, made by the lab for a hypervisor that opens a tap by name */
	double t_output, t_init, t_hello; /* seconds after QEMU started (or the reset) */
	char root[300];                   /* a distribution image's root disk */
	char boot_file[300];              /* the boot row's file in the image's directory (boot=cdrom's ISO) */
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

/* The process whose network namespace holds the host's end of the
 * guest's link: the link's holder, else QEMU's own. */
pid_t lab_boot_netns(const struct lab_boot *b);
/* A line of progress on the terminal in place of the last (o->progress);
 * an empty one clears it. */
void lab_progress_draw(const struct lab_run_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The boot's first half: its files, the back ends, the hypervisor started
 * (*t0 when); its second: the agent's channel and HELLO. */
int lab_boot_spawn(const struct lab_config *c, const struct lab_run_opts *o, struct lab_boot *b, uint64_t *t0,
		   char *err, size_t errlen);
int lab_boot_await(const struct lab_run_opts *o, struct lab_boot *b, uint64_t t0, char *err, size_t errlen);
int lab_boot_once(const struct lab_config *c, const struct lab_run_opts *o, struct lab_boot *b, char *err,
		  size_t errlen);
/* BYE, then the hypervisor's exit (destroyed when it does not): 0, or why. */
int lab_boot_shut_down(struct lab_boot *b, char *err, size_t errlen);
/* A boot ended at once (the back end's destroy), the channel closed; the files stay. */
void lab_boot_kill(struct lab_boot *b);
/* The hypervisor gone: the back ends torn down, the work directory removed. */
void lab_boot_gone(struct lab_boot *b);
/* A warm boot (the back end's reset); the guest's own reboot, its shutdown in *shutdown (s). */
int lab_boot_warm(struct lab_boot *b, const struct lab_run_opts *o, char *err, size_t errlen);
int lab_boot_reboot(struct lab_boot *b, const struct lab_run_opts *o, double *shutdown, char *err, size_t errlen);
/* The vCPU threads counted, pinned with pin (lab_hv_vcpus). */
int lab_boot_vcpus(struct lab_boot *b, bool pin, char *err, size_t errlen);
/* The phases a configuration's boot has (boot_phases, or with an SSH
 * server boot_ssh_phases), and the boot's marks as those phases. */
const struct boot_phase *lab_boot_phase_list(const struct lab_config *c, size_t *n);
void lab_boot_phases(const struct lab_boot *b, double ph[BOOT_MAXPHASES]);

#endif
