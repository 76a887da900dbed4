/* vmbench lab: what the lab's verbs share (one file each: lab_run.c,
 * lab_contend.c, lab_study.c, lab_report.c, lab_image.c; the command and its
 * subcommand table in lab.c): the session of a run or a contend (struct
 * lab, lab_common.c), the comparison they show (lab_show.c), and the rows
 * of the options more than one verb takes. Which verb takes an option is
 * said only by the verbs' tables: help, the man page and the refusal of a
 * misplaced option are derived from them (common.c). */
#ifndef VMB_CMD_LAB_H
#define VMB_CMD_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "cmd.h"
#include "../core/run_opts.h"
#include "../core/opts.h"
#include "../core/str.h"
#include "../lab/distro.h"
#include "../lab/evidence.h"
#include "../lab/matrix.h"
#include "../lab/qemu.h"
#include "../lab/contend.h"
#include "../report/compare.h"

struct db;
struct vmb_suite;

/* Why the disk suite's test file is not the user's to place in a lab run. */
#define LAB_SCRATCH_FILE_WHY                                                                                         \
	"each guest's disk suite tests the scratch disk behind the configuration's controller (the matrix key "     \
	"disk); the host baseline's test file goes in the current directory"

/* lab contend's --suites unless given: the study's composite CPU load and
 * its latency probes, inside each guest (sched.wakeup) and from the host
 * to each guest (net.udp_rr) */
#define LAB_CONTEND_SUITES "cpu.prime,cpu.matrix,cpu.zlib,sched.wakeup,net.udp_rr"

/* The verbs (lab.c's subcommand table holds their descriptors). */
extern const struct vmb_cmd cmd_lab_image_desc, cmd_lab_run_desc, cmd_lab_contend_desc, cmd_lab_report_desc,
	cmd_lab_study_desc;

struct lab_request;
struct lab {
	const struct lab_request *rq; /* what was asked (its fields, and its own: the other options) */
	const struct optset *own;
	const char *cache, *image_dir, *suites;
	json_t *run_opts; /* the guests' and the host's options, as RUN takes them */
	struct db *db;
	struct cmp_table t;
	size_t failed;
	bool host;       /* the host baseline is the comparison's first operand */
	bool kvm_failed; /* accel=auto: decided once per process (kvm_failed_here) */
	struct image_slot {
		char dir[4200];
		int state; /* 0 not yet, 1 ready, -1 failed */
		int iso;   /* boot=cdrom's ISO made from it: likewise */
	} images[2][LAB_NIMAGES]; /* per architecture and image row, built when a configuration first needs one */
	char disk_size[32];
	json_t *group;   /* --rounds: this round's run_group, or NULL */
	json_t *busy;    /* config name -> [busy rounds, rounds] of the host noise sensors */
	char session[40]; /* the label lab=SESSION of every result of this run */
	char base[256];   /* --baseline KEY=VALUE: the configuration it names; else empty */
	struct strv base_pairs; /* --baseline KEY=VALUE: its pairs */
	const struct lab_backend *nic_be; /* what the NICs sit on: the first usable back end */
	char nic_note[600];               /* why not a tap, when user networking carries the NICs */
	unsigned round;  /* 1..--rounds */
	unsigned rounds; /* --rounds N; auto: the most */
	bool autorounds; /* --rounds auto */
	char accel_asked[32];         /* the configuration's accel before auto was resolved */
	struct lab_evidence evidence; /* where the failed boots' consoles go */
	json_t *failures;             /* their records, for the comparison's reader (t.failures) */
	bool kvm_probed, kvm_ok;      /* accel=kvm: /dev/kvm as `info` probes it */
	char kvm_why[256];
	/* lab study's check of an experiment: what lab run checks before the
	 * first boot, but for what only this machine decides (its CPUs, a
	 * configuration it cannot run); nothing opened, nothing booted */
	bool check_only;
	/* --plan: checked as a run, then the plan on stdout; nothing opened, nothing booted */
	bool plan;
	char accel_note[900];         /* accel=auto (or a study's kvm): why TCG was used */
};

/* The label that says which lab session a result belongs to (the
 * document names its configuration under LAB_CONFIG_KEY: not a label, its
 * words are the matrix keys' labels). */
