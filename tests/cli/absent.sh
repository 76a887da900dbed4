#!/bin/sh
# What a run does on a machine that lacks a fact (docs/methodology.md, the
# table of that name): each absence is made here, in a mount or network
# namespace of the test's own, a seccomp filter (vmbench-deny, $3) or with
# dropped rights, and the quick selection of the suites that depend on it
# must exit 0, every test measured or skipped with its reason, the fallback
# or the reason in the result document. An absence this machine cannot make
# (not root, no unshare) is a TAP skip with why.
. "$(dirname "$0")/lib.sh"
# what these runs check is the skip or fallback, not the figure: the
# shortest measurement that still measures
FAST="--time 0.05 --warmup 0 --min-reps 2 --max-reps 2 --threads 1"
DENY=$3

d="$T/d"
mkdir -p "$d"
# a disk run in $T: on a /tmp that is tmpfs O_DIRECT is refused, so buffered
# there (the /tmp row below is about that case)
dbuf=""
[ "$(stat -f -c %T "$T")" != tmpfs ] || dbuf="--disk.buffered"
small="--quick $FAST --disk.dir $d --disk.size 16m --disk.file-size 8m $dbuf --no-store"

# doc DESCRIPTION FILE PYTHON: the document in FILE holds, and nothing in it
# failed or was skipped without a reason; PYTHON sees d (the document),
# S (suites by name), T (tests as SUITE.TEST), note(SUITE, KEY); the skips
# are listed as TAP diagnostics
doc() {
	check "$1" python3 - "$2" "$3" <<'PY'
import errno, json, os, sys
d = json.load(open(sys.argv[1]))
S = {s["name"]: s for s in d["suites"]}
T = {s["name"] + "." + t["name"]: t for s in d["suites"] for t in s["tests"]}
def note(s, k):
    return str(S[s]["notes"].get(k, ""))
for s in d["suites"]:
    assert s["status"] != "failed", (s["name"], s["reason"])
    assert s["status"] != "skipped" or s["reason"], ("suite skipped without a reason", s["name"])
for n, t in T.items():
    assert t["status"] in ("ok", "skipped"), (n, t["status"], t["reason"])
    assert t["status"] != "skipped" or t["reason"], ("skipped without a reason", n)
exec(sys.argv[2])
PY
	python3 - "$2" <<'PY' 2>/dev/null || true
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["suites"]:
    if s["status"] == "skipped":
        print(f"# skipped {s['name']}: {s['reason']}")
    for t in s["tests"]:
        if t["status"] == "skipped":
            print(f"# skipped {s['name']}.{t['name']}: {t['reason']}")
PY
}

