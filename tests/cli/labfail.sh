#!/bin/sh
# The lab when a configuration fails (issue 25): the message names the step,
# the bound that expired and the files the console and QEMU's output were
# kept in; the configuration is booted again (--retries) and the round is
# marked failed when no try succeeds; the failures are listed in the
# terminal, the HTML report (escaped), the store and lab report; a
# configuration with fewer runs says so; nothing else is left behind. And
# accel=kvm without a usable /dev/kvm is skipped before any boot, with the
# probe's reason, whatever this host's /dev/kvm is (a recorded machine for
# the test build, vmbench-inject); a /dev/kvm that creates VMs but whose
# guests QEMU stops (a fake QEMU) is said in QEMU's words and not retried.
#   labfail.sh VMBENCH SRC VMBENCH-INJECT boot|noboot
# The guests boot in the plain build only ("boot"): under ASan the agent
# in a TCG guest costs too much of `make test`.
. "$(dirname "$0")/lib.sh"
INJ=$3
BOOT=$4
cache="$SRC/build-lab-cache"
# vmbench's work directories go to $TMPDIR: a private one, for the "nothing
# left" checks; the kept evidence goes below $HOME (lib.sh: $T)
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
kept="$T/.local/state/vmbench/lab-failures"

# accel=kvm where /dev/kvm does not run guests: the machine the test build
# probes is a recorded one, so this host's own /dev/kvm does not matter
mkdir -p "$T/nokvm"
printf 'present=1\nopens=0\nerror=Permission denied\n' >"$T/nokvm/.kvm"
VMBENCH_TEST_MACHINE="$T/nokvm" expect 1 "accel=kvm where /dev/kvm cannot be opened: every configuration skipped" \
	"$INJ" lab run --matrix "accel=kvm disk=ide,virtio-blk" --suites boot --baseline none --cache "$T/no-cache" \
	--db "$T/kvm.db"
for d in ide virtio-blk; do
	has "$T/err" "accel=kvm disk=$d: skipped: accel=kvm needs a /dev/kvm that runs guests, and this machine's is present, cannot be opened: Permission denied [recorded]" \
		"disk=$d: skipped with the probe's reason"
done
has "$T/err" "no configuration of the matrix can run here" "all skipped: exit 1, as for any matrix that cannot run here"
lacks "$T/err" "QEMU exited" "not booted to find out"
check "nothing was fetched or built for it" test ! -e "$T/no-cache"
printf 'present=0\n' >"$T/nokvm/.kvm"
VMBENCH_TEST_MACHINE="$T/nokvm" expect 1 "accel=kvm without /dev/kvm" "$INJ" lab run --matrix "accel=kvm" --suites boot \
	--baseline none --cache "$T/no-cache" --db "$T/kvm.db"
has "$T/err" "accel=kvm: skipped: accel=kvm needs a /dev/kvm that runs guests, and this machine's is absent [recorded]" \
	"says it is absent"
expect 2 "--retries beyond its range" "$VMB" lab run --matrix accel=tcg --retries 11 --db "$T/none.db"
has "$T/err" "retries" "names the option"

# A stored lab session with a failed round (made by hand: no guest needed):
# lab report lists the failure, escaped in HTML, and says that the
# configuration has fewer runs than the host; other selectors leave it out.
expect 0 "a quick host run to make documents of" "$VMB" run cpu.prime --time 0.05 --warmup 0 --min-reps 2 \
	--max-reps 2 --threads 1 --no-store --json "$T/one.json"
check "a session: host twice, accel=tcg once, its second round failed" python3 - "$T" <<'PY'
import copy, json, sys, uuid
t = sys.argv[1]
doc = json.load(open(f"{t}/one.json"))
def made(name, config, **extra):
    d = copy.deepcopy(doc)
    d["id"] = str(uuid.uuid4())
    d["labels"] = {"t": "fx", "config": config}
    d.update(extra)
    json.dump(d, open(f"{t}/{name}.json", "w"))
made("host1", "host")
made("host2", "host")
made("tcg1", "accel=tcg")
made("marker", "accel=tcg", suites=[], fingerprint={"hypervisor": {"name": "unknown"}},
     lab_failure={"round": 2, "try": 1, "tries": 1, "step": "run cpu.prime",
                  "reason": "the guest could not run cpu.prime: <b>&\"'", "outcome": "round failed",
                  "console": f"{t}/<i>.console.log", "qemu_log": None})
PY
for f in host1 host2 tcg1; do
	expect 0 "import $f" "$VMB" import --keep-lab-labels "$T/$f.json" --db "$T/fx.db"