#define LAB_SESSION_LABEL "lab"
#define LAB_HOST "host"

/* What a lab run or contend is asked to do, one struct whoever asks: the
 * command line (its words parsed by the verb's table, these fields read
 * from them once) or a study's experiment (lab_study.c: its keys as these
 * fields, its option lines parsed by the verb's table into own). The verbs
 * read these fields, never own's rows of the same names. */
enum lab_verb { LAB_VERB_RUN, LAB_VERB_CONTEND };
struct lab_request {
	enum lab_verb verb;
	const char *matrix;   /* --matrix (NULL: not given) */
	const char *suites;   /* --suites (NULL: the verb's default) */
	unsigned rounds;      /* --rounds N (0: not given, one round) */
	bool autorounds;      /* --rounds auto (the command line's, or a study's full run) */
	/* --rounds auto never stops before this many rounds (a study's rounds:
	 * its statistic and published count), budget or not; 0: none */
	unsigned min_rounds;
	unsigned boots;       /* lab run's --boots (0: not given; its row's default once started) */
	const char *baseline; /* lab run's --baseline (NULL: not given, the host) */
	struct strv labels;   /* --label KEY=VALUE: the words', then the caller's */
	bool quick;           /* --quick */
	/* checked as the verb checks it before the first boot, but for what
	 * only this machine decides (its CPUs, a configuration it cannot run:
	 * those refuse the experiment when it starts); nothing opened or
	 * booted, EXIT_OK when it would start */
	bool check_only;
	bool from_study;      /* its labels are lab study's own, its -q applied already */
	/* a study's accel = kvm: a configuration of accel=kvm, as one of auto,
	 * runs under TCG where KVM cannot boot a guest here (said in its
	 * lab_note), where lab run's own accel=kvm skips it */
	bool kvm_fallback;
	struct optset own;    /* every option, parsed by the verb's own table */
	struct optset *suite_sets; /* --SUITE.OPTION, as `run` takes them */
	char *items;          /* --suites as given, normalized "a,b,c" once started (owned) */
	char *session;        /* NULL, or where the session's id goes (and no HTML report) */
	size_t session_len;
	/* lab run over several hosts (lab_fleet.c), in one host's process: the
	 * --connect value it runs through ("direct": QEMU here), its label
	 * value, and the one session every host's results go to */
	const char *fleet_uri;
	const char *fleet_label;
	const char *fleet_session;
	/* the host process that measures this machine (the baseline) for the
	 * session, when it is another's: this one measures no baseline, which
	 * beside that one's guests or baseline would disturb both */
	const char *fleet_host_by;
};

/* lab run's --suites unless given (contend's: LAB_CONTEND_SUITES) */
#define LAB_RUN_SUITES "cpu,disk,boot"

/* The verb's descriptor (its option table) */
const struct vmb_cmd *lab_request_cmd(enum lab_verb verb);
/* rq's own and suite_sets parsed from words (the verb's options, each with
 * its value; NULL, 0: none), and the fields above (matrix ... quick) that
 * the caller left unset read from them; --label's words go before the
 * caller's labels. CMD_CONTINUE, or an exit code (the parser's message
 * said why, or --help was shown). */
int lab_request_parse(struct lab_request *rq, int argc, char **argv);
/* One option into own through its row, as --NAME VALUE would be (value
 * NULL for a flag): CMD_CONTINUE, or an exit code after a message. Not for
 * the options the fields above hold. */
int lab_request_set(struct lab_request *rq, const char *name, const char *value);
/* The rounds asked (N, auto, or one), with --mdd and --budget-total checked
 * beside them (they say when auto stops): CMD_CONTINUE, or exit 2. */
int lab_request_rounds(const struct vmb_cmd *self, const struct lab_request *rq, unsigned *n, bool *autop);
/* Run (or check) the request: an exit code. */
int lab_request_start(struct lab_request *rq);
void lab_request_release(struct lab_request *rq);
/* A verb's command line: parsed into a request, started, released. */
int lab_request_main(enum lab_verb verb, int argc, char **argv);
/* The plan (lab_plan.c): what a boot of configuration c is assumed to take
 * (its image's row, lab_images[].boot_s: under TCG on 2 CPUs) */