can_ns() { [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; }
# ns SETUP CMD...: CMD in a private mount namespace after the shell commands SETUP
ns() {
	setup=$1
	shift
	unshare -m sh -c 'mount --make-rprivate / && '"$setup"' && exec "$@"' ns "$@"
}

# ---- io_uring refused: a container's seccomp profile ----
if "$DENY" EPERM io_uring_setup -- true 2>/dev/null; then
	expect 0 "io_uring_setup refused (EPERM): the disk suite runs" "$DENY" EPERM io_uring_setup -- "$VMB" run disk \
		$small --json "$T/uring-eperm.json"
	doc "on psync, the fallback named" "$T/uring-eperm.json" '
assert note("disk", "engine") == "psync", S["disk"]["notes"]
assert f"io_uring is unavailable here ({os.strerror(errno.EPERM)})" in note("disk", "engine_fallback"), S["disk"]["notes"]
assert all(T[t]["status"] == "ok" for t in T), T'
	expect 0 "io_uring_setup missing (ENOSYS)" "$DENY" ENOSYS io_uring_setup -- "$VMB" run disk.randread $small \
		--json "$T/uring-enosys.json"
	# the fallback note quotes the errno's text, as the C library says it
	doc "on psync, with ENOSYS's reason" "$T/uring-enosys.json" '
assert note("disk", "engine") == "psync", S["disk"]["notes"]
assert f"io_uring is unavailable here ({os.strerror(errno.ENOSYS)})" in note("disk", "engine_fallback"), S["disk"]["notes"]'
	# a profile that lets the ring be made and refuses entering it: the
	# first I/O failed before the probe submitted a no-op
	expect 0 "io_uring_enter refused only" "$DENY" EPERM io_uring_enter -- "$VMB" run disk.randread $small \
		--json "$T/uring-enter.json"
	doc "on psync too, not a failed test" "$T/uring-enter.json" '
assert note("disk", "engine") == "psync" and "a no-op request" in note("disk", "engine_fallback")
assert T["disk.randread"]["status"] == "ok"'
	expect 0 "--disk.engine io_uring asked for where it is refused: a skip" "$DENY" EPERM io_uring_setup -- \
		"$VMB" run cpu.prime disk.randread $small --disk.engine io_uring --json "$T/uring-asked.json"
	doc "with what works instead" "$T/uring-asked.json" '
assert S["disk"]["status"] == "skipped" and "--disk.engine psync works everywhere" in S["disk"]["reason"], S["disk"]'
	# no network namespace of the lab's own: the NICs on user networking,
	# said before anything boots (-o names a file that exists: nothing runs)
	: >"$T/exists.html"
	expect 2 "lab run where unshare is refused" "$DENY" EPERM unshare -- "$VMB" lab run \
		--matrix "accel=tcg nic=e1000" -o "$T/exists.html" --db "$T/lab-none.db"
	has "$T/err" "user networking carries the NICs (tap+vhost: " "the fallback, said"
	has "$T/err" "tap: a tap device in a network namespace of the lab's own (unshare, /dev/net/tun) is not permitted here: Operation not permitted" \
		"with why"
	has "$T/err" "the bottleneck, not the NIC model" "and what it means for the figures"
else
	skip "io_uring refused" "no seccomp filter can be set here (vmbench-deny)"
fi

# ---- a container's disk: no /sys/block of its own, no device in /proc/diskstats ----
if can_ns; then
	grep -v ' vd\| sd\| nvme\| xvd\| hd' /proc/diskstats >"$T/diskstats"
	expect 0 "no /sys/block, /sys/dev/block nor diskstats line for the device: disk runs" ns \
		"mount -t tmpfs none /sys/block && mount -t tmpfs none /sys/dev/block && mount --bind $T/diskstats /proc/diskstats" \
		"$VMB" run disk.randwrite disk.fsync $small --json "$T/container.json"
	doc "write amplification unknown, and said" "$T/container.json" '
assert "none found" in note("disk", "device") and "no write amplification" in note("disk", "device"), S["disk"]["notes"]
wa = [m for t in S["disk"]["tests"] for c in t["cases"] for m in c["metrics"] if m["name"] == "write_amplification"]
assert not wa, wa'
	expect 0 "vmbench info there" ns "mount -t tmpfs none /sys/block && mount -t tmpfs none /sys/dev/block" \
		"$VMB" info --json
	check "lists no block device, and says nothing false" python3 -c \
		'import json,sys; d=json.load(open(sys.argv[1])); assert not d.get("block_devices"), d.get("block_devices")' \
		"$T/out"
else
	skip "a container's disk" "needs root and unshare -m"
fi

# ---- no /dev/kvm, no /dev/cpu_dma_latency: a /dev with the basic nodes only ----
mkdev="mount -t tmpfs -o mode=755 none $T/dev && for n in null zero full random urandom tty; do touch $T/dev/\$n && mount --bind /dev/\$n $T/dev/\$n || exit 1; done && mkdir $T/dev/shm $T/dev/pts && ln -s /proc/self/fd $T/dev/fd && mount --move $T/dev /dev"
if can_ns; then
	mkdir -p "$T/dev"
	expect 0 "no /dev/kvm: the vmexit suite runs" ns "$mkdev" "$VMB" run vmexit --quick $FAST --no-store \
		--json "$T/nokvm.json"
	doc "vmexit.kvm skipped, with why" "$T/nokvm.json" '
r = T["vmexit.kvm"]["reason"] or ""
if T["vmexit.kvm"]["status"] == "skipped" and "architecture" not in r:
    assert r.startswith("no /dev/kvm on this machine (No such file or directory)"), r
else:
    assert T["vmexit.kvm"]["status"] == "skipped", T["vmexit.kvm"]'
	expect 0 "no /dev/cpu_dma_latency: sched.wakeup runs" ns "$mkdev" "$VMB" run sched.wakeup --quick $FAST --no-store \
		--json "$T/nodma.json"
	doc "wakeup measured, the latency request not made, and said" "$T/nodma.json" '
assert T["sched.wakeup"]["status"] == "ok", T["sched.wakeup"]
assert note("sched", "cpu_dma_latency").startswith("not set: No such file or directory"), S["sched"]["notes"]'
else
	skip "no /dev/kvm, no /dev/cpu_dma_latency" "needs root and unshare -m"
fi

# ---- no real-time priority, no mlock: not root, RLIMIT_RTPRIO 0 ----
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && command -v prlimit >/dev/null; then
	expect 0 "root without CAP_SYS_NICE and RLIMIT_RTPRIO 0: sched runs" prlimit --rtprio=0 \
		setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice "$VMB" run sched --quick $FAST --no-store \
		--json "$T/nort.json"
	doc "fairness's rt row left out with the reason (or fairness skipped with its cgroup reason)" "$T/nort.json" '
f = T["sched.fairness"]
# skipped only for want of cgroups, never for the rt row alone
assert f["status"] == "ok" or f["reason"].startswith(("no permission to create cgroups", "no cgroup hierarchy",
                                                       "cgroup v2 at")), f
if f["status"] == "ok":
    # refused here, or left out earlier where the cgroup has no real-time runtime to give
    assert note("sched", "fairness_rt").startswith("not measured: "), S["sched"]["notes"]
    names = {m["name"] for c in f["cases"] for m in c["metrics"]}
    assert "fair_jain" in names and not any(n.startswith("rt_") for n in names), names
assert T["sched.wakeup"]["status"] == "ok"'
	expect 0 "--sched.policy fifo asked for there: a skip" prlimit --rtprio=0 \
		setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice "$VMB" run cpu.prime sched.wakeup --quick $FAST \
		--sched.policy fifo --sched.priority 50 --no-store --json "$T/fifo.json"
	doc "saying what is missing" "$T/fifo.json" '
assert "SCHED_FIFO priority" in T["sched.wakeup"]["reason"] and "RLIMIT_RTPRIO 0" in T["sched.wakeup"]["reason"]'
	chmod 711 "$T"
	mkdir -p "$T/nobody"
	chown 65534 "$T/nobody"
	expect 0 "an unprivileged user (no mlock beyond ulimit -l, no cgroups of its own)" prlimit --rtprio=0 \
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T/nobody" "$VMB" run sched.wakeup sched.fairness --quick $FAST \
		--no-store --json "$T/nobody/sched.json"
	doc "wakeup measured unlocked and said so; fairness skipped with a readable reason" "$T/nobody/sched.json" '
assert T["sched.wakeup"]["status"] == "ok", T["sched.wakeup"]
m = note("sched", "mlock")
assert m == "" or m.startswith("not locked: mlockall:"), m
f = T["sched.fairness"]
assert f["status"] == "ok" or (f["reason"].isprintable() and "cgroup" in f["reason"]), f'
else
	skip "no real-time priority" "needs root, setpriv and prlimit to drop the rights"
fi

# ---- cgroups: v2 only, v1 only, read-only, none ----
if can_ns; then
	# the hierarchies mounted here are unmounted first (a tmpfs laid over them
	# would leave them in mountinfo, which no machine of that shape has);
	# cpu.prime beside fairness: a run of which fairness is skipped still exits 0
	nocg="umount -R -l /sys/fs/cgroup && mount -t tmpfs none /sys/fs/cgroup"
	fair="cpu.prime sched.fairness --quick $FAST --cpu.max-prime 1000 --no-store"
	cgok='
f = T["sched.fairness"]
assert f["status"] == "ok" or "cgroup" in f["reason"], f
if f["status"] == "ok":
    assert note("sched", "cgroups").startswith("cgroup v"), S["sched"]["notes"]'
	expect 0 "cgroup v2 only" ns "$nocg && mount -t cgroup2 none /sys/fs/cgroup" "$VMB" run $fair \
		--json "$T/cg2.json"
	doc "fairness measured on v2, or skipped with why" "$T/cg2.json" "$cgok"
	v1="$nocg && mkdir /sys/fs/cgroup/cpu && mount -t cgroup -o cpu none /sys/fs/cgroup/cpu"
	if ns "$v1" true 2>/dev/null; then
		expect 0 "cgroup v1 only" ns "$v1" "$VMB" run $fair --json "$T/cg1.json"
		doc "fairness on v1" "$T/cg1.json" "$cgok"'
assert f["status"] == "ok" and note("sched", "cgroups").startswith("cgroup v1"), (f, S["sched"]["notes"])'
	else
		skip "cgroup v1 only" "the cpu controller is in use by cgroup v2 here: no v1 hierarchy can have it"
	fi
	ro='for m in $(awk '\''$5 ~ "^/sys/fs/cgroup" {print $5}'\'' /proc/self/mountinfo); do mount -o remount,bind,ro $m || exit 1; done'
	expect 0 "read-only cgroups" ns "$ro" "$VMB" run $fair --json "$T/cgro.json"
	doc "fairness skipped with the reason" "$T/cgro.json" '
