/* The study file's parser: what it keeps, and each error with its line. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <sys/stat.h>

#include "test.h"
#include "../../src/lab/study.h"
#include "../../src/lab/study_table.h"

#define HEAD "[study]\nformat = 1\ntitle = T\nsource = S\n"
#define EXP "[experiment a]\ntitle = A\nmatrix = accel=tcg disk=ide,ahci\nsuites = disk.randread\noption = --disk.iodepth 1\n"
#define CEXP "[experiment a]\ntitle = A\ncommand = contend\nmatrix = accel=tcg\nsuites = cpu\ncolumn = cpu.prime events_per_s\n"

static struct study st;

static int parse(const char *text, char *err, size_t len)
{
	*err = '\0';
	return study_parse(text, strlen(text), "x.study", &st, err, len);
}

static void a_whole_study(void **state)
{
	char err[1200];
	const char *text = "# a comment\n; another\n" HEAD "source = continued\ndescription = D\n\n"
			   "[experiment qd-1.x]\n"
			   "title = Random reads\n"
			   "stand-in = disk=ide for PIIX4\n"
			   "stand-in = disk=ahci for IntelAhci\n"
			   "matrix = accel=tcg disk=ide,ahci\n"
			   "suites = disk.randread,cpu\n"
			   "option = --disk.iodepth 1,32\n"
			   "option = --label \"who=a b\"\n"
			   "rounds = 5\nboots = 2\nstatistic = trimmed\nrows = disk\nbaseline = disk=ide\n"
			   "column = disk.randread iops at iodepth=32 | QD32\n"
			   "column = disk.randread latency.p99 at iodepth=1 in us\n"
			   "column = cpu.prime events_per_s at threads=1 in 1/s | events\n"
			   "published = disk=ide | QD32 | 3,214\n"
			   "conclusion = AHCI is faster.\n"
			   "expect = QD32: disk=ahci > disk=ide\n"
			   "expect = disk.randread latency.p99 at iodepth=1: disk=ahci < host\n"
			   "[experiment gone]\ntitle = G\nnot-run = needs hardware\n";
	const struct study_experiment *e;

	(void)state;
	assert_int_equal(parse(text, err, sizeof(err)), 0);
	assert_string_equal(st.name, "x");
	assert_int_equal(st.format, 1);
	assert_string_equal(st.source, "S continued");
	assert_int_equal(st.nexp, 2);
	e = &st.exp[0];
	assert_string_equal(e->id, "qd-1.x");
	assert_int_equal(e->line, 10);
	assert_int_equal(e->nconfigs, 2);
	assert_int_equal(e->rounds, 5);
	assert_int_equal(e->boots, 2);
	assert_int_equal(e->stat, STUDY_TRIMMED);
	assert_string_equal(e->rows, "disk");
	assert_int_equal(e->stand_in.n, 2);
	/* an option's words, a quoted value one word */
	assert_int_equal(e->options.n, 4);
	assert_string_equal(e->options.v[0], "--disk.iodepth");
	assert_string_equal(e->options.v[3], "who=a b");
	/* each line's words, at its line: what lab run's parser says of them names it */
	assert_int_equal(e->noptlines, 2);
	assert_int_equal(e->optlines[0].line, 16);
	assert_int_equal(e->optlines[1].line, 17);
	assert_int_equal(e->optlines[1].first, 2);
	assert_int_equal(e->optlines[1].n, 2);
	assert_false(e->optlines[1].quick);
	assert_int_equal(e->ncolumns, 3);
	assert_string_equal(e->columns[0].test, "disk.randread");
	assert_string_equal(e->columns[0].at, "iodepth=32");
	assert_string_equal(e->columns[0].heading, "QD32");
	assert_string_equal(e->columns[1].metric, "latency.p99");
	assert_string_equal(e->columns[1].at, "iodepth=1");
	assert_string_equal(e->columns[1].unit, "us");
	assert_string_equal(e->columns[2].at, "threads=1");
	assert_string_equal(e->columns[2].unit, "1/s");
	assert_int_equal(e->nclaims, 2);
	assert_int_equal(e->nrel, 2);
	assert_int_equal(e->rel[0].col, 0);
	assert_int_equal(e->rel[0].op, STUDY_GT);
	assert_string_equal(e->rel[0].a, "disk=ahci");
	assert_int_equal(e->rel[1].col, 1);
	assert_int_equal(e->rel[1].op, STUDY_LT);
	assert_string_equal(e->rel[1].b, "host");
	assert_string_equal(st.exp[1].not_run, "needs hardware");
	/* defaults */
	assert_int_equal(st.exp[1].rounds, 3);
	assert_string_equal(st.exp[1].baseline, "host");
	study_release(&st);
}

/* a latency metric's spread is a column, as its percentiles are (Study 0's
 * PVSCSI "latency SD"); a spread of another name is not */
static void spread_column(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(parse(HEAD EXP "column = disk.randread latency.stddev in us | SD\n", err, sizeof(err)), 0);
	assert_string_equal(st.exp[0].columns[0].metric, "latency.stddev");
	assert_string_equal(st.exp[0].columns[0].unit, "us");
	study_release(&st);
	assert_true(parse(HEAD EXP "column = disk.randread latency.sd\n", err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "'latency.sd' is no metric name"));
	study_release(&st);
}

static void errors_name_the_line(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "title = T\n", "x.study:1: 'title' before any section" },
		{ "[study]\ntitle = T\nsource = S\n" EXP "column = disk.randread iops\n", "x.study:1: [study] has no format" },
		{ "[study]\nformat = 2\n", "x.study:2: format 2 is newer than this vmbench reads (1)" },
		{ HEAD "colour = red\n", "x.study:5: unknown key 'colour' in [study]" },
		{ HEAD "[experiment a]\ntitle = A\ntitle = B\n", "x.study:7: title given twice" },
		{ HEAD "[experiment a]\ntitle = A\nmatrix\n", "x.study:7: expected KEY = VALUE" },
		{ HEAD "[experiment a]\ntitle =\n", "x.study:6: title has no value" },
		{ HEAD "[experiment A!]\n", "x.study:5: experiment 'A!': an id is" },
		{ HEAD "[experiment a]\ntitle = A\nnot-run = x\n[experiment a]\n", "x.study:8: experiment a twice (line 5 first)" },
		{ HEAD "[experimental]\n", "x.study:5: unknown section [experimental]" },
		{ HEAD "[study]\n", "x.study:5: [study] comes once, first" },
		{ HEAD EXP "column = disk.randread iops\nrounds = 0\n", "x.study:11: rounds = '0': expected a whole number" },
		{ HEAD EXP "column = disk.randwrite iops\n", "x.study:10: column: disk.randwrite is not among the experiment's suites" },
		{ HEAD EXP "column = disk.nothing iops\n", "x.study:10: column: 'disk.nothing' is no test" },
		{ HEAD EXP "column = disk.randread IOPS\n", "x.study:10: column: 'IOPS' is no metric name" },
		{ HEAD EXP "column = disk.randread latency.p98\n", "x.study:10: column: 'latency.p98' is no metric name" },
		{ HEAD EXP "column = disk.randread latency.max\n", "x.study:10: column: 'latency.max' is no metric name" },
		{ HEAD EXP "column = disk.randread iops in furlongs\n", "x.study:10: column: unknown unit 'furlongs'" },
		{ HEAD EXP "column = disk.randread iops at iodepth\n", "x.study:10: column: at 'iodepth': the case's parameters" },
		{ HEAD EXP "column = disk.randread iops by x\n", "x.study:10: column = TEST METRIC [at KEY=VALUE[,...]] [in UNIT] [| HEADING [| setting]]: 'by'" },
		{ HEAD EXP "column = disk.randread iops | a: b\n", "x.study:10: a heading without ':'" },
		{ HEAD EXP "column = disk.randread iops\nexpect = iops: disk=ahci > disk=ide\n", "x.study:11: expect: 'iops' is no column" },
		{ HEAD EXP "column = disk.randread iops\nexpect = disk.randread iops: disk=ahci >> disk=ide\n", "x.study:11: expect: one '>' or '<'" },
		{ HEAD EXP "column = disk.randread iops\nexpect = disk.randread iops: disk=nvme > disk=ide\n", "x.study:11: expect: the side 'disk=nvme' selects no configuration" },