struct runner_estimate;
double lab_boot_estimate(const struct lab_config *c);
/* One round of lab run, lo and hi in seconds: every configuration's run
 * (and the host's, host) by its suites' stop rule (est), and boots boots of each */
void lab_round_estimate(const struct lab_matrix *m, bool host, unsigned boots, const struct runner_estimate *est,
			double *lo, double *hi);
/* lab contend: guests of m's configuration booted once, then cells x rounds */
void lab_contend_estimate(const struct lab_matrix *m, unsigned guests, unsigned cells, unsigned rounds,
			  const struct runner_estimate *est, double *lo, double *hi);
/* "42 s", "7 min" */
void lab_minutes(double s, char *buf, size_t len);
/* What an estimate assumes, said after it */
void lab_estimate_basis(char *buf, size_t len);
/* lab run's or contend's plan after lab_prepare: its configurations, rounds,
 * boots and estimate, on stdout (out: --plan) or as messages on stderr
 * (before a run: stdout keeps the tables and -o -'s HTML). rq: l's (its
 * suites' options get --quick's defaults). 0, or a negative errno said. */
int lab_plan(const struct lab *l, struct lab_request *rq, const struct lab_matrix *m, bool out);
/* The plan before a run: with --plan printed and done (EXIT_OK), else said
 * on stderr unless a study said its own (CMD_CONTINUE); EXIT_FAILED when
 * it could not be made. */
int lab_plan_first(const struct lab *l, struct lab_request *rq, const struct lab_matrix *m);
/* vmbench lab study (lab_study.c): --list, or FILE's --plan. */
int lab_study(const struct vmb_cmd *self, const struct optset *own, const char *arg);
/* lab run's and contend's start: their options checked, --quick applied,
 * the cache found; then the verb. An exit code. */
typedef int lab_verb_fn(const struct vmb_cmd *self, struct lab_request *rq, const char *cache);

/* lab run and lab contend, after their options are parsed and --quick applied */
lab_verb_fn lab_run, lab_contend_cmd;
/* --connect URI for the session: its label hv_uri, and libvirt connected
 * and its back end the session's ("direct": QEMU here, labelled so).
 * CMD_CONTINUE, or an exit code after the message. */
int lab_connect(const struct vmb_cmd *self, const char *uri, double timeout_s);
/* lab_request_start's last step: --connect's connection (rq->fleet_uri's,
 * else the option's), then the verb */
lab_verb_fn lab_request_go;
/* lab run with --connect given once per host (lab_fleet.c): the matrix on
 * each, a process per host, the hosts in parallel but those on one machine
 * one after another; then one comparison of host x configuration */
lab_verb_fn lab_fleet;
/* A failed boot of configuration name said and kept (its evidence; lab_run.c) */
void lab_failed_try(struct lab *l, const char *name, unsigned try, unsigned tries, const struct lab_failure *f,
		    const char *err);
/* Build (or find up to date) --distro's disk image for arch in dir, with
 * the packages (comma-separated; NULL: none) added. */
int lab_distro_image_for(const struct optset *own, const char *distro, const char *packages, const char *arch,
			 const char *cache, const char *dir, int *rebuilt, char *err, size_t errlen);
/* --baseline's value; not given (lab contend has none), "host" (its default) */
const char *lab_baseline_spec(const struct lab_request *rq);
/* lab report */
int lab_report(const struct vmb_cmd *self, struct optset *own, const char *selector);

void lab_cache_home(char *buf, size_t len);
/* Does the --suites list name suite s, or a test of it? */
bool lab_items_name(const char *items, const struct vmb_suite *s);
/* Where the host baseline's files go: the working directory (where `run`
 * puts them by default), else $TMPDIR, /var/tmp or /tmp, the first that
 * takes files and is on a disk: the guests' files are on their disk under
 * test, not in memory. When all are on tmpfs, the working directory, and
 * *note says so. */
void lab_host_dir(char *dir, size_t len, const char **note);
/* The host's document says what its file tests ran on, as a guest's does. */
int lab_host_filesystem(json_t *doc, const char *dir, const char *note);
/* The host baseline: this binary's `run` of the same suites and tests as in
 * the guests, with the same options, but those the lab measures from
 * outside a guest (boot). NULL with err on failure, NULL with err empty
 * when only boot was asked. */