f = T["sched.fairness"]
assert f["status"] == "skipped" and "Read-only file system" in f["reason"] and f["reason"].isprintable(), f'
	expect 0 "no cgroup mounted at all" ns "$nocg" "$VMB" run $fair --json "$T/cgnone.json"
	doc "fairness on a private mount of its own, or skipped with why" "$T/cgnone.json" "$cgok"
else
	skip "cgroup layouts" "needs root and unshare -m"
fi

# ---- THP 'never', no hugetlb pages ----
if can_ns && [ -e /sys/kernel/mm/transparent_hugepage/enabled ]; then
	printf 'always madvise [never]\n' >"$T/thp"
	thp="mount --bind $T/thp /sys/kernel/mm/transparent_hugepage/enabled"
	expect 0 "THP never: the disk suite with --disk.iomem thp" ns "$thp" "$VMB" run disk.randread $small \
		--disk.iomem thp --json "$T/thp.json"
	doc "measured, the buffers said to be on base pages" "$T/thp.json" '
assert "never" in note("disk", "iomem_thp"), S["disk"]["notes"]'
	expect 0 "THP never: the fingerprint says so" ns "$thp" "$VMB" info --json
	check "thp enabled: never" python3 -c \
		'import json,sys; d=json.load(open(sys.argv[1])); assert d["thp"]["enabled"] == "never", d["thp"]' "$T/out"
	if [ "$(awk '/^HugePages_Free/ {print $2}' /proc/meminfo)" = 0 ]; then
		expect 0 "no hugetlb pages: --disk.iomem mmaphuge is a skip" "$VMB" run cpu.prime disk.randread $small \
			--disk.iomem mmaphuge --json "$T/huge.json"
		doc "saying how to reserve them" "$T/huge.json" '