#define C2 "column = disk.randread iops | IOPS\ncolumn = disk.randread latency | lat\n"
		{ HEAD EXP C2 "claim = a | b\n", "x.study:12: claim = TEXT | PUBLISHED | RELATION[; RELATION...] [| kvm|link], e.g." },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci > disk=ide | tcg\n", "x.study:12: claim: 'tcg' after the relations; the one word there is kvm" },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci >> disk=ide\n", "x.study:12: claim: one of ' > ', ' < ', ' / ', ' ~ '" },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci / disk=ide\n", "x.study:12: claim: a ratio says 'A / B in LO..HI'" },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci / disk=ide in 5..2\n", "x.study:12: claim: 'in 5..2': two positive ratios, the lower first" },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci / disk=ide in 0..2\n", "x.study:12: claim: 'in 0..2': two positive ratios" },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci ~ disk=ide within ten\n", "x.study:12: claim: 'within ten': a margin in percent" },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci ~ disk=ide within 0%\n", "x.study:12: claim: 'within 0%': a margin in percent" },
		{ HEAD EXP C2 "claim = a | b | iops: disk=ahci > disk=ide\n", "x.study:12: claim: 'iops' is no column of this experiment" },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci > disk=ahci\n", "x.study:12: claim: both sides are disk=ahci" },
		{ HEAD EXP C2 "claim = a | b | row disk=ahci: IOPS > IOPS\n", "x.study:12: claim: row disk=ahci compares a column with itself" },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci > disk=ide > disk=lsi\n", "x.study:12: claim: one comparison a relation; join relations with ';'" },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci > disk=nvme\n", "x.study:12: claim: the side 'disk=nvme' selects no configuration" },
		{ HEAD EXP C2 "claim = a | b | IOPS: disk=ahci > disk=ide; lat disk=ahci\n", "x.study:12: claim: 'lat disk=ahci': a relation is" },
		{ HEAD EXP C2 "claim = a | b | not comparable: | kvm\n", "x.study:12: claim: 'not comparable: WHY' says why this lab cannot measure it, alone" },
		{ HEAD EXP "column = disk.randread iops | IOPS | setting\nclaim = a | b | IOPS: disk=ahci > disk=ide\n", "x.study:11: claim: 'IOPS' is a setting of the run" },
		{ HEAD EXP "column = disk.randread iops | IOPS | colour\n", "x.study:10: a column has one heading; after it, '| setting' alone" },