json_t *lab_host_run(const char *suites, const json_t *opts, const char *disk_size, char *err, size_t errlen);
/* The vmbench binary that goes into ARCH guests. */
int lab_guest_vmbench(const struct optset *own, const char *arch, char *buf, size_t len, char *err, size_t errlen);
/* Build (or find up to date) the image for arch in dir. */
int lab_image_for(const struct optset *own, const char *arch, const char *cache, const char *dir, int *rebuilt,
		     char *err, size_t errlen);
/* A failed test is stored as measured, and said: it fails the run (exit 1). */
size_t lab_say_failures(const char *who, const json_t *doc);
/* A new session id: the UTC time it started and 16 random bits, so that two
 * sessions started in one second are told apart. */
void lab_session_new(char *buf, size_t len);
/* Label, store and add to the comparison one operand's document (taken). */
void lab_keep(struct lab *l, const char *name, json_t *doc, const struct lab_config *c, const char *note);
int lab_baseline(struct lab *l);
/* "accel=tcg disk=ide": the keys the matrix gave, the configuration's name */
void lab_config_name(const struct lab_matrix *m, const struct lab_config *c, char *name, size_t len);
/* The name of configuration asked of m as it ran: a value the lab resolved
 * (accel=auto) followed by what it ran as, "accel=auto (ran tcg) disk=ide";
 * the name says what was asked (study_table.c's ran_tcg reads it), the
 * labels what ran (accel=tcg selects it). */
void lab_config_ran_name(const struct lab_matrix *m, const struct lab_config *asked, const struct lab_config *ran,
			 char *name, size_t len);
/* A configuration's name without what its values ran as: lab_config_name's */
void lab_name_asked(const char *name, char *buf, size_t len);
/* The image for this configuration's architecture and image key, built once per run. */
const char *lab_image(struct lab *l, const char *name, const struct lab_config *c);
/* --suites: the items as `run` reads its words (suites_parse_items: commas
 * or spaces), checked before any boot and kept as "a,b,c", the form the
 * rest of the lab splits. */
int lab_suites_normalize(const struct vmb_cmd *self, struct lab_request *rq);
/* Each asked host-measured row's check of the matrix (balloon: a
 * configuration with a balloon, whose mem holds --balloon.size); before any
 * boot. */
int lab_check_host_rows(const struct vmb_cmd *self, const struct lab *l, const struct lab_matrix *m);
/* --label: none of the keys the lab sets itself (a matrix key, the session). */
int lab_check_labels(const struct vmb_cmd *self, const struct strv *labels);
/* An option's parsed value as RUN's options object has it: true for a
 * flag, a number for counts and seconds, bytes for a size, the text for
 * text and lists (a list's "all" is the guest's CPUs there, not ours). */
json_t *lab_opt_json(const struct vmb_opt *o, const struct opt_value *v);
/* What `run` checks of the measurement options beyond their rows, for the
 * host (its CPUs, when it is measured and here) and each configuration:
 * --cpus names vCPUs of every guest. */
int lab_check_measure(const struct vmb_cmd *self, const struct lab_request *rq, const struct lab_matrix *m, bool here);
/* The options the guests and the host measure with, in the agent
 * protocol's RUN format: those of `run`'s rows that a host may set
 * (proto_run_options) and every --SUITE.OPTION, as given; what was not
 * given keeps run's default in each (--quick's under "quick", the
 * request's). NULL: out of memory. */
json_t *lab_run_options(const struct lab_request *rq);
/* Everything lab run checks and opens before the first boot: the matrix,
 * --kernel, --suites, -o, the store, the signal handlers. CMD_CONTINUE, or
 * an exit code after a message. */
/* What the NICs sit on: a tap on a link of their own where permitted. */
void lab_pick_nic_backend(struct lab *l);
int lab_prepare(const struct vmb_cmd *self, struct lab *l, struct lab_matrix *m, const char *out);
/* What a lab run and a lab contend leave at their end: every QEMU killed
 * (and its files removed), and what they held released. */