done
expect 0 "import the failure's marker" "$VMB" import --keep-lab-labels "$T/marker.json" --label only=marker \
	--db "$T/fx.db"
expect 0 "lab report of the session" "$VMB" lab report t=fx --db "$T/fx.db" -o "$T/fx.html"
has "$T/out" "warning: accel=tcg has 1 run, fewer than the others' 2: 1 round failed (listed under the failed boots)" \
	"the configuration with fewer runs says so"
has "$T/out" "accel=tcg, round 2, try 1 of 1: run cpu.prime failed, round failed: the guest could not run cpu.prime" \
	"the failure is listed"
check "the HTML report lists it, escaped" python3 - "$T/fx.html" "$T" <<'PY'
import sys
html, t = open(sys.argv[1]).read(), sys.argv[2]
i = html.index("<h2>Failed boots</h2>")
section = html[i:html.index("</table>", i)]
assert "the guest could not run cpu.prime: &lt;b&gt;&amp;&quot;&#39;" in section, section
assert f"{t}/&lt;i&gt;.console.log" in section and "<b>" not in section and "<i>" not in section, section
assert "<td style=\"text-align:left\">2</td><td style=\"text-align:left\">1 of 1</td>" in section, section
assert "fewer than the others&#39; 2" in html
PY
expect 0 "vmbench results lists the marker" "$VMB" results --db "$T/fx.db"
has "$T/out" "(lab failure)" "marked as a lab failure"
expect 2 "a selector that only the marker matches: no run (it measured nothing)" "$VMB" compare only=marker t=fx \
	--db "$T/fx.db"
has "$T/err" "no stored run has the labels only=marker" "says so"

# A /dev/kvm that creates VMs but whose guests fail (issue 41), whatever
# this host's /dev/kvm is: the test build's recorded machine says that it
# creates VMs, and a fake QEMU (tests/cli/fake_kvm_qemu.py, first on PATH)
# stops every KVM guest as QEMU does on such a host, with "KVM internal
# error" on stderr and QMP's run state internal-error. No guest boots: it
# runs in both builds. The lab says so at the first look, in QEMU's words,
# boots it once whatever --retries says, keeps the evidence, remembers the
# verdict for `vmbench info`; accel=auto moves to TCG at once (a real TCG
# guest in the plain build, the fake's refusal in the ASan one).
if [ ! -x /bin/busybox ] || [ "$(uname -m)" != x86_64 ]; then
	skip "a KVM whose guests fail" "an x86_64 host with busybox-static is needed for the lab's image (scripts/deps.sh test)"
else
	shared_images x86_64
	mkdir -p "$T/badkvm" "$T/fakebin"
	printf 'present=1\nopens=1\napi_version=12\ncreates_vm=1\n' >"$T/badkvm/.kvm"
	ln -s "$SRC/tests/cli/fake_kvm_qemu.py" "$T/fakebin/qemu-system-x86_64"
	expect 0 "info before any lab boot under KVM" "$VMB" info
	lacks "$T/out" "KVM guests             fail" "no verdict yet"
	rm -rf "$kept"
	# the test build runs the lab here, but the guest's agent is the product's:
	# with the test build as the agent, the shared images ("$T/imgs", see
	# shared_images) were built again in place while another test's guest
	# booted from them (cli-study's boot failed, twice)
	# a hang guard, not a speed: the bound the lab would wait out before the fix
	expect 1 "accel=kvm whose guest QEMU stops: --retries 2" env VMBENCH_TEST_MACHINE="$T/badkvm" \
		PATH="$T/fakebin:$PATH" FAKE_QEMU_BOOTS="$T/kvm.boots" "$INJ" lab run --matrix accel=kvm --suites cpu.prime \
		--quick --retries 2 --hello-timeout 20 --baseline none --cache "$cache" --image-dir "$T/imgs" \
		--agent x86_64="$VMB" --db "$T/badkvm.db" -o "$T/badkvm.html"
	has "$T/err" "accel=kvm: boot failed (round 1, try 1 of 3): QEMU stopped the guest for good before it said HELLO (run state internal-error): KVM internal error. Suberror: 1; emulation failure; this machine's KVM cannot run the guest (accel=tcg emulates it)" \
		"said with the run state and QEMU's own words"
	lacks "$T/err" "did not say HELLO within" "not after the --hello-timeout"
	has "$T/err" "accel=kvm: not booted again (--retries 2): QEMU stopped the guest for good" "--retries does not boot it again"
	lacks "$T/err" "booting again" "no second try"
	check "QEMU was started once" test "$(cat "$T/kvm.boots")" = kvm
	has "$T/out" "accel=kvm, round 1, try 1 of 3: boot failed, round failed: QEMU stopped the guest for good" \
		"listed among the failed boots"
	check "QEMU's output and the console kept, as for any failure" python3 - "$kept" <<'PY'
