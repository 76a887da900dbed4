#!/bin/sh
# vmbench's disk suite side by side with fio (io_uring, O_DIRECT) on one and
# the same file (laid out once with random data per workload; vmbench is
# given it with --disk.file F --destructive), same runtime and ramp, run
# alternately (the tool that goes first alternates too, so that a drift in
# the machine's load hits both alike), with the same kind of I/O buffers on
# both sides: each tool's default (malloc), and for 1 MiB reads hugetlb
# pages on both (fio --iomem=mmaphuge, vmbench --disk.iomem mmaphuge;
# skipped, saying so, when fewer than 8 hugetlb pages are free: sysctl
# vm.nr_hugepages). Both tools' I/O thread runs on one and the same CPU in a
# round (fio --cpus_allowed, vmbench --cpus), the CPU changing from round to
# round: at queue depth 1 a wake-up on the CPU that takes the disk's
# interrupt costs no inter-processor interrupt, and a thread left to the
# scheduler lands on one CPU or the other by chance, which moved the QD1
# ratios more than anything either tool does per I/O; PIN none leaves both
# unpinned. For each workload: IOPS ratio, mean / p50 / p99 latency ratios
# (fio's lat_ns: submission to completion, as vmbench measures) and
# CPU-seconds-per-I/O ratio, as the median over the rounds. Ratios are
# vmbench / fio.
# Goals, judged on the median of at least 5 rounds and printed met or NOT
# met at the end: IOPS >= 0.97 at QD32; at QD1 mean latency <= 1.0 and p99
# <= 1.1; p50 and p99 within 10% (<= 1.1) everywhere; CPU per I/O <= 1.
# DIR may be a block device instead (e.g. a loop device over a file on
# tmpfs, losetup --direct-io=on, whose latency does not wander with a shared
# host's virtual disk): both tools then test the device itself (fio
# --filename=DEV, vmbench --disk.device DEV --destructive), its first SIZE
# bytes laid out with random data first. Everything on it is overwritten.
# Usage: bench/disk-vs-fio.sh [DIR|DEVICE] [ROUNDS] [SECONDS] [SIZE] [PIN] [DEPTHS]
#   PIN: rotate (default: both on CPU k of the allowed ones in round k) or none
#   DEPTHS: the queue depths whose rows run, e.g. 1 or 1,32 (default all)
#   VMBENCH (environment): the vmbench to measure (default build/vmbench)
set -eu
cd "$(dirname "$0")/.."
dir=${1:-.} rounds=${2:-5} secs=${3:-10} size=${4:-1g} pin=${5:-rotate} depths=${6:-all}
usage="usage: bench/disk-vs-fio.sh [DIR|DEVICE] [ROUNDS] [SECONDS] [SIZE] [rotate|none] [all|DEPTH[,DEPTH]]"
case "$pin" in rotate|none) ;; *) echo "$usage" >&2; exit 2 ;; esac
case "$depths" in all) ;; *[!0-9,]* | ,* | *, | *,,*) echo "$usage" >&2; exit 2 ;; esac
[ "$rounds" -ge 5 ] || echo "note: $rounds rounds; the goals are judged on the median of at least 5"
scripts/deps.sh bench
VMBENCH=${VMBENCH:-build/vmbench}
[ "$VMBENCH" != build/vmbench ] || [ -x build/vmbench ] || make build >/dev/null
[ -x "$VMBENCH" ] || { echo "bench/disk-vs-fio.sh: $VMBENCH is not an executable" >&2; exit 2; }
export VMBENCH
exec python3 - "$dir" "$rounds" "$secs" "$size" "$pin" "$depths" <<'PY'
import json, os, stat, statistics, subprocess, sys, tempfile

d, rounds, secs, size, pin = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
depths = None if sys.argv[6] == "all" else {int(x) for x in sys.argv[6].split(",")}
vmbench = os.environ["VMBENCH"]
device = stat.S_ISBLK(os.stat(d).st_mode)
cpus = sorted(os.sched_getaffinity(0))
ramp = 1
# Both tools' buffers are of one kind in every row: what backs a buffer
# decides whether a 1 MiB request is one segment or is split in two.
HUGE = (["--iomem=mmaphuge"], ["--disk.iomem", "mmaphuge"])
work = [  # name, fio rw, vmbench test, bs, iodepth, (extra fio options, extra vmbench options)
    ("randread 4k QD1", "randread", "randread", "4k", 1, ([], [])),
    ("randread 4k QD32", "randread", "randread", "4k", 32, ([], [])),
    # fio's random map takes the next free block near a used one late in a
    # pass, which a caching virtual disk rewards; without it fio draws
    # uniformly, as vmbench does (every block once per cycle, no clustering).
    ("  ...fio norandommap", "randread", "randread", "4k", 32, (["--norandommap"], [])),
    ("randwrite 4k QD32", "randwrite", "randwrite", "4k", 32, ([], [])),
    ("seqread 1M QD8", "read", "seqread", "1m", 8, ([], [])),
    ("  ...both mmaphuge", "read", "seqread", "1m", 8, HUGE),
]

def huge_free():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("HugePages_Free:"):
                return int(line.split()[1])
    return 0

def lay_out(fd, nbytes):
    # As vmbench does: every block written with random data before the test,
    # so that both tools overwrite and read real blocks (fio would fallocate
    # a fresh file for writes, and writes into unwritten extents differ).
    chunk = os.urandom(1 << 20)
    for off in range(0, nbytes, 1 << 20):
        os.pwrite(fd, chunk[: min(1 << 20, nbytes - off)], off)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)

def size_bytes(s):
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    return int(s[:-1]) * units[s[-1].lower()] if s[-1].lower() in units else int(s)