void lab_end(struct lab *l, struct lab_matrix *m);
/* What run and contend begin with: --quick's defaults,
 * and the cache's directory (--cache, else the user's).
 * -1 when out of memory. */
int lab_quick_and_cache(struct optset *own, bool quick, char *cache, size_t len);
/* --baseline KEY=VALUE[,KEY=VALUE]: its pairs, each key a matrix key.
 * CMD_CONTINUE, or exit 2 after the message. */
int lab_baseline_pairs(const struct vmb_cmd *self, const char *spec, struct strv *pairs);
/* Whether every pair KEY=VALUE is the value of KEY in a stored result's labels. */
bool lab_labels_match(const struct strv *pairs, const json_t *labels);
/* --baseline KEY=VALUE of lab run: exactly one configuration of the matrix,
 * one that can run here; its name into l->base. Before any boot. */
int lab_baseline_config(const struct vmb_cmd *self, struct lab *l, const struct lab_matrix *m, const char *spec);
/* The operands in the order the comparison shows them: the baseline first
 * (base: an operand's name, or NULL for the first configuration), the
 * other configurations in their order, the host last; the host is aside
 * (beside them, setting no chart's scale) even when it is the baseline. */
void lab_arrange(struct cmp_table *t, const char *base);
/* The baseline a run or report asked for, as it can be had: the host, a
 * configuration (its name), or NULL for the first configuration; said when
 * what was asked has no result. */
const char *lab_pick(const struct cmp_table *t, const char *spec, const char *config);
/* The suite the lead sentence prefers: that of the --baseline's key (disk=ide:
 * disk), else of the first matrix key whose value differs between the
 * configurations; NULL when no such key has a suite. */
const char *lab_lead_suite(const struct cmp_table *t, const struct strv *base_pairs);
/* What each configuration cost the host (hostcost.h), as a table; and
 * the lab's notes (user networking). */
void lab_print_host_cost(FILE *f, const struct cmp_table *t);
/* The comparison on stdout (unless the report goes there), its answer in
 * the first line, and the report. */
int lab_show(const struct cmp_table *t, const char *out, bool html);
/* The operands of a run in the matrix's order (rounds shuffle the order in
 * which they ran, and so were added): insertion by the rank of their
 * names, the host after every configuration. */
void lab_matrix_order(struct cmp_table *t, const struct lab_matrix *m);
/* Lab results of one session (or older ones), made a comparison: the
 * order, the baseline, where the operands came from, what leads. */
int lab_compare(struct cmp_table *t, const char *spec, const char *config, const struct strv *base_pairs);

/* Rows more than one verb takes, with one help (a verb's table lists them) */
#define LAB_OPT_CACHE                                                                                                \
	{ .name = "cache", .type = OPT_STRING, .metavar = "DIR",                                                    \
	  .help = "where downloaded Debian packages are kept (default $XDG_CACHE_HOME/vmbench)" }
#define LAB_OPT_IMAGE_DIR                                                                                            \
	{ .name = "image-dir", .type = OPT_STRING, .metavar = "DIR", .help = "where the images go, DIR/ARCH" }
#define LAB_OPT_KERNEL                                                                                               \
	{ .name = "kernel", .type = OPT_STRING, .metavar = "PATH",                                                  \
	  .help = "a linux-image .deb, or a bare kernel whose drivers are built in (default: Debian's, "            \
		  "fetched with apt-get download)" }
#define LAB_OPT_BUSYBOX                                                                                              \
	{ .name = "busybox", .type = OPT_STRING, .metavar = "PATH",                                                 \
	  .help = "a static busybox for the guest (default /bin/busybox, or Debian's busybox-static for another "   \
		  "architecture, fetched into the cache)" }
#define LAB_OPT_AGENT                                                                                                \
	{ .name = "agent", .type = OPT_KV, .metavar = "ARCH=PATH",                                                  \
	  .help = "the vmbench to put in ARCH guests (default this binary on its own architecture, vmbench-ARCH "   \
		  "beside it for another, as 'make cross' makes build/vmbench-aarch64)" }