import glob, sys
kept = sys.argv[1]
qemu = glob.glob(f"{kept}/lab-*/accel=kvm.round1.try1.qemu.log")
console = glob.glob(f"{kept}/lab-*/accel=kvm.round1.try1.console.log")
assert len(qemu) == 1 and len(console) == 1, glob.glob(f"{kept}/*/*")
assert "KVM internal error. Suberror: 1" in open(qemu[0]).read()
assert "Memory: 207548K" in open(console[0]).read()
PY
	check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
	check "no work directory is left" test -z "$(ls -A "$TMPDIR")"
	expect 0 "info after it" "$VMB" info
	has "$T/out" "KVM guests             fail: a lab guest did not boot under KVM at" "info says a guest does not run under this KVM"
	has "$T/out" "KVM internal error. Suberror: 1; emulation failure; accel=tcg emulates guests" "in QEMU's words"
	# the verdict says where it was made (this host, kernel and the QEMU on
	# PATH), and info says that the lab uses it
	expect 0 "info with the fake QEMU on PATH" env PATH="$T/fakebin:$PATH" "$VMB" info
	has "$T/out" "ago, on this host, kernel and QEMU: the lab's accel=auto and a study's accel = kvm run under TCG without trying KVM" \
		"the verdict's age, and that it is this host's, kernel's and QEMU's"
	# a study's plan says so once, from the verdict, booting nothing
	printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=kvm\naccel = kvm\nsuites = cpu.prime\noption = --threads 1\noption = --retries 0\nrounds = 1\nbaseline = none\ncolumn = cpu.prime events_per_s\n[experiment b]\ntitle = B\nmatrix = accel=kvm smp=2\naccel = kvm\nsuites = cpu.prime\noption = --threads 1\noption = --retries 0\nrounds = 1\nbaseline = none\ncolumn = cpu.prime events_per_s\n' \
		>"$T/kvm.study"
	rm -f "$T/plan.boots"
	expect 0 "a study of two accel = kvm experiments: its plan" env VMBENCH_TEST_MACHINE="$T/badkvm" \
		PATH="$T/fakebin:$PATH" FAKE_QEMU_BOOTS="$T/plan.boots" "$INJ" lab study "$T/kvm.study" --plan
	check "the plan says once that KVM does not boot a guest here" \
		test "$(grep -c "^KVM: /dev/kvm creates VMs, but a lab guest did not boot under it here .* ago (the lab's verdict for this host, kernel and QEMU: " "$T/out")" = 1
	has "$T/out" "KVM internal error. Suberror: 1; emulation failure" "in QEMU's words"
	check "the plan booted nothing" test ! -e "$T/plan.boots"
	# accel=auto with that verdict: TCG without trying KVM, said once
	rm -f "$T/auto.boots"
	env VMBENCH_TEST_MACHINE="$T/badkvm" PATH="$T/fakebin:$PATH" FAKE_QEMU_BOOTS="$T/auto.boots" \
		"$INJ" lab run --matrix "accel=auto smp=1,2" --suites cpu.prime --quick --boots 1 --retries 0 --baseline none \
		--cache "$cache" --image-dir "$T/imgs" --agent x86_64="$VMB" --db "$T/auto0.db" -o "$T/auto0.html" \
		>"$T/out" 2>"$T/err" </dev/null
	check "accel=auto with the verdict: TCG only, KVM not booted" test "$(cat "$T/auto.boots" | tr '\n' ' ')" = "tcg tcg "
	check "said once: KVM not tried again, and why" \
		test "$(grep -c "KVM: a lab guest did not boot under KVM here .* ago (the lab's verdict for this host, kernel and QEMU: .*the configurations that may use KVM (accel=auto, a study's accel = kvm) run under TCG" "$T/err")" = 1
	# a study run that learns it (no verdict yet): its first KVM boot fails,
	# the rest of its experiments run under TCG, said once, and the verdict
	# is remembered for the next plan
	rm -f "$T/.local/state/vmbench/kvm-guests" "$T/study.boots"
	expect 1 "a study of two accel = kvm experiments whose KVM cannot boot a guest" env VMBENCH_TEST_MACHINE="$T/badkvm" \
		PATH="$T/fakebin:$PATH" FAKE_QEMU_BOOTS="$T/study.boots" "$INJ" lab study "$T/kvm.study" --quick \
		--hello-timeout 20 --cache "$cache" --image-dir "$T/imgs" --agent x86_64="$VMB" --db "$T/study.db" \
		-o "$T/study.html"
	check "the study booted KVM once, then TCG for the rest" test "$(cat "$T/study.boots" | tr '\n' ' ')" = "kvm tcg tcg "
	check "said once" test "$(grep -c "KVM did not boot the guest (QEMU stopped the guest for good.*); using TCG from now on" "$T/err")" = 1
	lacks "$T/err" "skipped: accel=kvm needs" "accel=kvm under a study's accel = kvm is not skipped"
	has "$T/err" "accel=kvm smp=2: booting (tcg)" "the second experiment's configuration booted under TCG at once"
	expect 0 "the next plan" env VMBENCH_TEST_MACHINE="$T/badkvm" PATH="$T/fakebin:$PATH" "$INJ" lab study "$T/kvm.study" --plan
	has "$T/out" "KVM: /dev/kvm creates VMs, but a lab guest did not boot under it here" "knows it from the study's run"
	check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
	# accel=auto learning it in its run (no verdict): TCG at once, the reason
	# in the document; the TCG guest's HELLO bound is the default's (a TCG
	# boot beside two guest tests took more than 20 s)
	rm -f "$T/.local/state/vmbench/kvm-guests"
	tcg=fail
	[ "$BOOT" = boot ] && command -v qemu-system-x86_64 >/dev/null 2>&1 && tcg=real
	rm -f "$T/auto.boots"
	env VMBENCH_TEST_MACHINE="$T/badkvm" PATH="$T/fakebin:$PATH" FAKE_QEMU_BOOTS="$T/auto.boots" FAKE_QEMU_TCG=$tcg \
		"$INJ" lab run --matrix accel=auto --suites cpu.prime --quick --boots 1 --retries 0 --hello-timeout 180 --baseline none \
		--cache "$cache" --image-dir "$T/imgs" --agent x86_64="$VMB" --db "$T/auto.db" -o "$T/auto.html" \
		>"$T/out" 2>"$T/err" </dev/null
	has "$T/err" "accel=auto: KVM did not boot the guest (QEMU stopped the guest for good before it said HELLO (run state internal-error): KVM internal error. Suberror: 1; emulation failure" \
		"accel=auto: KVM's failure said in QEMU's words"
	has "$T/err" "using TCG from now on" "and TCG used"
	check "accel=auto booted KVM once, then TCG" test "$(cat "$T/auto.boots" | tr '\n' ' ')" = "kvm tcg "
	if [ "$tcg" = real ]; then
		check "accel=auto: the run under TCG records why" python3 - "$T/auto.db" <<'PY'
import json, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")]
assert len(docs) == 1 and "lab_failure" not in docs[0], [d.get("lab_failure") for d in docs]
d = docs[0]
assert d["labels"]["accel"] == "tcg", d["labels"]
assert "accel=auto: KVM could not boot the guest here (QEMU stopped the guest for good" in d["lab_note"], d["lab_note"]
assert "KVM internal error. Suberror: 1; emulation failure" in d["lab_note"], d["lab_note"]
PY
	else
		has "$T/err" "accel=auto: boot failed (round 1, try 1 of 1): QEMU exited at once (status 1: fake qemu: TCG is not run here" \
			"the TCG boot is the fake's (no guest in this build)"
	fi
	check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
	rm -rf "$kept"
fi

if [ "$BOOT" != boot ]; then
	skip "failing guests" "the guests boot in the plain build only (an ASan agent under TCG)"
	finish
	exit $?
fi
if [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1 || [ "$(uname -m)" != x86_64 ]; then
	skip "failing guests" "an x86_64 host with busybox-static and qemu-system-x86 is needed (scripts/deps.sh test)"
	finish
	exit $?
fi

shared_images x86_64
# A guest that never says HELLO within --hello-timeout 1: two tries, both
# kept, the round marked failed, listed everywhere.
expect 1 "lab run: no HELLO within 1 s, --retries 1" "$VMB" lab run --matrix accel=tcg --suites cpu.prime \
	--quick --hello-timeout 1 --label t=hello --cache "$cache" --image-dir "$T/imgs" --db "$T/lab.db" \
	-o "$T/lab.html"
for try in 1 2; do
	has "$T/err" "accel=tcg: boot failed (round 1, try $try of 2): the guest did not say HELLO within 1 s (--hello-timeout)" \
		"try $try: the step and the bound that expired"
	has "$T/err" "accel=tcg: kept: the guest's console in $kept/lab-" "try $try: where its evidence is"
done
has "$T/err" "accel=tcg: booting again (tcg), try 2 of 2" "booted again"
has "$T/out" "accel=tcg, round 1, try 1 of 2: boot failed, retried: the guest did not say HELLO within 1 s" \
	"the summary lists the first try, retried"
has "$T/out" "accel=tcg, round 1, try 2 of 2: boot failed, round failed" "and the second, that failed the round"
check "the console and QEMU's output of each try, in the files named" python3 - "$T/err" "$kept" <<'PY'
import glob, os, re, sys
err, kept = open(sys.argv[1]).read(), sys.argv[2]
named = re.findall(r"kept: the guest's console in (\S+), QEMU's output in (\S+)\n", err)
assert len(named) == 2, err
files = sorted(glob.glob(f"{kept}/lab-*/*"))
assert sorted(p for pair in named for p in pair) == files, (named, files)
for console, qemu in named:
    assert os.path.isfile(console) and os.path.isfile(qemu), (console, qemu)
assert [os.path.basename(p) for p in files] == ["accel=tcg.round1.try1.console.log", "accel=tcg.round1.try1.qemu.log",
                                                "accel=tcg.round1.try2.console.log", "accel=tcg.round1.try2.qemu.log"], files
PY
check "the HTML report lists both tries" python3 - "$T/lab.html" <<'PY'
import sys
html = open(sys.argv[1]).read()
i = html.index("<h2>Failed boots</h2>")
rows = html[i:html.index("</table>", i)].split("<tr>")[2:]
assert len(rows) == 2, rows
for row, outcome in zip(rows, ("retried", "round failed")):
    assert "the guest did not say HELLO within 1 s (--hello-timeout)" in row and f">{outcome}<" in row, row
PY
expect 0 "lab report lists them from the store" "$VMB" lab report t=hello --db "$T/lab.db" -o "$T/again.html"
has "$T/out" "accel=tcg, round 1, try 2 of 2: boot failed, round failed" "from the stored markers"
check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
check "no work directory is left" test -z "$(ls -A "$TMPDIR")"

# QEMU killed once the guest said HELLO (the lab stops itself there): the
# run fails at its first step after HELLO, the console holds the boot and
# QEMU's output its last words; --retries 0 marks the round failed at once.
rm -rf "$kept"
check "QEMU killed after HELLO: run cpu.prime failed, console and QEMU's output kept" python3 - "$VMB" "$cache" "$T" \
	"$kept" <<'PY'
import glob, os, signal, subprocess, sys
vmb, cache, t, kept = sys.argv[1:5]
tmpdir = os.environ["TMPDIR"]
env = dict(os.environ, VMBENCH_TEST_STOP_AT="lab-booted")
p = subprocess.Popen([vmb, "lab", "run", "--matrix", "accel=tcg", "--suites", "cpu.prime", "--quick", "--retries", "0",
                      "--baseline", "none", "--cache", cache, "--image-dir", f"{t}/imgs", "--db", f"{t}/kill.db",
                      "-o", f"{t}/kill.html"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
pid, status = os.waitpid(p.pid, os.WUNTRACED)  # it stops itself once the guest has said HELLO
assert os.WIFSTOPPED(status), status
qemu = subprocess.run(["pgrep", "-f", f"[q]emu-system-.*{tmpdir}"], capture_output=True, text=True).stdout.split()
assert len(qemu) == 1, qemu
os.kill(int(qemu[0]), signal.SIGTERM)
os.kill(p.pid, signal.SIGCONT)
out, err = (x.decode() for x in p.communicate(timeout=300))
assert p.returncode == 1, (p.returncode, err)
# QEMU may be gone before RUN or while the guest runs it
assert "accel=tcg: run cpu.prime failed (round 1, try 1 of 1): the guest closed the channel" in err, err
assert "booting again" not in err, err
assert "accel=tcg, round 1, try 1 of 1: run cpu.prime failed, round failed" in out, out
console = glob.glob(f"{kept}/lab-*/accel=tcg.round1.try1.console.log")
qemu_log = glob.glob(f"{kept}/lab-*/accel=tcg.round1.try1.qemu.log")
assert len(console) == 1 and len(qemu_log) == 1, os.listdir(kept)
assert "vmbench-init: agent on" in open(console[0]).read(), "the console holds the boot"
assert "terminating on signal 15" in open(qemu_log[0]).read(), open(qemu_log[0]).read()
assert console[0] in err and qemu_log[0] in err, err
PY
check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
check "no work directory is left" test -z "$(ls -A "$TMPDIR")"
finish
