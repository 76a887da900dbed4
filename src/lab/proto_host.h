/* The host's half of the agent protocol (src/proto/proto.h): HELLO,
 * RUN and its result adopted, the requests (TOKEN, SERVE, LOAD, PREPARE)
 * and their answers checked, BYE and REBOOT. */
#ifndef VMB_LAB_PROTO_HOST_H
#define VMB_LAB_PROTO_HOST_H

#include "../proto/proto.h"

/* Host side. Each fills c->err on failure, and bounds its whole wait.
 * hello skips lines that are not HELLO (console noise), but a line with a
 * NUL byte or over PROTO_MAX_LINE is an error (-EPROTO) there too. */
int proto_host_hello(struct proto_conn *c, int timeout_ms, json_t **fingerprint);
/* Run and wait: stall_ms bounds the silence between two lines (PROGRESS
 * resets it), total_ms the whole run. *doc is the validated result, as the
 * host adopts it (proto_host_adopt) with the fingerprint of the guest's
 * HELLO, hello_fp. */
int proto_host_run(struct proto_conn *c, const char *what, const json_t *options, const json_t *hello_fp,
		   int stall_ms, int total_ms, json_t **doc);
/* ... and a step of it (a case's warm-up or one repetition, as PROGRESS
 * names it) that does not advance within this many ms fails the run with
 * -ETIMEDOUT, however many PROGRESS lines say it is still under way:
 * PROTO_STEP_FACTOR x (--time + --warmup-max + the suite's per-repetition
 * overheads such as --disk.ramp, as options ask them or their defaults)
 * + floor_ms (0: PROTO_STEP_FLOOR_MS). how (howlen bytes) says the sum.
 * 0 (no step budget, how says why) when a test the RUN covers is
 * VMB_TEST_UNTIMED: its repetition is a unit of work, bounded by the run's
 * total_ms alone. */
int proto_host_step_ms(const char *what, const json_t *options, int floor_ms, char *how, size_t howlen);
/* What the host takes of a guest's document: only the suite (and test)
 * it asked for (`what`: "cpu" or "cpu.prime"), else -EPROTO with err; the
 * measured parts (suites, settings, times, command line, tool); and its
 * own id, no labels (the lab adds its own) and hello_fp as the
 * fingerprint. Keys the guest has no say in (lab_note, run_group,
 * host_noise, anything unknown) are dropped. */
int proto_host_adopt(json_t *doc, const char *what, const json_t *hello_fp, char *err, size_t errlen);
int proto_host_bye(struct proto_conn *c, int timeout_ms);
/* REBOOT: the agent answers BYE as to BYE and leaves with the exit status
 * PROTO_EXIT_REBOOT, on which what started it (the busybox image's init,
 * the distribution's unit) reboots the guest instead of powering it off:
 * the boot suite's in-guest reboot. -EIO when the agent refuses it. */
int proto_host_reboot(struct proto_conn *c, int timeout_ms);
/* TOKEN: the agent puts token in the environment of every later run
 * ($VMBENCH_NET_TOKEN) and serve; -EINVAL for a token the protocol cannot
 * carry, -EIO when the agent refuses it. */
int proto_host_token(struct proto_conn *c, const char *token, int timeout_ms);
/* SERVE: a vmbench serve in the guest, bound to addr, until BYE; *where
 * (len bytes) is the address:port it listens on. */
int proto_host_serve(struct proto_conn *c, const char *addr, int timeout_ms, char *where, size_t len);
/* LOAD: pct% (0 to 100) spinners in the agent, one per guest CPU, busy pct%
 * of every 10 ms (`vmbench run --load`'s), replacing any; 0 stops them.
 * *asked and *got: what the load it stopped was asked and got (LOADED).
 * -EPROTONOSUPPORT without a call when the guest's HELLO said a version
 * before PROTO_VERSION_LOAD. */
int proto_host_load(struct proto_conn *c, unsigned pct, int timeout_ms, unsigned *asked, double *got);

/* PREPARE: make filesystem fs (a row of LAB_FILESYSTEMS) on the guest's
 * block device and mount it at PROTO_MOUNTPOINT; the guest answers PREPARED
 * with what it made. *record: the answer checked (proto_check_prepared). */
int proto_host_prepare(struct proto_conn *c, const char *fs, const char *device, int timeout_ms, json_t **record);
/* PREPARE of a share: the guest mounts share (a row of LAB_SHARES) by its
 * tag LAB_SHARE_TAG at PROTO_MOUNTPOINT; PREPARED says what is mounted
 * (type the row's, device the tag, no mkfs). */
int proto_host_share(struct proto_conn *c, const char *share, int timeout_ms, json_t **record);
/* A PREPARED record (json, the rest of the line) checked against the
 * request: an object of exactly the keys type (fs), device (device),
 * mountpoint (PROTO_MOUNTPOINT), mount_options, size_bytes (1 to 2^50),
 * mkfs and mkfs_version (one line of text each; not for a share's type, fs
 * not a filesystem of the table). *out: a new object. */
int proto_check_prepared(const char *json, const char *fs, const char *device, json_t **out, char *err,
			 size_t errlen);

#endif