/* what boots: image, run, contend, and a study's experiments */
#define LAB_OPTS_BOOTS LAB_OPT_CACHE, LAB_OPT_KERNEL, LAB_OPT_BUSYBOX, LAB_OPT_AGENT
#define LAB_OPT_QUICK { .name = "quick", .type = OPT_BOOL, .help = "short runs of the suites, in the guests and on the host" }
#define LAB_OPT_HELLO_TIMEOUT                                                                                        \
	{ .name = "hello-timeout", .type = OPT_DOUBLE, .min = 1, .max = 3600, .def = "180", .metavar = "SECONDS",   \
	  .help = "how long a guest may take to boot and say HELLO" }
#define LAB_OPT_CONNECT_TIMEOUT                                                                                      \
	{ .name = "connect-timeout", .type = OPT_DOUBLE, .min = 1, .max = 3600, .def = "30", .metavar = "SECONDS",  \
	  .help = "--connect: how long libvirt's daemon may take to answer the connection, and then how long it "  \
		  "may stay silent (libvirt's keepalive) before it is lost: that host's domains are then ended "    \
		  "where their QEMU runs on this machine, and its remaining configurations fail" }
#define LAB_OPT_OUTPUT                                                                                               \
	{ .name = "output", .short_name = 'o', .type = OPT_STRING, .metavar = "FILE",                               \
	  .help = "the HTML report to write (a new file; - for stdout; default a new "                              \
		  "vmbench-lab-DATE-TIME.html, a study's vmbench-study-DATE-TIME.html, named when written)" }
#define LAB_OPT_DB                                                                                                   \
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH",                                                      \
	  .help = "the result store (default $VMBENCH_DB, else $XDG_DATA_HOME/vmbench/results.db)" }
#define LAB_OPT_BASELINE                                                                                             \
	{ .name = "baseline", .type = OPT_STRING, .def = "host", .metavar = "WHAT",                                 \
	  .help = "what the configurations are compared with: host (measured with the same suites), none "          \
		  "(no host: the first configuration), or KEY=VALUE[,KEY=VALUE] naming one configuration of the "   \
		  "matrix, e.g. disk=ide (the host is measured too, and shown beside the configurations)" }
#define LAB_OPTS_SAY                                                                                                 \
	{ .name = "quiet", .short_name = 'q', .type = OPT_BOOL, .help = "print errors only" },                      \
	{ .name = "verbose", .short_name = 'v', .type = OPT_BOOL, .help = "print debugging details" },               \
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" }

/* What run and contend share: the configuration, how the guests measure,
 * the scratch disk, the labels, and what they refuse */
#define LAB_OPT_MATRIX                                                                                               \
	{ .name = "matrix", .type = OPT_STRING, .metavar = "SPEC",                                                  \
	  .help = "the configurations, e.g. \"accel=tcg disk=ide,virtio-blk smp=1,2\", every combination of "       \
		  "the values; several such products joined by | are measured one after the other, e.g. \"disk=ide,nvme " \
		  "| nic=e1000\" (a configuration twice is refused). " LAB_MATRIX_HELP }

#define LAB_OPTS_MEASURED \
	LAB_OPT_MATRIX, \
	{ .name = "suites", .type = OPT_STRING, .def = LAB_RUN_SUITES, .metavar = "LIST", \
	.help = "what to measure in each guest (suites or SUITE.TEST, separated by commas or spaces, " \
	"e.g. cpu,disk.randread,boot or 'cpu disk.randread boot'); " \
	"contend's default is the study's composite load and latency probes, " \
	LAB_CONTEND_SUITES " (net.udp_rr measured by the host's client, from the host to each guest)" }, \
	LAB_OPT_QUICK, \
	RUN_MEASURE_OPTS
#define LAB_OPT_PLAN \
	{ .name = "plan", .type = OPT_BOOL, \
	.help = "print the configurations, rounds, boots and an estimated time, with the options checked as the " \
	"run checks them; nothing boots and nothing is stored (a run prints the same plan as it starts)" }
#define LAB_OPT_ROUNDS \
	{ .name = "rounds", .type = OPT_STRING, .def = "1", .metavar = "N|auto", \
	.help = "boot every configuration N times (1 to 100), in an order shuffled per round (the seed is " \
	"recorded), so drift during a long matrix hits every configuration alike; each boot is a run for " \
	"compare, which compares the configurations round by round. auto: rounds until every headline " \
	"verdict against the baseline is decided (a significant difference, the same within --margin if given, " \
	"or a minimal detectable difference of at most --mdd), or until --budget-total would run out; it " \
	"says which case held the rounds back" }
