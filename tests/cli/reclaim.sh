#!/bin/sh
# What a kill -9 of vmbench's whole process group leaves (its cgroup
# watchdog dies with it) is removed by the next run of the same kind, and
# said: the disk suite's test files, sched.fairness's and lab contend's
# cgroups (with the real-time runtime they hold), the lab's work
# directories. Only what vmbench made and whose process is gone: a live
# owner's, an unmarked one, a link and its target, another user's stay.
# The process stops itself at a named point and is killed there (no
# sleeps). Also: an RT runtime refused says who holds it, and calibrate
# refuses a read-only store before it measures anything.
# Not run beside other tests (tests/meson.build): the cgroups' real-time
# runtime is the machine's, and the leftovers made here hold it.
. "$(dirname "$0")/lib.sh"
MODE=${3:-all}
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"

# kill_at POINT CMD...: CMD in a process group of its own (setsid keeps the
# PID), killed with the whole group by SIGKILL when it stops at POINT; its
# PID in $T/pid, its exit status in $T/rc, its stderr in $T/err. ACTION,
# when set, runs first at the stop ($VMB_PID is the process).
kill_at() {
	point=$1
	shift
	python3 "$SRC/tests/cli/stop_at.py" "$point" "echo \$VMB_PID >'$T/pid'; ${ACTION:-:}; kill -9 -\$VMB_PID" \
		setsid "$@" >"$T/out" 2>"$T/err" </dev/null
	echo $? >"$T/rc"
}
# A PID whose process is gone: a shell's that has exited.
dead_pid() { sh -c 'echo $$'; }
can_ns() { [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; }

# ---- calibrate on a read-only store: refused before any run ----
if can_ns; then
	mkdir "$T/ro"
	expect 2 "calibrate with a store on a read-only file system: a usage error" unshare -m sh -c \
		'mount --make-rprivate / && mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"' \
		ns "$T/ro" "$VMB" calibrate cpu.prime --quick --time 0.05 --repeat 1 --runs 2 --db "$T/ro/cal.db"
	has "$T/err" "the calibration cannot be stored in $T/ro/cal.db.calibration: Read-only file system; nothing was measured" \
		"says where and why, and that nothing was measured"
	lacks "$T/err" "calibrating: run 1 of 2" "before any run"
else
	skip "calibrate on a read-only store" "needs root and unshare -m for a read-only mount"
fi

if ! command -v setsid >/dev/null 2>&1; then
	skip "leftovers of a kill -9" "setsid (util-linux) is needed to kill a process group of its own"
	finish
	exit $?
fi

# ---- the disk suite's test files ----
D="$T/disk"
mkdir "$D"
kill_at disk-layout "$VMB" run disk.randread --quick --no-store --disk.dir "$D" --disk.size 16m
pid=$(cat "$T/pid")
check "disk: kill -9 of the process group during the layout: died of it" test "$(cat "$T/rc")" = 137
left=$(cd "$D" && ls | grep "^vmbench-disk-$pid-" || true)
check "it left its test file, named with its PID" test -n "$left"
dead=$(dead_pid)
printf x >"$D/vmbench-disk-$$-alive1"   # this shell's: alive, and older than the file
printf x >"$D/vmbench-disk-AbCdEf"      # no PID: an older vmbench's, or the user's
printf v >"$T/victim"
ln -s "$T/victim" "$D/vmbench-disk-$dead-link01"
mkdir "$D/vmbench-disk-$dead-dir001"
printf x >"$D/vmbench-disk-$dead-OtHerx"
if [ "$(id -u)" -eq 0 ] && chown 65534 "$D/vmbench-disk-$dead-OtHerx" 2>/dev/null; then
	other=yes
else
	rm -f "$D/vmbench-disk-$dead-OtHerx"
	other=no
fi
expect 0 "the next disk run in that directory" "$VMB" run disk.randread --quick --no-store --disk.dir "$D" --disk.size 16m
has "$T/err" "removed $D/$left (" "says the file it removed and its size"
has "$T/err" "the disk test file of vmbench process $pid, which is gone" "and whose it was"
check "the file is gone" test ! -e "$D/$left"
check "a live process's file, a name without a PID, a link, its target and a directory stay" sh -c '
	test -f "$1/vmbench-disk-$2-alive1" && test -f "$1/vmbench-disk-AbCdEf" && test -L "$1/vmbench-disk-$3-link01" &&
	test -f "$4/victim" && test -d "$1/vmbench-disk-$3-dir001"' sh "$D" $$ "$dead" "$T"
if [ "$other" = yes ]; then
	check "another user's file stays" test -f "$D/vmbench-disk-$dead-OtHerx"
else
	skip "another user's file stays" "needs root to give a file to another user"
fi
lacks "$T/err" "vmbench-disk-$$-" "the live process's file is not mentioned"
printf x >"$D/vmbench-disk-$dead-QuIetx"
expect 0 "a disk run with -q" "$VMB" run disk.randread --quick --no-store -q --disk.dir "$D" --disk.size 16m
lacks "$T/err" "removed" "removes in silence"
check "and removes" test ! -e "$D/vmbench-disk-$dead-QuIetx"

# ---- cgroups: sched.fairness's and lab contend's ----
# where vmbench makes its groups: this process's cgroup in the v1 cpu hierarchy
cgparent=$(python3 - <<'PY'
for line in open("/proc/self/mountinfo"):
    f = line.split()
    d = f.index("-")
    if f[d + 1] == "cgroup" and "cpu" in f[d + 3].split(","):
        for c in open("/proc/self/cgroup"):
            _, ctl, path = c.rstrip("\n").split(":", 2)
            if "cpu" in ctl.split(","):
                print(f[4] + ("" if path == "/" else path))
                break
        break
PY
)
if [ "$(id -u)" -ne 0 ] || [ -z "$cgparent" ] || [ ! -e "$cgparent/cpu.rt_runtime_us" ]; then
	skip "cgroups left by a kill -9" "root and a cgroup v1 cpu hierarchy with RT group scheduling are needed"
	cgparent=
fi
# The real-time runtime the groups beside ours do not hold: what a group may be granted.
rt_free() {
	python3 - "$cgparent" <<'PY'
import os, sys
p = sys.argv[1]
have = int(open(os.path.join(p, "cpu.rt_runtime_us")).read())
held = 0
for n in os.listdir(p):
    f = os.path.join(p, n, "cpu.rt_runtime_us")
    if os.path.isfile(f):
        held += max(0, int(open(f).read()))
print(have - held)
PY
}
# make_tree NAME US: the groups lab contend makes (NAME/g0, NAME/g1), US of
# real-time runtime granted to NAME and NAME/g0, as lab contend grants it
make_tree() {
	mkdir "$cgparent/$1" && echo "$2" >"$cgparent/$1/cpu.rt_runtime_us" && mkdir "$cgparent/$1/g0" "$cgparent/$1/g1" &&
		echo "$2" >"$cgparent/$1/g0/cpu.rt_runtime_us"
}
rm_tree() {
	rmdir "$cgparent/$1/g0" "$cgparent/$1/g1" "$cgparent/$1" 2>/dev/null
}
if [ -n "$cgparent" ]; then
	free=$(rt_free)
	if [ "$free" -lt 100000 ]; then
		skip "real-time runtime held by a leftover" "only $free us of real-time runtime is free under $cgparent"
	else
		# a live owner's tree (this shell's) holding what is free: kept, and named when rt is refused
		check "a live vmbench's groups (this shell's PID) take the free real-time runtime" \
			make_tree "vmbench-contend-$$" "$free"
		expect 1 "sched.fairness rt while they hold it: nothing measured" "$VMB" run sched.fairness \
			--quick --no-store --sched.mode rt --json "$T/busy.json"
		check "rt is skipped, and the reason names what the parent has and who holds it" python3 - "$T/busy.json" \
			"$cgparent" "vmbench-contend-$$" "$free" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]
