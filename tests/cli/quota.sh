#!/bin/sh
# sched.quota on this host, --quick: the groups made with the quotas asked
# for (read at a stop point, no sleeps) and gone after the run, Ctrl-C and
# kill -9; the kernel's quota read back in the document; the cap holds;
# throttling counted where a group asks for more than its quota and got
# near it; P95 present and between p50 and p99; a skip with the reason
# where no cgroup can be made; the user's mistakes refused with exit 2.
# Every expectation comes from what the run recorded, not from this host.
. "$(dirname "$0")/lib.sh"

# doc DESCRIPTION FILE PYTHON: PYTHON runs with Q (the quota test, or None
# when the file has none), M (its first case's metrics, medians) and P (its params)
doc() {
	check "$1" python3 -c '
import json, statistics, sys
d = json.load(open(sys.argv[1]))
Q = [t for s in d["suites"] for t in s["tests"] if s["name"] == "sched" and t["name"] == "quota"]
Q = Q[0] if Q else None
M = {m["name"]: statistics.median(m["samples"]) for m in Q["cases"][0]["metrics"]} if Q and Q["cases"] else {}
H = {m["name"]: m for m in Q["cases"][0]["metrics"]} if Q and Q["cases"] else {}
P = Q["cases"][0]["params"] if Q and Q["cases"] else {}
'"$3" "$2"
}
status() { # status FILE: ok, or the skip's reason
	python3 -c '
import json, sys
t = [t for s in json.load(open(sys.argv[1]))["suites"] for t in s["tests"] if t["name"] == "quota"][0]
print(t["status"] if t["status"] == "ok" else t["reason"])' "$1"
}
groups_of() {
	find /sys/fs/cgroup -maxdepth 4 -type d -name "vmbench-sched-$1" 2>/dev/null
}

expect 0 "sched.quota --quick runs (or skips with why)" "$VMB" run sched.quota --quick --no-store --json "$T/q.json"
st=$(status "$T/q.json")
if [ "$st" = ok ]; then
	doc "the kernel holds the quotas asked for, normal and over-committed (totals 3.0 and 4.5)" "$T/q.json" '
asked = {"normal": [1.2, 0.8, 1.0], "over": [1.8, 1.2, 1.5]}
for s, cpus in asked.items():
    for g, c in enumerate(cpus):
        assert abs(M[f"{s}_g{g}_quota_cpus"] - c) < 1e-9, (s, g, M[f"{s}_g{g}_quota_cpus"])
    assert abs(M[f"{s}_quota_total_cpus"] - sum(cpus)) < 1e-9, M[f"{s}_quota_total_cpus"]
assert P["quota-cpus"] == "1.2,0.8,1.0" and P["quota-over"] == "1.8,1.2,1.5", P'
	doc "each state: P95 present, p50 <= p95 <= p99, each group's too; the histogram counts requests" "$T/q.json" '
for s in ("normal", "over"):
    for p in [f"{s}_latency"] + [f"{s}_g{g}" for g in range(3)]:
        assert 0 < M[p + "_p50"] <= M[p + "_p95"] <= M[p + "_p99"], (p, M[p + "_p50"], M[p + "_p95"], M[p + "_p99"])
    h = H[f"{s}_latency"]["histogram"]
    assert h["count"] > 0 and h["percentiles"]["p50"] <= h["percentiles"]["p99"] <= h["max"], h
    assert M[f"{s}_requests_per_s"] > 0'
	doc "the cap holds: no group used more CPU than its quota; switches counted" "$T/q.json" '