#define LAB_OPTS_DISK \
	{ .name = "disk-size", .type = OPT_SIZE, .min = 16 << 20, .max = 1ull << 40, .def = "1g", .quick = "128m", \
	.metavar = "SIZE", .help = "the scratch disk behind the configuration's controller" }, \
	{ .name = "disk-format", .type = OPT_STRING, .def = "raw", .choices = LAB_BACKEND_CHOICES(LAB_DISK), .metavar = "FMT", \
	.help = "the scratch disk's image format (qcow2 needs qemu-img, Debian's qemu-utils)" }, \
	{ .name = "disk-cache", .type = OPT_STRING, .def = "none", .choices = LAB_CACHE_CHOICES, \
	.metavar = "MODE", .help = "QEMU's cache mode for the scratch disk: the matrix key cache's value " \
	"where the matrix gives none" }
#define LAB_OPT_LABEL \
	{ .name = "label", .type = OPT_KV, .metavar = "KEY=VALUE", .help = "tag every stored result" }
#define LAB_OPTS_REFUSED \
	{ .name = "out", .type = OPT_BOOL, .refused = true, \
	.help = "--image-dir DIR says where the guest images go, -o FILE where the HTML report goes" }, \
	{ .name = "json", .type = OPT_BOOL, .refused = true, \
	.help = "the lab stores every run in its store (--db) with the labels of its configuration; 'vmbench " \
	"export' writes stored runs out" }, \
	{ .name = "no-store", .type = OPT_BOOL, .refused = true, \
	.help = "the lab compares what it stores; --db PATH names another store" }, \
	{ .name = "runs", .type = OPT_BOOL, .refused = true, \
	.help = "a lab run is replicated by booting again: --rounds N boots every configuration N times, in an " \
	"order shuffled per round" }, \
	{ .name = "seed", .type = OPT_BOOL, .refused = true, \
	.help = "the lab shuffles the configurations of each round (--rounds) and records that seed; a guest runs " \
	"the items of --suites in their order" }, \
	{ .name = "destructive", .type = OPT_BOOL, .refused = true, \
	.help = "each guest overwrites a scratch disk of its own, which the lab attaches; the host baseline writes " \
	"a new file" }, \
	{ .name = "progress-fd", .type = OPT_BOOL, .refused = true, \
	.help = "the channel of a guest's progress to its agent; lab run draws it on a terminal" }, \
	{ .name = "disk.dir", .type = OPT_BOOL, .refused = true, .help = LAB_SCRATCH_FILE_WHY }, \
	{ .name = "disk.file", .type = OPT_BOOL, .refused = true, .help = LAB_SCRATCH_FILE_WHY }, \
	{ .name = "disk.device", .type = OPT_BOOL, .refused = true, \
	.help = "a host's device is no guest's: the lab attaches a scratch disk to each guest (--disk-size, " \
	"--disk-format, --disk-cache, the matrix key disk)" }, \
	{ .name = "disk.size", .type = OPT_BOOL, .refused = true, \
	.help = "--disk-size SIZE sizes the scratch disk, which each guest tests whole and the host as a file of " \
	"that size, so that they pair in compare" }, \
	{ .name = "app.dir", .type = OPT_BOOL, .refused = true, \
	.help = "the lab chooses where a guest's app suite works; the host baseline's works in the current " \
	"directory" }, \
	{ .name = "app.db", .type = OPT_BOOL, .refused = true, \
	.help = "a server URL names a server of the host's network, which is no guest's; app.oltp_* run on SQLite " \
	"in each guest and on the host, or on the guest's own MariaDB with the matrix key db=mariadb" }, \
	{ .name = "net.server", .type = OPT_BOOL, .refused = true, \
	.help = "the lab chooses the server of each guest's net suite" }, \
	{ .name = "net.url", .type = OPT_BOOL, .refused = true, \
	.help = "a URL names a server of the host's network, which is no guest's; the lab chooses the server of " \
	"each guest's net suite (the matrix key httpd: nginx in the guest, say)" }

#endif