def fio(path, rw, bs, qd, extra, cpu):
    pinned = [] if cpu is None else [f"--cpus_allowed={cpu}"]
    if True:
        out = run(
            ["fio", "--name=bench", f"--filename={path}", "--ioengine=io_uring", "--direct=1",
             f"--rw={rw}", f"--bs={bs}", f"--iodepth={qd}", f"--size={size}", "--time_based",
             f"--runtime={secs}", f"--ramp_time={ramp}", "--lat_percentiles=1",
             "--output-format=json", *pinned, *extra])
    j = json.loads(out[out.index("{"):])["jobs"][0]
    side = j["read"] if rw in ("randread", "read") else j["write"]
    ios = side["total_ios"]
    rt = side["runtime"] / 1000
    lat = side["lat_ns"]
    return {"iops": side["iops"], "mean": lat["mean"], "p50": lat["percentile"]["50.000000"],
            "p99": lat["percentile"]["99.000000"],
            "cpu_per_io": (j["usr_cpu"] + j["sys_cpu"]) / 100 * rt / ios}

def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench/disk-vs-fio.sh: {' '.join(argv)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout

def vmb(path, test, bs, qd, extra, cpu):
    bsopt = "--disk.seq-bs" if test.startswith("seq") else "--disk.bs"
    qdopt = ["--disk.seq-iodepth", str(qd)] if test.startswith("seq") else ["--disk.iodepth", str(qd)]
    out = run(
        [vmbench, "run", f"disk.{test}", "--disk.device" if device else "--disk.file", path, "--destructive",
         "--disk.size", size,
         bsopt, bs, *qdopt,
         *extra, *([] if cpu is None else ["--cpus", str(cpu)]), "--disk.engine", "io_uring", "--time", str(secs),
         "--disk.ramp", str(ramp), "--repeat", "2",
         "--warmup", "0", "--no-store", "-q", "--json", "-"])
    case = json.loads(out)["suites"][0]["tests"][0]["cases"][0]
    m = {x["name"]: x for x in case["metrics"]}
    h = m["latency"]["histogram"]
    # The first of the two repetitions is the one comparable with one fio run.
    return {"iops": m["iops"]["samples"][0], "mean": h["mean"], "p50": h["percentiles"]["p50"],
            "p99": h["percentiles"]["p99"], "cpu_per_io": 1 / m["ios_per_cpu_s"]["summary"]["mean"]}

keys = ["iops", "mean", "p50", "p99", "cpu_per_io"]
# (metric, qd it applies to or None for every row, bound, at least (True) or at most)
goals = [("iops", 32, 0.97, True), ("mean", 1, 1.0, False), ("p50", None, 1.1, False), ("p99", None, 1.1, False),
         ("cpu_per_io", None, 1.0, False)]
print(f"vmbench: {vmbench}, {subprocess.run([vmbench, '--version'], capture_output=True, text=True).stdout.strip()}")
print(f"vmbench / fio, {rounds} rounds of {secs:g} s (ramp {ramp} s), "
      + (f"the first {size} of block device {d}" if device else f"file size {size}, in {os.path.abspath(d)}"))
print("placement: " + ("both unpinned (PIN none)" if pin == "none" else
                       f"both tools on one CPU a round, rotating over CPUs {','.join(map(str, cpus))}")
      + "; the tool that starts a round alternates")
print(f"{'workload':20} {'fio IOPS':>10} {'vmb IOPS':>10} " + " ".join(f"{k + ' ratio':>14}" for k in keys))
verdicts = []
main = ""
for name, rw, test, bs, qd, (fextra, vextra) in work:
    if depths is not None and qd not in depths:
        continue
    if HUGE == (fextra, vextra) and huge_free() < 8:
        print(f"{name:20} skipped: {huge_free()} hugetlb pages free, 8 needed (sysctl vm.nr_hugepages)", flush=True)
        continue
    main = name if not name.startswith(" ") else main
    label = name if not name.startswith(" ") else f"{main}, {name.strip(' .')}"
    ratios = {k: [] for k in keys}
    fi, vi = [], []
    fd, path = (os.open(d, os.O_WRONLY), d) if device else tempfile.mkstemp(prefix="disk-vs-fio-", dir=d)
    try:
        lay_out(fd, size_bytes(size))
    finally:
        os.close(fd)
    for r in range(rounds):
        cpu = None if pin == "none" else cpus[r % len(cpus)]
        # the order flips after each pass over the CPUs as well, so that
        # neither tool always starts on the same CPU
        if (r + r // len(cpus)) % 2 == 0:
            f = fio(path, rw, bs, qd, fextra, cpu)
            v = vmb(path, test, bs, qd, vextra, cpu)
        else:
            v = vmb(path, test, bs, qd, vextra, cpu)
            f = fio(path, rw, bs, qd, fextra, cpu)
        fi.append(f["iops"])
        vi.append(v["iops"])
        for k in keys:
            ratios[k].append(v[k] / f[k])
    if not device:
        os.unlink(path)
    med = {k: statistics.median(r) for k, r in ratios.items()}
    print(f"{name:20} {statistics.median(fi):10.0f} {statistics.median(vi):10.0f} "
          + " ".join(f"{med[k]:14.3f}" for k in keys), flush=True)
    for k, at, bound, least in goals:
        if at is None or at == qd:
            ok = med[k] >= bound if least else med[k] <= bound
            verdicts.append(f"  {label:36} {k + ' ratio':16} {med[k]:6.3f} (min {min(ratios[k]):.3f}, max "
                            f"{max(ratios[k]):.3f}; goal {'>=' if least else '<='} {bound:g}): "
                            f"{'met' if ok else 'NOT met'}")
print(f"goals, on the median of {rounds} rounds{'' if rounds >= 5 else ' (fewer than 5: indicative only)'}:")
print("\n".join(verdicts))
PY