want = "its other groups hold %s us (%s %s us)" % (sys.argv[4], sys.argv[3], sys.argv[4])
assert t["status"] == "skipped", t["status"]
assert "real-time runtime was refused (Invalid argument): %s has " % sys.argv[2] in t["reason"], t["reason"]
assert want in t["reason"], (want, t["reason"])
PY
		check "a live owner's groups stay" test -d "$cgparent/vmbench-contend-$$/g0"
		rm_tree "vmbench-contend-$$"
		# the same groups, of a process that is gone: lab contend's layout, made by hand
		dead=$(dead_pid)
		free=$(rt_free)
		check "the groups of a lab contend that is gone take it: lab contend's layout, made by hand" \
			make_tree "vmbench-contend-$dead" "$free"
		expect 0 "sched.fairness rt after a lab contend that was killed" "$VMB" run sched.fairness --quick \
			--no-store --sched.mode rt --json "$T/rt.json"
		has "$T/err" "removed cgroup $cgparent/vmbench-contend-$dead (groups " "says the groups it removed"
		has "$T/err" "; $free us of real-time runtime), left by vmbench process $dead, which is gone" \
			"with the real-time runtime they held"
		check "they are gone" test ! -e "$cgparent/vmbench-contend-$dead"
		check "and rt was granted the runtime: measured, not skipped" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]