assert S["disk"]["status"] == "skipped" and "vm.nr_hugepages" in S["disk"]["reason"], S["disk"]'
	else
		skip "no hugetlb pages" "this machine has hugetlb pages reserved"
	fi
else
	skip "THP never" "needs root, unshare -m and a kernel with THP"
fi

# ---- no IPv6; loopback down (a bare network namespace) ----
if [ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null; then
	expect 0 "no IPv6: the net suite on loopback" unshare -n sh -c 'ip link set lo up &&
		{ sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.lo.disable_ipv6=1 2>/dev/null || true; } &&
		exec "$@"' sh "$VMB" run net --quick $FAST --no-store --json "$T/noipv6.json"
	doc "every net test measured over IPv4 loopback" "$T/noipv6.json" '
assert all(T[t]["status"] == "ok" or (t == "memcached" and "not installed" in T[t]["reason"]) for t in T), T'
	expect 0 "loopback down: the net suite" unshare -n "$VMB" run cpu.prime net --quick $FAST --no-store \
		--json "$T/nolo.json"
	doc "skipped with why and what to do" "$T/nolo.json" '
assert S["net"]["status"] == "skipped" and "the loopback interface is down" in S["net"]["reason"], S["net"]'
else
	skip "no IPv6, no loopback" "needs root and unshare -n"
fi

# ---- /tmp on tmpfs; the working directory on tmpfs ----
if can_ns; then
	# $T is in /tmp: a tmpfs over /tmp would hide it, so $TMPDIR is a
	# tmpfs instead (vmbench's measurements never write to /tmp itself)
	mkdir -p "$T/shm" "$T/tmpfs"
	expect 0 "TMPDIR on tmpfs: disk and app run" ns "mount -t tmpfs none $T/tmpfs" env TMPDIR="$T/tmpfs" "$VMB" \
		run disk app $small --app.dir "$d" --json "$T/tmp.json"
	doc "measured where they were told, not in TMPDIR" "$T/tmp.json" '
assert S["disk"]["status"] == "ok" and S["app"]["status"] == "ok", (S["disk"]["reason"], S["app"]["reason"])'
	expect 0 "the working directory on tmpfs: the defaults there" ns "mount -t tmpfs none $T/shm" \
		sh -c 'cd "$1" && shift && exec "$@"' sh "$T/shm" "$VMB" run cpu.prime disk.randread app.files --quick $FAST \
		--no-store --json "$T/cwd.json"
	doc "disk skipped with why and where to go; app measured, saying it is memory" "$T/cwd.json" '
assert S["disk"]["status"] == "skipped" and "tmpfs" in S["disk"]["reason"] and "--disk.dir" in S["disk"]["reason"], S["disk"]
assert note("app", "app_dir_fs") == "tmpfs (memory)", S["app"]["notes"]'
else
	skip "/tmp on tmpfs" "needs root and unshare -m"
fi

# ---- a read-only working directory (a read-only checkout, a container's root) ----
if can_ns; then
	mkdir -p "$T/rocwd"
	rocwd="mount --bind $T/rocwd $T/rocwd && mount -o remount,bind,ro $T/rocwd"
	expect 0 "a read-only working directory: the defaults there" ns "$rocwd" sh -c 'cd "$1" && shift && exec "$@"' \
		sh "$T/rocwd" "$VMB" run cpu.prime disk.randread app --quick $FAST --no-store --json "$T/rocwd.json"
	doc "disk and the app tests that write skipped, saying which option to give" "$T/rocwd.json" '
assert S["disk"]["status"] == "skipped" and "--disk.dir DIR" in S["disk"]["reason"], S["disk"]
for t in ("app.oltp_read_write", "app.proc", "app.files"):
    assert T[t]["status"] == "skipped" and "takes no new files" in T[t]["reason"] and "--app.dir DIR" in T[t]["reason"], T[t]
assert T["cpu.prime"]["status"] == "ok"'
	expect 2 "a read-only --disk.dir the user named: refused" ns "$rocwd" "$VMB" run disk.randread --quick $FAST \
		--disk.size 16m --no-store --disk.dir "$T/rocwd"
	has "$T/err" "--disk.dir $T/rocwd takes no new files (Read-only file system)" "says so"
	expect 2 "a read-only --app.dir the user named: refused" ns "$rocwd" "$VMB" run app.files --quick $FAST --no-store \
		--app.dir "$T/rocwd"
	has "$T/err" "--app.dir $T/rocwd takes no new files (Read-only file system)" "says so"
else
	skip "a read-only working directory" "needs root and unshare -m"
fi

# ---- a read-only or absent $HOME: where the default store goes ----
unset VMBENCH_DB
mkdir -p "$T/rohome" "$T/keep"
chmod 555 "$T/rohome"
AS=""
if [ "$(id -u)" -eq 0 ]; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 711 "$T"
	chown 65534 "$T/keep"
fi
for h in "" /nonexistent-vmbench-home "$T/rohome"; do
	what=${h:-unset}
	expect 0 "HOME $what: the run measures" $AS env -u HOME -u XDG_DATA_HOME ${h:+HOME=$h} TMPDIR="$T/keep" \
		"$VMB" run cpu.prime --quick --repeat 2
	has "$T/err" "no result store: " "says there is no store, before measuring"
	has "$T/err" "the result is in $T/keep/vmbench-result-" "and where the result went"
	check "that file is the run" sh -c 'f=$(ls "$1"/vmbench-result-*.json) && "$2" show "$f" >/dev/null && rm "$f"' \
		sh "$T/keep" "$VMB"
done
check "/nonexistent-vmbench-home was not made" test ! -e /nonexistent-vmbench-home
expect 2 "a store the user named that cannot be made is still refused" $AS env HOME="$T/rohome" "$VMB" run \
	cpu.prime --quick $FAST --db "$T/rohome/x/results.db"
finish