#undef C2
		{ HEAD EXP "column = disk.randread iops\nbaseline = disk=lsi\n", "x.study:5: baseline 'disk=lsi' selects no configuration" },
		{ HEAD EXP "column = disk.randread iops\nrows = smp\n", "x.study:5: [experiment a]: rows = smp: a lab run's rows are one key the matrix gives" },
		{ HEAD EXP "column = disk.randread iops\nrows = colour\n", "x.study:11: rows = 'colour': 'colour' is no matrix key" },
		{ HEAD EXP "column = disk.randread iops\nstatistic = trimmed\nrounds = 2\n", "x.study:5: [experiment a]: statistic = trimmed" },
		{ HEAD EXP "column = disk.randread iops\noption = disk.bs 4k\n", "x.study:11: option = --NAME [VALUE]" },
		{ HEAD EXP "column = disk.randread iops\noption = --label \"a\n", "x.study:11: a quote that does not close" },
		{ HEAD EXP "column = disk.randread iops\npublished = a | b\n", "x.study:11: published = ROW | HEADING | FIGURE" },
		{ HEAD EXP, "x.study:5: [experiment a] has no column" },
		{ HEAD "[experiment a]\ntitle = A\nsuites = cpu\n", "x.study:5: [experiment a] has no matrix" },
		{ HEAD "[experiment a]\ntitle = A\nmatrix = disk=floppy\nsuites = cpu\ncolumn = cpu.prime events_per_s at threads=1\n", "x.study:5: [experiment a]: matrix: " },
		{ HEAD "[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = cpu,gpu\ncolumn = cpu.prime events_per_s at threads=1\n", "x.study:5: [experiment a]: suites: 'gpu' is no suite" },
		/* lab run refuses a baseline of several configurations: said when planned, not after a boot */
		{ HEAD EXP "column = disk.randread iops\nbaseline = accel=tcg\n", "x.study:5: baseline 'accel=tcg' selects 2 configurations" },
		/* a column of a test with several cases names one: else the table shows whichever came first */
		{ HEAD "[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = disk.randread\ncolumn = disk.randread iops\n",
		  "x.study:9: column: disk.randread runs a case per iodepth (--disk.iodepth 1,4,8,16,32, its default)" },
		{ HEAD "[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = disk.randread\noption = --disk.iodepth=1,32\ncolumn = disk.randread iops at bs=4096\n",
		  "x.study:10: column: disk.randread runs a case per iodepth (--disk.iodepth 1,32)" },
		{ HEAD "[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = cpu\ncolumn = cpu.prime events_per_s\n",
		  "x.study:9: column: cpu.prime runs a case per thread count (--threads 1,all, the default" },
		{ HEAD "[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = app\noption = --threads 8\ncolumn = app.oltp_read_write tps\n",
		  "x.study:10: column: app.oltp_read_write runs a case per thread count (--threads 8; 1 is always measured)" },
		{ HEAD EXP "column = disk.randread iops\nbaseline = none\nexpect = disk.randread iops: host > disk=ide\n",
		  "x.study:12: expect: a side is the host, which baseline = none does not measure" },
		/* a table has at most 32 rows, the host's one of them */
		{ HEAD "[experiment a]\ntitle = A\nmatrix = accel=tcg smp=1,2,3,4,5,6,7,8 disk=ide,ahci,lsi,virtio-blk\nsuites = cpu\n"
		       "option = --threads 1\ncolumn = cpu.prime events_per_s\n", "x.study:5: [experiment a]: a table of 33 rows; at most 32" },
		{ HEAD, "x.study:1: no [experiment ID] section" },
		{ "", "x.study:1: no [study] section" },
		/* command = contend: lab contend's guests, selected by its labels */
		{ HEAD "[experiment a]\ntitle = A\ncommand = lab\n", "x.study:7: command = 'lab': run" },
		{ HEAD CEXP "boots = 2\n", "x.study:5: [experiment a]: boots is lab run's" },
		{ HEAD "[experiment a]\ntitle = A\ncommand = contend\nmatrix = accel=tcg disk=ide,ahci\nsuites = cpu\n"
		       "column = cpu.prime events_per_s\n", "x.study:5: [experiment a]: lab contend boots guests of one configuration; the matrix has 2" },
		{ HEAD CEXP "expect = cpu.prime events_per_s: host > guest=1\n", "x.study:11: expect: the side 'host': lab contend measures its guests" },
		{ HEAD CEXP "expect = cpu.prime events_per_s: colour=red > guest=1\n", "x.study:11: expect: the side 'colour=red': 'colour' is neither" },
		{ HEAD CEXP "rows = disk\n", "x.study:5: [experiment a]: rows = disk: lab contend's guests share one configuration" },
		{ HEAD CEXP "select = guest\n", "x.study:5: select 'guest': KEY=VALUE" },
		{ HEAD CEXP "column = disk.randread iops\n", "x.study:11: column: disk.randread is neither among the experiment's suites" },
		{ HEAD EXP "column = disk.randread iops at iodepth=1\nrows = disk,policy\n", "x.study:5: [experiment a]: rows = disk,policy: a lab run's rows are one key the matrix gives" },
		{ HEAD EXP "column = disk.randread iops at iodepth=1\nselect = guest=1\n", "x.study:5: [experiment a]: select is lab contend's" },
		{ HEAD EXP "rows = disk, policy\n", "x.study:10: rows = KEY[,KEY]: keys and commas, no blanks" },
		/* quick-rounds: fewer rounds under --quick, never more, and enough for the statistic */
		{ HEAD EXP "column = disk.randread iops\nrounds = 5\nquick-rounds = 6\n",
		  "x.study:5: [experiment a]: quick-rounds = 6 is more than its rounds (5)" },
		{ HEAD EXP "column = disk.randread iops\nrounds = 10\nquick-rounds = 2\nstatistic = trimmed\n",
		  "x.study:5: [experiment a]: statistic = trimmed drops the highest and the lowest round, and needs rounds >= 3 (and quick-rounds >= 3)" },
		{ HEAD EXP "column = disk.randread iops\nquick-rounds = 0\n", "x.study:11: quick-rounds = '0'" },
		{ HEAD EXP "column = disk.randread iops\nquick-rounds = 2\nquick-rounds = 2\n", "x.study:12: quick-rounds given twice" },
		{ HEAD EXP "column = disk.randread iops\nquick-option = disk.bs 4k\n", "x.study:11: quick-option = --NAME [VALUE]" },
		{ HEAD EXP "column = disk.randread iops\nquick-skip = a\nquick-skip = b\n", "x.study:12: quick-skip given twice" },
		/* what the file says is echoed escaped: it would drive the terminal */
		{ HEAD "co\033[31mlour = red\n", "x.study:5: unknown key 'co\\x1b[31mlour' in [study]" },
		{ HEAD "[experiment a\302\233]\n", "x.study:5: experiment 'a\\xc2\\x9b': an id is" },
		/* lab run's words are text: a control character in them is refused */
		{ HEAD EXP "column = disk.randread iops\noption = --label k=\033[2J\n", "x.study:11: option: a control character (byte 11 is 0x1b)" },
		{ HEAD EXP "column = disk.randread iops\nquick-option = --label k=\rx\n", "x.study:11: quick-option: a control character (byte 11 is 0x0d)" },
		{ HEAD "[experiment a]\ntitle = A\nmatrix = accel=tcg\033\n", "x.study:7: matrix: a control character (byte 10 is 0x1b)" },
		/* accel = kvm | tcg: what the study ran under, and a matrix that can run it */
		{ HEAD EXP "column = disk.randread iops\naccel = hw\n", "x.study:11: accel = 'hw': kvm (the study's hypervisor" },
		{ HEAD EXP "accel = tcg\naccel = kvm\n", "x.study:11: accel given twice" },
		{ HEAD EXP "column = disk.randread iops\naccel = kvm\n",
		  "x.study:11: accel = kvm: every configuration of the matrix gives accel=tcg" },
		{ HEAD "[experiment a]\ntitle = A\nmatrix = disk=ide accel=tcg | disk=ahci\nsuites = disk.randread\n"
		       "accel = tcg\ncolumn = disk.randread iops at iodepth=1\n",
		  "x.study:9: accel = tcg: the matrix's configuration 2 of 2 may run under KVM (accel=auto)" },
		{ HEAD CEXP "accel = kvm\n", "x.study:11: accel = kvm: lab contend boots its guests under the matrix's accel" },
		/* labels, documents and the report are UTF-8 */
		{ HEAD "description = M\xfcller\n", "x.study:5: not UTF-8 (byte 16 of the line is 0xfc)" },
	};
	char err[1200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(bad[i].text, err, sizeof(err));

		if (r != -EINVAL || strncmp(err, bad[i].want, strlen(bad[i].want)))
			fail_msg("case %zu: got %d '%s', expected '%s'", i, r, err, bad[i].want);
		assert_int_equal(st.nexp, 0); /* released */
	}
}

static void a_contend_experiment(void **state)
{
	char err[1200];

	(void)state;
	assert_int_equal(parse(HEAD CEXP "option = --guests 3\nselect = guest=1\nrows = policy,load\n"
				    "column = contend.share cpu_share at item=cpu.prime | share\n"
				    "expect = share: policy=rt,load=80 > policy=fair,load=80\n",
			       err, sizeof(err)),
			 0);
	assert_true(st.exp[0].contend);
	assert_int_equal(study_rounds(&st.exp[0], false), 3);
	assert_int_equal(study_rounds(&st.exp[0], true), 3); /* no quick-rounds: the rounds */
	assert_string_equal(st.exp[0].baseline, "none"); /* lab contend measures no host */
	assert_string_equal(st.exp[0].rows, "policy,load");
	assert_string_equal(st.exp[0].select, "guest=1");
	assert_int_equal(st.exp[0].ncolumns, 2);
	assert_int_equal(st.exp[0].rel[0].col, 1);
	study_release(&st);
}

/* quick-rounds: what --quick runs; the full run keeps its rounds */
/* How fine a run must be to decide each kind of claim, and an experiment's
 * target: the finest of its claims', bounded */
