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
check "nothing was stored by any of these" test ! -e "$T/results.db"
finish