assert t["status"] == "ok", (t["status"], t.get("reason"))' "$T/rt.json"
		rm_tree "vmbench-contend-$dead"
	fi
	kill_at sched-groups "$VMB" run sched.fairness --quick --no-store
	pid=$(cat "$T/pid")
	check "sched.fairness: kill -9 of the process group with its groups in use: died of it" \
		test "$(cat "$T/rc")" = 137
	check "it left vmbench-sched-PID (its watchdog died with it)" test -d "$cgparent/vmbench-sched-$pid"
	expect 0 "the next sched.fairness" "$VMB" run sched.fairness --quick --no-store
	has "$T/err" "removed cgroup $cgparent/vmbench-sched-$pid (groups " "says the groups it removed"
	check "they are gone" test ! -e "$cgparent/vmbench-sched-$pid"
fi

# ---- lab contend and lab run: a kill before any guest boots ----
if [ "$MODE" != all ]; then
	skip "lab contend's groups and lab work directories after a kill -9" "the plain build's test (an image to boot)"
	finish
	exit $?
fi
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "lab contend's groups and lab work directories after a kill -9" \
		"an x86_64 host with busybox-static and qemu-system-x86 is needed"
	finish
	exit $?
fi
shared_images x86_64
M="accel=tcg mem=256M"
lab_args="--suites cpu.prime --cache $SRC/build-lab-cache --image-dir $T/imgs --db $T/lab.db -o $T/lab.html"
if [ -n "$cgparent" ] && [ "$(rt_free)" -ge 900000 ]; then
	kill_at contend-groups "$VMB" lab contend --matrix "$M" --guests 2 --policy rt $lab_args
	p1=$(cat "$T/pid")
	check "lab contend --policy rt: kill -9 of the process group with its groups made: died of it" \
		test "$(cat "$T/rc")" = 137
	check "it left its groups, real-time runtime granted" sh -c 'test "$(cat "$1/g0/cpu.rt_runtime_us")" -gt 0' sh \
		"$cgparent/vmbench-contend-$p1"
	ACTION="cat '$cgparent'/vmbench-contend-\$VMB_PID/g0/cpu.rt_runtime_us >'$T/rt2'" \
		kill_at contend-groups "$VMB" lab contend --matrix "$M" --guests 2 --policy rt $lab_args
	p2=$(cat "$T/pid")
	has "$T/err" "removed cgroup $cgparent/vmbench-contend-$p1 (groups " "the next lab contend removes them, and says so"
	lacks "$T/err" "rt: skipped" "and rt is not skipped"
	check "its own group 0 was granted real-time runtime" sh -c 'test "$(cat "$1")" -gt 0' sh "$T/rt2"
	expect 0 "a sched.fairness after it" "$VMB" run sched.fairness --quick --no-store
	has "$T/err" "removed cgroup $cgparent/vmbench-contend-$p2 (groups " "removes lab contend's too"
else
	skip "lab contend's groups after a kill -9" "root, RT group scheduling and 900 ms of free real-time runtime are needed"
fi
kill_at lab-prepared "$VMB" lab run --matrix "$M" --baseline none $lab_args
p1=$(cat "$T/pid")
check "lab run: kill -9 of the process group with its work directory made: died of it" test "$(cat "$T/rc")" = 137
w1=$(grep -l "^vmbench $p1 " "$TMPDIR"/vmbench-lab-*/.vmbench-owner 2>/dev/null | xargs -r dirname)
check "it left its work directory, the scratch disk's image in it" test -f "$w1/disk.img"
# not ours to remove: no marker; a link (to a directory that is marked as a
# dead process's); a live process's (this shell's start time, this boot)
mkdir "$TMPDIR/vmbench-lab-NoMark" "$T/target" "$TMPDIR/vmbench-lab-alive1"
printf x >"$TMPDIR/vmbench-lab-NoMark/disk.img"
cp "$w1/.vmbench-owner" "$T/target/"
ln -s "$T/target" "$TMPDIR/vmbench-lab-link01"
printf 'vmbench %s %s %s\n' $$ "$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)" \
	"$(cat /proc/sys/kernel/random/boot_id)" >"$TMPDIR/vmbench-lab-alive1/.vmbench-owner"
kill_at lab-prepared "$VMB" lab run --matrix "$M" --baseline none $lab_args
has "$T/err" "removed $w1 (" "the next lab run removes it, and says its size"
has "$T/err" "the lab work directory of vmbench process $p1, which is gone" "and whose it was"
check "it is gone" test ! -e "$w1"
check "an unmarked directory, a link, its target and a live process's stay" sh -c '
	test -f "$1/vmbench-lab-NoMark/disk.img" && test -L "$1/vmbench-lab-link01" && test -f "$2/target/.vmbench-owner" &&
	test -f "$1/vmbench-lab-alive1/.vmbench-owner"' sh "$TMPDIR" "$T"
finish