static void the_difference_a_claim_needs(void **state)
{
	static const struct {
		const char *published;
		double pct; /* NAN: no ratio stated */
	} pubs[] = {
		{ "10x", 900 },          { "~10\xc3\x97 slower", 900 }, { "about 3 times the throughput", 200 },
		{ "0.5x", 100 },         { "about 24% more CPU", 24 },  { "+12.5%", 12.5 },
		{ "-30%", 30 },          { "9,000 IOPS", NAN },         { "95% of the host", NAN },
		{ "-", NAN },            { "", NAN },                   { "1x", NAN },
		{ "from 22% to 89%", NAN }, { "QD 32: 2x", 100 },
	};
	static const struct {
		const char *claims; /* an experiment's claim lines */
		double mdd;         /* its target; NAN: nothing to decide */
		size_t which;       /* the claim that sets it */
		const char *why;
	} cases[] = {
		/* a direction: its published ratio's distance from 1, else 10% */
		{ "claim = t | about 24% more | IOPS: disk=ide > disk=ahci\n", 24, 0, "its published about 24% more" },
		{ "claim = t | - | IOPS: disk=ide > disk=ahci\n", 10, 0, "a direction with no published ratio: 10% assumed" },
		/* a ratio LO..HI: half its width, of its centre */
		{ "claim = t | ~10x | IOPS: disk=ide / disk=ahci in 5..20\n", 50, 0, "the half-width of 5x..20x, of its centre" },
		{ "claim = t | - | IOPS: disk=ide / disk=ahci in 0.8x..1.25x\n", 100 * 0.45 / 2.05, 0, NULL },
		/* closeness within P%: P/2 */
		{ "claim = t | - | IOPS: disk=ide ~ disk=ahci within 10%\n", 5, 0, "half its margin of 10%" },
		/* the finest claim counts, relations of a crossover each */
		{ "claim = a | 10x | IOPS: disk=ide > disk=ahci\nclaim = b | - | IOPS: disk=ide ~ disk=ahci within 6%\n", 3, 1, NULL },
		{ "claim = a | - | IOPS: disk=ide / disk=ahci in 2..3; IOPS: disk=ahci < disk=ide\n", 10, 0, NULL },
		/* bounded: at least 2%, at most 50% */
		{ "claim = t | - | IOPS: disk=ide ~ disk=ahci within 1%\n", STUDY_MDD_MIN, 0, NULL },
		{ "claim = t | 10x | IOPS: disk=ide > disk=ahci\n", STUDY_MDD_MAX, 0, NULL },
		/* nothing judged: nothing to decide */
		{ "claim = t | 3 | not comparable: no such figure\n", NAN, 0, NULL },
		{ "", NAN, 0, NULL },
	};
	char err[1200], text[2048], why[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(pubs); i++) {
		double got = study_published_pct(pubs[i].published);

		if (isnan(pubs[i].pct))
			assert_true(isnan(got));
		else
			assert_float_equal(got, pubs[i].pct, 1e-9);
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t which = 99;
		double got;

		snprintf(text, sizeof(text), HEAD EXP "column = disk.randread iops | IOPS\n%s", cases[i].claims);
		assert_int_equal(parse(text, err, sizeof(err)), 0);
		got = study_experiment_mdd(&st.exp[0], &which, why, sizeof(why));
		if (isnan(cases[i].mdd)) {
			assert_true(isnan(got));
		} else {
			assert_float_equal(got, cases[i].mdd, 1e-9);
			assert_int_equal(which, cases[i].which);
			if (cases[i].why)
				assert_string_equal(why, cases[i].why);
		}
		study_release(&st);
	}
}

static void quick_rounds(void **state)
{
	char err[1200];

	(void)state;
	assert_int_equal(parse(HEAD EXP "column = disk.randread iops\nrounds = 10\nquick-rounds = 5\nstatistic = trimmed\n",
			       err, sizeof(err)),
			 0);
	assert_int_equal(study_rounds(&st.exp[0], false), 10);
	assert_int_equal(study_rounds(&st.exp[0], true), 5);
	assert_int_equal(st.exp[0].quick_options.n, 0);
	assert_string_equal(st.exp[0].quick_skip, "");
	study_release(&st);
	/* quick-option words after option's; quick-skip's reason kept */
	assert_int_equal(parse(HEAD EXP "column = disk.randread iops\nquick-option = --disk.bs 8k\nquick-skip = too long\n",
			       err, sizeof(err)),
			 0);
	assert_int_equal(st.exp[0].quick_options.n, 2);
	assert_string_equal(st.exp[0].quick_options.v[0], "--disk.bs");
	assert_string_equal(st.exp[0].quick_options.v[1], "8k");
	assert_string_equal(st.exp[0].quick_skip, "too long");
	assert_int_equal(st.exp[0].options.n, 2); /* --disk.iodepth 1, untouched */
	study_release(&st);
}

