#!/bin/sh
# lab run --plan and lab contend --plan: the configurations, rounds, boots and
# an estimate, with the options checked as the run checks them; nothing boots
# (a QEMU on PATH that would say so is never started), nothing is stored or
# built. The plan a run prints as it starts is checked by cli-lab's matrix run.
. "$(dirname "$0")/lib.sh"

# every qemu-system-ARCH the lab could start: this one leaves a mark
mkdir -p "$T/bin"
for a in x86_64 aarch64; do
	printf '#!/bin/sh\necho "$0 $*" >>"%s/qemu-started"\nexit 1\n' "$T" >"$T/bin/qemu-system-$a"
	chmod +x "$T/bin/qemu-system-$a"
done
PATH="$T/bin:$PATH"
export PATH
nothing="--db $T/plan.db --cache $T/cache --image-dir $T/imgs"

# shellcheck disable=SC2086 # $nothing: words
expect 0 "lab run --plan of a 2x2 matrix" "$VMB" lab run --plan --matrix "accel=tcg disk=ide,virtio-blk smp=1,2" \
	--suites cpu.prime,boot --rounds 3 --boots 2 $nothing
check "4 configurations x 3 rounds x 2 boots = 24 boots, each configuration listed, an estimate" python3 - "$T/out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
lines = text.splitlines()
assert lines[0].startswith("plan: 4 configurations x 3 rounds x 2 boots = 24 boots, and the host measured each "
                           "round; against the host"), text
configs = [l.strip() for l in lines if l.startswith("    accel=")]
assert configs == ["accel=tcg disk=%s smp=%s" % (d, s) for d in ("ide", "virtio-blk") for s in ("1", "2")], configs
assert re.search(r"^  suites cpu.prime,boot: \d+ cases? a run, ", text, re.M), text
m = re.search(r"^  estimated: (\d+) (s|min) to (\d+) (s|min) \(a boot as the lab's images take under TCG", text, re.M)
assert m, text
lo, hi = (int(m.group(i)) * (60 if m.group(i + 1) == "min" else 1) for i in (1, 3))
assert 0 < lo <= hi, (lo, hi)
PY
check "nothing booted: no QEMU started" test ! -e "$T/qemu-started"
check "nothing stored: no result store made" test ! -e "$T/plan.db"
check "nothing built: no cache, no image" sh -c 'test ! -e "$1/cache" && test ! -e "$1/imgs"' sh "$T"
lacks "$T/err" "lab session" "no session started"

# shellcheck disable=SC2086
expect 0 "lab run --plan --rounds auto" "$VMB" lab run --plan --matrix "accel=tcg disk=ide,virtio-blk" \
	--suites cpu.prime --rounds auto --mdd 5 --budget-total 600 --boots 1 $nothing
has "$T/out" "plan: 2 configurations x 2 to 100 rounds (--rounds auto) x 1 boot = 4 to 200 boots" \
	"the rounds as a range: the least that judge a difference to the most"
has "$T/out" "rounds: --rounds auto, at least 2 (the fewest that judge a difference), at most 100: stopped by its rule (--mdd 5%) or before a round that would end after --budget-total 600 s" \
	"the rule and the budget's bound"
check "the estimate's upper bound is the budget" python3 - "$T/out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^  estimated: \d+ (s|min) to 10 min \(from the least rounds to --budget-total", text, re.M)
assert m, text
PY

# shellcheck disable=SC2086
expect 0 "lab contend --plan" "$VMB" lab contend --plan --matrix accel=tcg --guests 3 --policy fair,rt --load 0,50 \
	--suites cpu.prime --rounds 2 $nothing
has "$T/out" "plan: 3 guests of one configuration at once (accel=tcg), booted once = 3 boots; 4 cells (policies fair,rt x loads 0,50) x 2 rounds" \
	"the guests, the cells and the rounds"
has "$T/out" "  suites cpu.prime: " "the suites"
has "$T/out" "  estimated: " "an estimate"
check "nothing booted, stored or built by lab contend --plan either" sh -c 'test ! -e "$1/qemu-started" &&
	test ! -e "$1/plan.db" && test ! -e "$1/cache" && test ! -e "$1/imgs"' sh "$T"

# the options are checked as the run checks them
# shellcheck disable=SC2086
expect 2 "--plan with a matrix key that does not exist: refused" "$VMB" lab run --plan --matrix "colour=red" $nothing
touch "$T/exists.html"
# shellcheck disable=SC2086
expect 2 "--plan with -o an existing file: refused, as the run would be" "$VMB" lab run --plan --matrix accel=tcg \
	-o "$T/exists.html" $nothing
# shellcheck disable=SC2086
expect 2 "lab contend --plan with two configurations: refused" "$VMB" lab contend --plan --matrix "disk=ide,nvme" $nothing

# a study plans its experiments itself: --plan is not an option line's
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=tcg disk=ide,ahci\nsuites = cpu\noption = --threads 1\noption = --plan\ncolumn = cpu.prime events_per_s | events/s\n' \
	>"$T/plan.study"
# shellcheck disable=SC2086
expect 2 "a study's option line --plan: refused" "$VMB" lab study "$T/plan.study" --plan --db "$T/plan.db"
has "$T/err" "option --plan: a study may not give it: lab study --plan plans the whole study" "says why"
check "nothing booted by any of them" test ! -e "$T/qemu-started"
finish
