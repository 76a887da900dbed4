#!/bin/sh
# A user's mistake: exit 2 and a message that says what would be right.
. "$(dirname "$0")/lib.sh"

expect 2 "no command" "$VMB"
expect 2 "unknown command" "$VMB" runn
has "$T/err" "did you mean 'run'" "unknown command suggests run"
expect 2 "bad suite" "$VMB" run nosuch
has "$T/err" "unknown suite 'nosuch'; valid suites: cpu" "bad suite lists the valid ones"
expect 2 "bad test" "$VMB" run cpu.nosuch
has "$T/err" "valid tests: prime, matrix, zlib" "bad test lists the valid ones"
expect 2 "--threads abc" "$VMB" run cpu --threads abc
has "$T/err" "--threads: 'abc' is not valid; expected a comma-separated list of whole numbers from 1 to 4096 or 'all'" \
	"--threads message"
expect 2 "--time -1" "$VMB" run cpu --time -1
has "$T/err" "--time: '-1' is out of range; expected a number from 0.01 to 86400" "--time message"
expect 2 "--time abc" "$VMB" run cpu --time abc
expect 2 "unknown option" "$VMB" run cpu --tiem 3
has "$T/err" "unknown option '--tiem'; did you mean '--time'?" "unknown option suggests --time"
has "$T/err" "see 'vmbench run --help'" "unknown option points to help"
expect 2 "unknown suite option" "$VMB" run cpu --cpu.max-primes 5
has "$T/err" "did you mean '--cpu.max-prime'" "suite option suggestion"
expect 2 "suite option out of range" "$VMB" run cpu --cpu.max-prime 2
expect 2 "missing value" "$VMB" run cpu --time
has "$T/err" "needs a value (SECONDS)" "missing value message"
expect 2 "--min-reps > --max-reps" "$VMB" run cpu --min-reps 5 --max-reps 3
expect 2 "bad --cpus" "$VMB" run cpu --cpus 3-1
expect 2 "--cpus naming a CPU this process cannot use" "$VMB" run cpu --cpus 1000
has "$T/err" "CPU 1000 is not available to this process" "unavailable CPU named"
expect 2 "bad --label" "$VMB" run cpu --label novalue
touch "$T/exists.json"
expect 2 "--json onto an existing file" "$VMB" run cpu --json "$T/exists.json"
has "$T/err" "exists; vmbench writes only new files" "existing file is refused"
check "the existing file is untouched" test ! -s "$T/exists.json"
expect 2 "show without argument" "$VMB" show
expect 2 "info with an argument" "$VMB" info extra
expect 2 "help for no command" "$VMB" help nosuch
# --db '' is a mistake, not the default store
for c in "results" "show 1" "export 1" "compare 1 2" "import $SRC/tests/fixtures/import/sysbench-cpu.txt" \
	"run cpu.prime --quick"; do
	# shellcheck disable=SC2086
	expect 2 "$c --db ''" "$VMB" $c --db ''
	has "$T/err" "--db: the path is empty; give the store's file" "$c: says what would be right"
done
mkdir "$T/adir"
touch "$T/afile"
expect 2 "--db naming a directory" "$VMB" results --db "$T/adir"
has "$T/err" "not a regular file; pass a file path with --db" "directory refused"
expect 2 "--db ending in /" "$VMB" import "$SRC/tests/fixtures/import/sysbench-cpu.txt" --db "$T/new/"
has "$T/err" "names a directory; pass the path of a file with --db" "trailing slash refused"
check "and nothing was created" test ! -e "$T/new"
expect 2 "--db under a file" "$VMB" import "$SRC/tests/fixtures/import/sysbench-cpu.txt" --db "$T/afile/x.db"
has "$T/err" "pass a usable file path with --db" "path under a file refused"
check "nothing was stored by any of these" test ! -e "$T/results.db"
# a label is text shown on terminals: no escape sequence gets stored
expect 2 "--label with an escape character" "$VMB" run cpu.prime --label "hv=kvm$(printf '\033')[2J" --no-store
has "$T/err" "--label number 1: hv: the value has a control character" "says which label"
# JSON text is UTF-8: a label, argument or selector that is not is refused
# (exit 2, naming the option and the byte), never dropped from the document
expect 2 "--label value not UTF-8" "$VMB" run cpu.prime --quick --label "x=caf$(printf '\351')" --label ok=1
has "$T/err" "after --label: not UTF-8 (byte 5 is 0xe9)" "names the option and the byte"
check "and nothing was stored" test ! -e "$T/results.db"
expect 2 "--label key not UTF-8" "$VMB" run cpu.prime --quick "--label=$(printf '\377')x=1" --no-store
has "$T/err" "argument 4, --label: not UTF-8 (byte 8 is 0xff)" "names --label= and the byte"
expect 2 "an argument not UTF-8" "$VMB" run "cpu$(printf '\300\256')prime" --no-store
has "$T/err" "argument 2: not UTF-8 (byte 3 is 0xc0)" "an overlong form is not UTF-8 either"
expect 2 "a selector not UTF-8" "$VMB" results --label "hv=$(printf '\355\240\200')"
has "$T/err" "after --label: not UTF-8 (byte 3 is 0xed)" "a surrogate is refused"
expect 2 "a positional selector not UTF-8" "$VMB" results "hv=$(printf '\351')"
has "$T/err" "argument 2: not UTF-8" "positional selector refused"
# lab's verbs: which verb takes an option is said by their tables alone; a
# misplaced option names the verbs that take it
expect 2 "lab report --matrix: refused" "$VMB" lab report --matrix x
has "$T/err" "--matrix belongs to lab run and lab contend; 'lab report' does not take it" "names the verbs that take it"
has "$T/err" "see 'vmbench lab report --help'" "points to the verb's help"
expect 2 "lab run --guests 2: refused" "$VMB" lab run --guests 2
has "$T/err" "--guests belongs to lab contend; 'lab run' does not take it" "names lab contend"
expect 2 "lab contend --boots 2: refused" "$VMB" lab contend --boots 2
has "$T/err" "--boots belongs to lab run; 'lab contend' does not take it" "names lab run"
expect 0 "lab --help" "$VMB" lab --help
has "$T/out" "--matrix SPEC               run, contend: the configurations" "lab's help names every verb that takes --matrix"
# every option a verb's --help shows, the verb takes (a value may be out of range: never unknown or a sibling's)
for verb in image run contend report study; do
	"$VMB" lab "$verb" --help >"$T/help-$verb" 2>&1
	bad=""
	for w in $(awk '/^options:/{on=1; next} /^$/{on=0} on && /^  -/ && !/not taken here/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^--/) { sub(/,$/, "", $i); n = $i; m = $(i + 1);
			print (m ~ /^[A-Z]/ ? n "=1" : n); break } }' "$T/help-$verb"); do
		"$VMB" lab "$verb" "$w" --help >/dev/null 2>"$T/e" || true
		if grep -q "unknown option\|belongs to" "$T/e"; then bad="$bad $w"; fi
	done
	check "lab $verb takes every option its --help shows" test -z "$bad" -a -s "$T/help-$verb"
done

finish