static void hostile_bytes(void **state)
{
	char err[1200], *big = malloc(STUDY_MAX_LINE + 64);
	const char nul[] = "[study]\nformat = 1\0\n";

	(void)state;
	assert_int_equal(study_parse(nul, sizeof(nul) - 1, "x.study", &st, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "x.study:2: a NUL byte: a study file is text");
	assert_non_null(big);
	memset(big, 'a', STUDY_MAX_LINE + 10);
	big[STUDY_MAX_LINE + 10] = '\0';
	assert_int_equal(parse(big, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "x.study:1: a line longer than 4096 bytes");
	free(big);
	/* CRLF line ends are text too */
	assert_int_equal(parse("[study]\r\nformat = 1\r\ntitle = T\r\nsource = S\r\n[experiment a]\r\ntitle = A\r\n"
			       "not-run = why\r\n",
			       err, sizeof(err)),
			 0);
	assert_string_equal(st.exp[0].not_run, "why");
	study_release(&st);
}

/* A study's text for a terminal: controls and bytes that are not UTF-8 as
 * \xNN, characters whole, cut at an edge to fit. */
static void escaping(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want;
	} cases[] = {
		{ "plain <text> & tab\t", 64, "plain <text> & tab\t" },
		{ "a\033[31mb\007", 64, "a\\x1b[31mb\\x07" },
		{ "del\177 csi\302\233", 64, "del\\x7f csi\\xc2\\x9b" },
		{ "\303\274ber M\374ller \342\202", 64, "\303\274ber M\\xfcller \\xe2\\x82" },
		{ "ab\033", 6, "ab" },                 /* \x1b does not fit: not cut in two */
		{ "ab\303\274c", 4, "ab" },            /* nor a character */
		{ "", 1, "" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		study_escape(cases[i].in, buf, cases[i].len);
		if (strcmp(buf, cases[i].want))
			fail_msg("case %zu: got '%s', expected '%s'", i, buf, cases[i].want);
	}
}

/* What is not a study file is refused at once: a FIFO (whose open would
 * wait for a writer forever), a device, a directory; a byte-order mark
 * before the text is no error. */
static void files_that_are_not_studies(void **state)
{
	char dir[] = "/tmp/vmb-test-study-XXXXXX", fifo[128], err[1200];
	static const char bom[] = "\xef\xbb\xbf" HEAD "[experiment a]\ntitle = A\nnot-run = why\n";

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/f.study", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10); /* a hang is a failure, not a stuck test */
	assert_int_equal(study_load(fifo, &st, err, sizeof(err)), -EINVAL);
	alarm(0);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(study_load("/dev/zero", &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/dev/zero: not a regular file"));
	/* looked at before it is opened: a FIFO no one may open is still a FIFO */
	assert_int_equal(chmod(fifo, 0), 0);
	assert_int_equal(study_load(fifo, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(study_load(dir, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(study_load("/nonexistent/x.study", &st, err, sizeof(err)), -ENOENT);
	/* the name labels the results (study=NAME): refused, not cut, when no selector could name it */
	assert_int_equal(study_parse(bom, sizeof(bom) - 1, "/a/My study.study", &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/a/My study.study:1: the study's name"));
	memset(fifo, 'n', 64);
	memcpy(fifo + 64, ".study", 7);
	assert_int_equal(study_parse(bom, sizeof(bom) - 1, fifo + 1, &st, err, sizeof(err)), 0); /* 63: fits */
	study_release(&st);
	assert_int_equal(study_parse(bom, sizeof(bom) - 1, fifo, &st, err, sizeof(err)), -EINVAL);
	snprintf(fifo, sizeof(fifo), "%s/f.study", dir);
	(void)unlink(fifo);
	(void)rmdir(dir);
	assert_int_equal(study_parse(bom, sizeof(bom) - 1, "x.study", &st, err, sizeof(err)), 0);
	assert_string_equal(st.title, "T");
	study_release(&st);
}

/* A cell: the study's statistic of its rounds, and its figure in the
 * column's unit only when it converts; else in the document's, said. */
static void cells(void **state)
{
	static const struct {
		double v[10];
		size_t n;
		enum study_stat st;
		double want;
	} stat[] = {
		{ { 3, 1, 2 }, 3, STUDY_MEAN, 2 },
		{ { 10, 1, 2, 3 }, 4, STUDY_TRIMMED, 2.5 },           /* 1 and 10 dropped */
		{ { 5, 1, 9, 2, 8, 3, 7, 4, 6, 100 }, 10, STUDY_TRIMMED, 5.5 }, /* Study 1's 10 runs, 8 kept */
		{ { 4, 2 }, 2, STUDY_TRIMMED, 3 },                    /* fewer than 3: nothing to drop */
		{ { 9, 1, 5 }, 3, STUDY_MEDIAN, 5 },
		{ { 9, 1, 5, 2 }, 4, STUDY_MEDIAN, 3.5 },
		{ { 7 }, 1, STUDY_MEDIAN, 7 },
	};
	static const struct {
		const char *col, *doc;
		double v;
		bool ok;
		const char *want;
	} text[] = {
		{ "KB/s", "MB/s", 12.5, true, "12500" },
		{ "ms", "ns", 2.5e6, true, "2.5" },
		{ "GB/s", "MB/s", 1500, true, "1.5" },
		{ "", "1/s", 1234.4, true, "1234" },
		{ "ms", "ratio", 1.25, false, "1.25 ratio" },  /* never a ratio under "ms" */
		{ "MB/s", "Mbit/s", 800, false, "800 Mbit/s" },
		{ "1/s", "", 3, false, "3 (no unit)" },
		{ "ms", "ns", NAN, true, "-" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(stat) / sizeof(stat[0]); i++) {
		double v[10];

		memcpy(v, stat[i].v, sizeof(v));
		if (fabs(study_statistic(v, stat[i].n, stat[i].st) - stat[i].want) > 1e-12)
			fail_msg("statistic case %zu: %g, expected %g", i, study_statistic(v, stat[i].n, stat[i].st),
				 stat[i].want);
	}
	assert_true(isnan(study_statistic(NULL, 0, STUDY_MEAN)));
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		bool ok = study_cell_text(text[i].col, text[i].doc, text[i].v, buf, sizeof(buf));

		if (ok != text[i].ok || strcmp(buf, text[i].want))
			fail_msg("text case %zu: %d '%s', expected %d '%s'", i, ok, buf, text[i].ok, text[i].want);
	}
}

/* A lab document as lab run stores it: its configuration's name and
 * matrix keys, its round, disk.randread's cases at QD1 and QD32. */
static json_t *doc(const char *disk, unsigned round, double qd1_lat_ns, double qd32_iops)
{
	char name[64];

	snprintf(name, sizeof(name), disk ? "accel=tcg disk=%s" : "host", disk);
	return json_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:I}, s:[{s:s, s:[{s:s, s:["
			 "{s:{s:i}, s:[{s:s, s:s, s:s, s:{s:f}}]},"
			 "{s:{s:i}, s:[{s:s, s:s, s:s, s:{s:f}}]}]}]}]}",
			 "lab_config", name, "labels", "accel", "tcg", "disk", disk ? disk : "host", "run_group", "id", "g",
			 "round", (json_int_t)round, "suites", "name", "disk", "tests", "name", "randread", "cases",
			 "params", "iodepth", 1, "metrics", "name", "latency", "unit", "ns", "direction", "lower", "summary",
			 "mean", qd1_lat_ns, "params", "iodepth", 32, "metrics", "name", "iops", "unit", "1/s", "direction",
			 "higher", "summary", "mean", qd32_iops);
}

/* The table of an experiment from its documents: rows in the matrix's
 * order whatever order the rounds were stored in, the study's statistic,
 * units, each cell against the baseline in its metric's direction, and
 * each claim judged on the rounds both sides have: a claim of every kind
 * (direction, ratio, closeness, two columns of a row, several relations)
 * reaching each verdict (reproduced, contradicted, inconclusive, not
 * comparable). */
static void a_table_from_documents(void **state)
{
	const char *text = HEAD "[experiment a]\ntitle = A\nmatrix = accel=tcg disk=ide,ahci,lsi\n"
			   "suites = disk.randread\noption = --disk.iodepth 1,32\nrounds = 4\nstatistic = trimmed\n"
			   "rows = disk\nbaseline = disk=ide\n"
			   "column = disk.randread iops at iodepth=32 | QD32\n"
			   "column = disk.randread latency at iodepth=1 in us | lat us\n"
			   "column = disk.randread iops at iodepth=4 | QD4\n"
			   "expect = QD32: disk=ahci > disk=ide\n"
			   "expect = lat us: disk=ahci < disk=ide\n"
			   "expect = QD32: disk=ide > disk=ahci\n"
			   "expect = QD32: disk=lsi > disk=ide\n"
			   "expect = lat us: host < disk=ide\n"
			   "claim = ahci about twice ide | 2x | QD32: disk=ahci / disk=ide in 1.8..2.3\n"
			   "claim = ahci 3 to 5 times ide | 4x | QD32: disk=ahci / disk=ide in 3x..5x\n"
			   "claim = ahci close to ide | - | QD32: disk=ahci ~ disk=ide within 10%\n"
			   "claim = ahci's latency within 60% of ide's | - | lat us: disk=ahci ~ disk=ide within 60%\n"
			   "claim = at least 2.05x | - | QD32: disk=ahci / disk=ide in 2.05..2.5\n"
			   "claim = ide's QD32 below its latency | - | row disk=ide: QD32 < lat us\n"
			   "claim = about VT-x | - | QD32: disk=ahci > disk=ide | kvm\n"
			   "claim = an unmeasured figure | 12 ms | not comparable: the stand-in has no such counter\n"
			   "claim = a crossover | - | QD32: disk=ahci > disk=ide; lat us: disk=ahci < disk=ide\n"
			   "claim = half a crossover | - | QD32: disk=ahci > disk=ide; lat us: disk=ahci > disk=ide\n";
	static const double ide[4] = { 100, 110, 90, 105 };
	struct study_table *t = calloc(1, sizeof(*t));
	json_t *docs = json_array();
	char err[1200], buf[64];
	size_t n;

	(void)state;
	assert_non_null(t);
	assert_non_null(docs);
	assert_int_equal(parse(text, err, sizeof(err)), 0);
	/* stored in a shuffled order: lsi (one round only) first, the host between */
	json_array_append_new(docs, doc("lsi", 2, 70000, 150));
	for (unsigned k = 1; k <= 4; k++) {
		json_array_append_new(docs, doc("ahci", k, 50000 * (1 + 0.01 * k), 2 * ide[k - 1] * (1 + 0.01 * k)));
		json_array_append_new(docs, doc(NULL, k, 20000, 1000));
		json_array_append_new(docs, doc("ide", k, 100000 * (1 + 0.02 * k), ide[k - 1]));
	}
	assert_int_equal(study_tabulate(&st.exp[0], docs, t), 0);
	assert_int_equal(t->nrows, 4);
	assert_string_equal(t->rows[0].name, "host");
	assert_string_equal(t->rows[1].name, "disk=ide");
	assert_string_equal(t->rows[2].name, "disk=ahci");
	assert_string_equal(t->rows[3].name, "disk=lsi");
	/* trimmed: of 100, 110, 90, 105 the highest and the lowest dropped */
	assert_close(study_cell_stat(&t->rows[1].cell[0], STUDY_TRIMMED, &n), 102.5, 1e-9);
	assert_int_equal(n, 4);
	assert_close(study_cell_stat(&t->rows[1].cell[0], STUDY_MEDIAN, &n), 102.5, 1e-9);
	assert_close(study_cell_stat(&t->rows[3].cell[0], STUDY_TRIMMED, &n), 150, 1e-9);
	assert_int_equal(n, 1);
	/* units: the document's, and the column's when it converts */
	assert_string_equal(t->rows[1].cell[1].unit, "ns");
	assert_true(t->rows[1].cell[1].lower);
	assert_false(t->rows[1].cell[0].lower);
	assert_true(study_cell_text("us", t->rows[0].cell[1].unit, study_cell_stat(&t->rows[0].cell[1], STUDY_TRIMMED, &n),
				    buf, sizeof(buf)));
	assert_string_equal(buf, "20");
	/* against the baseline (disk=ide), paired by round, in the metric's direction */
	assert_string_equal(t->rows[1].cell[0].vs, "");
	assert_non_null(strstr(t->rows[2].cell[0].vs, "x, better, p="));
	assert_non_null(strstr(t->rows[2].cell[1].vs, "x, better, p=")); /* less latency is better */
	assert_non_null(strstr(t->rows[0].cell[1].vs, "x, better, p="));
	assert_string_equal(t->rows[3].cell[0].vs, "not judged: 1 paired round");
	/* a column no document has */
	assert_false(study_column_empty(t, 0));
	assert_true(study_column_empty(t, 2));
	/* the claims: expect lines are directions */
	{
		static const struct {
			enum study_verdict v;
			const char *measured, *why;
		} want[] = {
			{ STUDY_REPRODUCED, "2.05x [", "" },
			{ STUDY_REPRODUCED, "0.488x [", "" },
			{ STUDY_CONTRADICTED, "0.488x [", "" },
			{ STUDY_INCONCLUSIVE, "-", "1 round with a positive figure on both sides; 2 are needed" },
			{ STUDY_REPRODUCED, "0.1", "" },
			{ STUDY_REPRODUCED, "2.05x [2.0", "" },            /* the ratio's interval inside 1.8..2.3 */
			{ STUDY_CONTRADICTED, "2.05x", "" },               /* wholly below 3..5 */
			{ STUDY_CONTRADICTED, "+105", "" },                /* closeness: far outside 10% */
			{ STUDY_REPRODUCED, "-5", "" },                    /* within 60% */
			{ STUDY_INCONCLUSIVE, "2.05x", "the smallest difference this run could detect: " },
			{ STUDY_REPRODUCED, "0.00", "" },                  /* two columns of a row */
			{ STUDY_REPRODUCED, "2.05x", "" }, /* kvm: both sides asked for TCG (the study's own emulation) */
			{ STUDY_NOT_COMPARABLE, "-", "the stand-in has no such counter" },
			{ STUDY_REPRODUCED, "2.05x [2.0", "" },
			{ STUDY_CONTRADICTED, "2.05x [2.0", "" },
		};

		assert_int_equal(st.exp[0].nclaims, ARRAY_SIZE(want));
		for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
			const struct study_claim_result *cr = &t->claim[k];

			if (cr->v != want[k].v || strncmp(cr->measured, want[k].measured, strlen(want[k].measured)) ||
			    (*want[k].why ? !strstr(cr->why, want[k].why) : *cr->why))
				fail_msg("claim %zu (%s): %s, measured '%s', why '%s'; expected %s, '%s...', '%s'", k,
					 st.exp[0].claim[k].text, study_verdict_name(cr->v), cr->measured, cr->why,
					 study_verdict_name(want[k].v), want[k].measured, want[k].why);
		}
	}
	/* the same documents, ahci's configuration having asked for KVM (accel=auto) and run under TCG: the claim
	 * about hardware virtualization is not comparable; the others are judged as before */
	{
		size_t i;
		json_t *d;

		json_array_foreach(docs, i, d)
			if (!strcmp(json_string_value(json_object_get(d, "lab_config")), "accel=tcg disk=ahci"))
				json_object_set_new(d, "lab_config", json_string("accel=auto disk=ahci"));
		memset(t, 0, sizeof(*t));
		assert_int_equal(study_tabulate(&st.exp[0], docs, t), 0);
		assert_int_equal(t->claim[11].v, STUDY_NOT_COMPARABLE);
		assert_non_null(strstr(t->claim[11].why, "ran under TCG"));
		assert_int_equal(t->claim[5].v, STUDY_REPRODUCED);
	}
	json_decref(docs);
	free(t);
	study_release(&st);
}

/* A document of nics NICs on links shaped to linkrate (the nics and
 * linkrate keys), its stream's Mbit/s */
static json_t *link_doc(unsigned nics, const char *linkrate, unsigned round, double mbit)
{
	char name[96], n[8];

	snprintf(n, sizeof(n), "%u", nics);
	snprintf(name, sizeof(name), "accel=tcg nic=e1000 nics=%u linkrate=%s", nics, linkrate);
	return json_pack("{s:s, s:{s:s, s:s, s:s, s:s}, s:{s:s, s:I}, s:[{s:s, s:[{s:s, s:["
			 "{s:{s:i}, s:[{s:s, s:s, s:s, s:{s:f}}]}]}]}]}",
			 "lab_config", name, "labels", "accel", "tcg", "nic", "e1000", "nics", n, "linkrate", linkrate,
			 "run_group", "id", "g", "round", (json_int_t)round, "suites", "name", "net", "tests", "name",
			 "tcp_stream", "cases", "params", "streams", 1, "metrics", "name", "mbit_per_s", "unit", "Mbit/s",
			 "direction", "higher", "summary", "mean", mbit);
}

/* A claim about links (| link) is judged where one NIC filled its shaped
 * link (90% of its rate or more), and is not comparable where the NIC's
 * emulation bound it below, saying what it moved on what link; a byte
 * rate's column is judged in bits */
static void a_claim_about_links(void **state)
{
	const char *text = HEAD "[experiment a]\ntitle = A\nmatrix = accel=tcg nic=e1000 nics=1,4 linkrate=20mbit\n"
			   "suites = net.tcp_stream\nrows = nics\nbaseline = nics=1\n"
			   "column = net.tcp_stream mbit_per_s | Mbit\n"
			   "column = net.tcp_stream mbit_per_s in MB/s | MB/s\n"
			   "claim = four near the sum of the links | - | Mbit: nics=4 / nics=1 in 3..4.2 | link\n"
			   "claim = the same in bytes | - | MB/s: nics=4 / nics=1 in 3..4.2 | link\n"
			   "claim = the same, not about links | - | Mbit: nics=4 / nics=1 in 3..4.2\n";
	static const struct {
		double one[3], four[3];
		enum study_verdict v;
		const char *why;
	} cases[] = {
		/* the link filled (19 of 20 Mbit/s): judged */
		{ { 19, 19.5, 18.5 }, { 74, 77, 73 }, STUDY_REPRODUCED, "" },
		{ { 19, 19.5, 18.5 }, { 30, 31, 29 }, STUDY_CONTRADICTED, "" },
		/* 5 Mbit/s on a link of 20: the NIC's emulation bounds it */
		{ { 5, 5.5, 4.5 }, { 5, 5.5, 4.5 }, STUDY_NOT_COMPARABLE, "one NIC (nics=1) moved 5 Mbit/s on a link of 20 Mbit/s" },
	};
	char err[1200];

	(void)state;
	assert_int_equal(parse(text, err, sizeof(err)), 0);
	assert_true(st.exp[0].claim[0].link && !st.exp[0].claim[0].kvm && !st.exp[0].claim[2].link);
	{
		char how[1024];

		study_claim_how(&st.exp[0], &st.exp[0].claim[0], how, sizeof(how));
		assert_non_null(strstr(how, "about links: not comparable where a side's configuration of one NIC"));
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct study_table *t = calloc(1, sizeof(*t));
		json_t *docs = json_array();

		assert_non_null(t);
		for (unsigned r = 0; r < 3; r++) {
			json_array_append_new(docs, link_doc(1, "20mbit", r + 1, cases[i].one[r]));
			json_array_append_new(docs, link_doc(4, "20mbit", r + 1, cases[i].four[r]));
		}
		assert_int_equal(study_tabulate(&st.exp[0], docs, t), 0);
		for (size_t k = 0; k < 2; k++)
			if (t->claim[k].v != cases[i].v || (*cases[i].why ? !strstr(t->claim[k].why, cases[i].why) : 0))
				fail_msg("case %zu claim %zu: %s '%s', expected %s '%s'", i, k, study_verdict_name(t->claim[k].v),
					 t->claim[k].why, study_verdict_name(cases[i].v), cases[i].why);
		/* without | link, the figures alone */
		assert_int_not_equal(t->claim[2].v, STUDY_NOT_COMPARABLE);
		json_decref(docs);
		free(t);
	}
	study_release(&st);
}

/* A lab document of configuration disk=DISK (the host: NULL) that ran
 * under accel (NULL: no label, as the host's), with a lab_note. */
static json_t *accel_doc(const char *disk, unsigned round, const char *accel, const char *note)
{
	json_t *d = doc(disk, round, 1000, 100), *labels = json_object_get(d, "labels");

	if (accel)
		json_object_set_new(labels, "accel", json_string(accel));
	else
		json_object_del(labels, "accel");
	if (note)
		json_object_set_new(d, "lab_note", json_string(note));
	return d;
}

/* Each row says the accelerator its documents ran under, as lab run
 * labelled them once it resolved accel=auto or a study's accel = kvm:
 * kvm, tcg, mixed when the rounds differ, none for the host; a failed
 * boot's marker counts for none; the note on why TCG ran is kept. */
static void the_accelerator_each_row_ran_under(void **state)
{
	const char *text = HEAD "[experiment a]\ntitle = A\nmatrix = accel=kvm disk=ide,ahci,lsi,virtio-blk\naccel = kvm\n"
			   "suites = disk.randread\noption = --disk.iodepth 1,32\nrows = disk\n"
			   "column = disk.randread iops at iodepth=32 | QD32\n";
#define FELL "accel=kvm (the study's accel = kvm): KVM could not boot the guest here (QEMU stopped the guest for good), TCG used"
	const char *fell = FELL;
	static const struct {
		const char *name, *want, *note;
	} rows[] = {
		{ "host", NULL, "" },
		{ "disk=ide", "kvm", "" },
		{ "disk=ahci", "mixed", FELL },
		{ "disk=lsi", "tcg", FELL },
		{ "disk=virtio-blk", "tcg", "" },
	};
	struct study_table *t = calloc(1, sizeof(*t));
	json_t *docs = json_array(), *marker;
	char err[1200];

	(void)state;
	assert_non_null(t);
	assert_non_null(docs);
	assert_int_equal(parse(text, err, sizeof(err)), 0);
	assert_int_equal(st.exp[0].accel, STUDY_ACCEL_KVM);
	assert_string_equal(study_accel_name(st.exp[0].accel), "kvm");
	for (unsigned k = 1; k <= 3; k++) {
		json_array_append_new(docs, accel_doc(NULL, k, NULL, NULL));
		json_array_append_new(docs, accel_doc("ide", k, "kvm", NULL));
		/* KVM in round 1, then the study's run learnt it cannot boot a guest here */
		json_array_append_new(docs, accel_doc("ahci", k, k == 1 ? "kvm" : "tcg", k == 1 ? NULL : fell));
		json_array_append_new(docs, accel_doc("lsi", k, "tcg", fell));
		/* TCG with a note that is not the accelerator's (user networking) */
		json_array_append_new(docs, accel_doc("virtio-blk", k, "tcg", "NICs on user networking: no tap"));
	}
	/* a failed KVM boot of lsi: its marker measured nothing */
	marker = accel_doc("lsi", 1, "kvm", NULL);
	json_object_set_new(marker, "lab_failure", json_pack("{s:s}", "step", "boot"));
	json_array_append_new(docs, marker);
	assert_int_equal(study_tabulate(&st.exp[0], docs, t), 0);
	assert_int_equal(t->nrows, sizeof(rows) / sizeof(rows[0]));
	for (size_t r = 0; r < t->nrows; r++) {
		const char *got = study_row_accel(t, r);

		assert_string_equal(t->rows[r].name, rows[r].name);
		if (rows[r].want ? !got || strcmp(got, rows[r].want) : got != NULL)
			fail_msg("row %s: %s, expected %s", rows[r].name, got ? got : "NULL", rows[r].want ? rows[r].want : "NULL");
		assert_string_equal(t->rows[r].accel_note, rows[r].note);
	}
	assert_int_equal(t->rows[2].nkvm, 1);
	assert_int_equal(t->rows[2].ntcg, 2);
	assert_null(study_row_accel(t, t->nrows)); /* no such row */
	json_decref(docs);
	free(t);
	study_release(&st);
}

/* A contend table's rows follow the study's option lists (--policy
 * reservation,fair: reservation first; --load 95,50), not the shuffled
 * order its cells were measured and stored in. */
static void contend_rows_in_the_options_order(void **state)
{
	static const char *const cells[][2] = { { "fair", "50" }, { "reservation", "50" }, { "fair", "95" },
						{ "reservation", "95" } };
	struct study_table *t = calloc(1, sizeof(*t));
	json_t *docs = json_array();
	char err[1200];

	(void)state;
	assert_non_null(t);
	assert_non_null(docs);
	assert_int_equal(parse(HEAD CEXP "option = --policy reservation,fair\noption = --load 95,50\n"
				    "rows = policy,load\nselect = guest=1\n",
			       err, sizeof(err)),
			 0);
	for (size_t i = 0; i < ARRAY_SIZE(cells); i++)
		for (unsigned g = 2; g >= 1; g--)
			json_array_append_new(docs, json_pack("{s:s, s:{s:s, s:s, s:s, s:s}, s:{s:s, s:I}, s:[]}",
							      "lab_config", "accel=tcg", "labels", "accel", "tcg",
							      "policy", cells[i][0], "load", cells[i][1], "guest",
							      g == 1 ? "1" : "2", "run_group", "id", "g", "round",
							      (json_int_t)1, "suites"));
	assert_int_equal(study_tabulate(&st.exp[0], docs, t), 0);
	assert_int_equal(t->nrows, 4);
	assert_string_equal(t->rows[0].name, "policy=reservation load=95");
	assert_string_equal(t->rows[1].name, "policy=reservation load=50");
	assert_string_equal(t->rows[2].name, "policy=fair load=95");
	assert_string_equal(t->rows[3].name, "policy=fair load=50");
	json_decref(docs);
	free(t);
	study_release(&st);
}

static void units(void **state)
{
	(void)state;
	assert_close(study_unit_factor("MB/s", "KB/s"), 1000, 1e-9);
	assert_close(study_unit_factor("ns", "us"), 1e-3, 1e-15);
	assert_close(study_unit_factor("s", "ms"), 1000, 1e-9);
	assert_close(study_unit_factor("Mbit/s", "Gbit/s"), 1e-3, 1e-15);
	assert_close(study_unit_factor("MiB/s", "MB/s"), 1.048576, 1e-12);
	assert_close(study_unit_factor("1/s", "1/s"), 1, 0);
	assert_true(study_unit_factor("MB/s", "ms") == 0);
	assert_true(study_unit_factor("GFLOP/s", "MB/s") == 0);
	assert_true(study_unit_factor("Mbit/s", "MB/s") == 0); /* bits and bytes are kept apart */
}

/* Every shipped study parses (`make test` plans each in cli-study too). */
static void shipped_studies(void **state)
{
	DIR *d = opendir(STUDIES);
	struct dirent *de;
	size_t n = 0;
	char err[1200], path[4096];

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len <= 6 || strcmp(de->d_name + len - 6, ".study"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", STUDIES, de->d_name);
		if (study_load(path, &st, err, sizeof(err)) < 0)
			fail_msg("%s", err);
		assert_true(st.nexp > 0);
		study_release(&st);
		n++;
	}
	closedir(d);
	assert_true(n >= 4);
}

/* The rows follow the matrix's order whatever accelerator resolved: the
 * label accel is what ran (accel=auto, or a study's accel = kvm, under TCG
 * here), the configuration's name what was asked, which the matrix holds */
static void rows_in_the_matrix_order_whatever_ran(void **state)
{
	static const struct {
		const char *matrix, *name, *ran;
	} cases[] = {
		{ "accel=tcg disk=ide,ahci,lsi", "accel=tcg disk=%s", "tcg" },
		{ "accel=auto disk=ide,ahci,lsi", "accel=auto (ran tcg) disk=%s", "tcg" },
		{ "accel=auto disk=ide,ahci,lsi", "accel=auto (ran kvm) disk=%s", "kvm" },
		{ "accel=kvm disk=ide,ahci,lsi", "accel=kvm (ran tcg) disk=%s", "tcg" },
		{ "disk=ide,ahci,lsi", "disk=%s", "tcg" },
	};
	static const char *const stored[] = { "lsi", "ahci", "ide" }; /* as a round's shuffle stored them */
	struct study_table *t = calloc(1, sizeof(*t));

	(void)state;
	assert_non_null(t);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char text[512], err[1200];
		json_t *docs = json_array();

		snprintf(text, sizeof(text), HEAD "[experiment a]\ntitle = A\nmatrix = %s\nsuites = disk.randread\n"
			 "option = --disk.iodepth 1,32\nrows = disk\ncolumn = disk.randread iops at iodepth=32 | QD32\n",
			 cases[i].matrix);
		assert_int_equal(parse(text, err, sizeof(err)), 0);
		for (size_t k = 0; k < ARRAY_SIZE(stored); k++) {
			json_t *d = doc(stored[k], 1, 1000, 100);
			char name[64];

			snprintf(name, sizeof(name), cases[i].name, stored[k]);
			json_object_set_new(d, "lab_config", json_string(name));
			json_object_set_new(json_object_get(d, "labels"), "accel", json_string(cases[i].ran));
			json_array_append_new(docs, d);
		}
		json_array_append_new(docs, doc(NULL, 1, 1000, 100));
		assert_int_equal(study_tabulate(&st.exp[0], docs, t), 0);
		assert_int_equal(t->nrows, 4);
		if (strcmp(t->rows[0].name, "host") || strcmp(t->rows[1].name, "disk=ide") ||
		    strcmp(t->rows[2].name, "disk=ahci") || strcmp(t->rows[3].name, "disk=lsi"))
			fail_msg("%s, stored as %s: rows %s, %s, %s, %s", cases[i].matrix, cases[i].name, t->rows[0].name,
				 t->rows[1].name, t->rows[2].name, t->rows[3].name);
		json_decref(docs);
		study_release(&st);
	}
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_whole_study), cmocka_unit_test(a_contend_experiment), cmocka_unit_test(contend_rows_in_the_options_order), cmocka_unit_test(quick_rounds), cmocka_unit_test(the_difference_a_claim_needs), cmocka_unit_test(spread_column), cmocka_unit_test(errors_name_the_line), cmocka_unit_test(hostile_bytes),
		cmocka_unit_test(units),         cmocka_unit_test(shipped_studies), cmocka_unit_test(escaping),
		cmocka_unit_test(files_that_are_not_studies), cmocka_unit_test(cells),
		cmocka_unit_test(a_table_from_documents),
		cmocka_unit_test(rows_in_the_matrix_order_whatever_ran), cmocka_unit_test(the_accelerator_each_row_ran_under),
		cmocka_unit_test(a_claim_about_links),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