for s in ("normal", "over"):
    for g in range(3):
        q = M[f"{s}_g{g}_quota_cpus"]
        # a short window starts and ends inside periods: one period of slack each side
        assert M[f"{s}_g{g}_cpus"] <= q * 1.2 + 0.05, (s, g, M[f"{s}_g{g}_cpus"], q)
        assert 0 <= M[f"{s}_g{g}_throttled_pct"] <= 100
    # every switch away from a load thread is one of the whole machine s
    assert M[f"{s}_switches_per_s"] >= 0.8 * M[f"{s}_load_switches_per_s"] > 0, s
    assert M[f"{s}_load_preempted_per_s"] <= M[f"{s}_load_switches_per_s"]'

	# a group asking twice its quota: throttled in every period it reaches it
	expect 0 "a group asking 200% of its quota" "$VMB" run sched.quota --quick --no-store --json "$T/thr.json" \
		--sched.quota-state over --sched.quota-cpus 0.2 --sched.quota-over 0.2 --sched.quota-threads 1 \
		--sched.quota-load 200 --sched.period 100000
	got=$(python3 -c '
import json, statistics, sys
t = [t for t in json.load(open(sys.argv[1]))["suites"][0]["tests"] if t["name"] == "quota"][0]
m = {x["name"]: statistics.median(x["samples"]) for x in t["cases"][0]["metrics"]}
print("%.3f %.3f" % (m["over_g0_cpus"], m["over_g0_quota_cpus"]))' "$T/thr.json")
	if python3 -c 'import sys; c, q = map(float, sys.argv[1:]); sys.exit(c < 0.9 * q)' $got; then
		doc "and its throttled periods and time are counted (cpu.stat)" "$T/thr.json" '
assert M["over_g0_throttled_pct"] > 0 and M["over_g0_throttled_ms_per_s"] > 0, M
assert "normal_switches_per_s" not in M, "--sched.quota-state over measures that state only"'
	else
		skip "throttling counted" "the group got $got (CPUs used, quota): this machine did not let it reach its quota"
	fi

	# the groups at the first state's stop point, then gone
	python3 "$SRC/tests/cli/cgsnap.py" save "$T/cg.before"
	# at the stop point: each group's name and its quota and period, v2's cpu.max or v1's two files
	cat >"$T/knobs.sh" <<EOF
echo \$VMB_PID >$T/pid
for d in \$(find /sys/fs/cgroup -maxdepth 4 -type d -name "vmbench-sched-\$VMB_PID"); do
	for g in "\$d"/g*; do
		if [ -e "\$g/cpu.max" ]; then echo "\${g##*/} \$(cat "\$g/cpu.max")"
		else echo "\${g##*/} \$(cat "\$g/cpu.cfs_quota_us") \$(cat "\$g/cpu.cfs_period_us")"; fi
	done
done >$T/knobs
EOF
	expect 0 "stopped with its groups in use" python3 "$SRC/tests/cli/stop_at.py" sched-quota-groups \
		"sh $T/knobs.sh" "$VMB" run sched.quota --quick --no-store --json "$T/stop.json"
	check "three groups, holding 1.2, 0.8 and 1.0 CPUs of their period" python3 -c '
import sys
got = {r[0]: float(r[1]) / float(r[2]) for r in (l.split() for l in open(sys.argv[1]))}
assert sorted(got) == ["g0", "g1", "g2"], got
for g, c in zip(("g0", "g1", "g2"), (1.2, 0.8, 1.0)):
    assert abs(got[g] - c) < 1e-9, (g, got[g])' "$T/knobs"
	check "and after the run no cgroup is left" test -z "$(groups_of "$(cat "$T/pid")")"

	interrupt_at_groups() { # interrupt_at_groups SIGNAL
		{
			python3 "$SRC/tests/cli/stop_at.py" sched-quota-groups "echo \$VMB_PID >$T/pid; kill -$1 \$VMB_PID" \
				"$VMB" run sched.quota --quick --no-store
			echo $? >"$T/rc"
		} 2>&1 | cat >"$T/kill.out"
	}
	interrupt_at_groups INT
	check "Ctrl-C with the groups in use: exit 130" test "$(cat "$T/rc")" = 130
	check "after Ctrl-C no cgroup is left" test -z "$(groups_of "$(cat "$T/pid")")"
	interrupt_at_groups KILL
	check "kill -9 with the groups in use: died of it" test "$(cat "$T/rc")" = 137
	check "after kill -9 no cgroup is left (the watchdog removed them)" test -z "$(groups_of "$(cat "$T/pid")")"
	check "and the host's cgroup files read as before" python3 "$SRC/tests/cli/cgsnap.py" same "$T/cg.before"
else
	skip "sched.quota's values, groups and cleanup" "$st"
fi

# where no cgroup can be made: skipped with the reason, the run goes on
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	ro='mount --make-rprivate / && for m in $(awk '\''$5 ~ "^/sys/fs/cgroup" {print $5}'\'' /proc/self/mountinfo); do mount -o remount,bind,ro $m || exit 1; done'
	expect 0 "read-only cgroups: the run goes on" unshare -m sh -c "$ro"' && exec "$@"' ns \
		"$VMB" run sched.quota cpu.prime --quick --no-store --cpu.max-prime 1000 --json "$T/ro.json"
	doc "sched.quota skipped with the reason" "$T/ro.json" '
assert Q["status"] == "skipped" and "cgroup" in Q["reason"] and Q["reason"].isprintable(), Q'
else
	skip "read-only cgroups" "needs root and unshare -m"
fi

expect 2 "a quota that is no number is refused" "$VMB" run sched.quota --quick --no-store --sched.quota-cpus 1.2,x,1
has "$T/err" "--sched.quota-cpus 1.2,x,1: give 1 to 8 groups' CPUs" "and says what to give"
expect 2 "states of different group counts are refused" "$VMB" run sched.quota --quick --no-store \
	--sched.quota-cpus 1,1
has "$T/err" "--sched.quota-cpus has 2 groups and --sched.quota-over 3" "and says so"
expect 2 "a quota below the kernel's 1 ms is refused" "$VMB" run sched.quota --quick --no-store \
	--sched.quota-cpus 0.05 --sched.quota-over 0.05 --sched.period 10000
has "$T/err" "give at least 0.100 CPUs or a longer period" "and says what would do"
expect 2 "more CPUs than the group has threads is refused" "$VMB" run sched.quota --quick --no-store \
	--sched.quota-over 3,1,1
has "$T/err" "a group of 2 threads (--sched.quota-threads) cannot use 3 CPUs" "and says why"
finish
