#!/bin/sh
# vmbench's disk suite side by side with fio (io_uring, O_DIRECT) on one and
# the same file (laid out once with random data per workload; vmbench is
# given it with --disk.file F --destructive), same runtime and ramp, run
# alternately, with the same kind of I/O buffers on both sides: each tool's
# default (malloc), and for 1 MiB reads hugetlb pages on both (fio
# --iomem=mmaphuge, vmbench --disk.iomem mmaphuge; skipped, saying so, when
# fewer than 8 hugetlb pages are free: sysctl vm.nr_hugepages). For
# each workload: IOPS ratio, mean / p50 / p99 latency ratios (fio's lat_ns:
# submission to completion, as vmbench measures) and CPU-seconds-per-I/O
# ratio, as the median over the rounds. Ratios are vmbench / fio.
# Goals: IOPS >= 0.97 at QD32, mean latency <= 1.03 at QD1, p50 and p99
# within 10%, CPU per I/O <= 1.
# Usage: bench/disk-vs-fio.sh [DIR] [ROUNDS] [SECONDS] [SIZE]
set -eu
cd "$(dirname "$0")/.."
dir=${1:-.} rounds=${2:-3} secs=${3:-10} size=${4:-1g}
scripts/deps.sh bench
[ -x build/vmbench ] || make build >/dev/null
exec python3 - "$dir" "$rounds" "$secs" "$size" <<'PY'
import json, os, statistics, subprocess, sys, tempfile

d, rounds, secs, size = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
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

def fio(path, rw, bs, qd, extra):
    if True:
        out = subprocess.run(
            ["fio", "--name=bench", f"--filename={path}", "--ioengine=io_uring", "--direct=1",
             f"--rw={rw}", f"--bs={bs}", f"--iodepth={qd}", f"--size={size}", "--time_based",
             f"--runtime={secs}", f"--ramp_time={ramp}", "--lat_percentiles=1",
             "--output-format=json", *extra], check=True, capture_output=True, text=True).stdout
    j = json.loads(out[out.index("{"):])["jobs"][0]
    side = j["read"] if rw in ("randread", "read") else j["write"]
    ios = side["total_ios"]
    rt = side["runtime"] / 1000
    lat = side["lat_ns"]
    return {"iops": side["iops"], "mean": lat["mean"], "p50": lat["percentile"]["50.000000"],
            "p99": lat["percentile"]["99.000000"],
            "cpu_per_io": (j["usr_cpu"] + j["sys_cpu"]) / 100 * rt / ios}

def vmb(path, test, bs, qd, extra):
    bsopt = "--disk.seq-bs" if test.startswith("seq") else "--disk.bs"
    qdopt = ["--disk.seq-iodepth", str(qd)] if test.startswith("seq") else ["--disk.iodepth", str(qd)]
    out = subprocess.run(
        ["build/vmbench", "run", f"disk.{test}", "--disk.file", path, "--destructive", "--disk.size", size,
         bsopt, bs, *qdopt,
         *extra, "--disk.engine", "io_uring", "--time", str(secs), "--disk.ramp", str(ramp), "--repeat", "2",
         "--warmup", "0", "--no-store", "-q", "--json", "-"], check=True, capture_output=True, text=True).stdout
    case = json.loads(out)["suites"][0]["tests"][0]["cases"][0]
    m = {x["name"]: x for x in case["metrics"]}
    h = m["latency"]["histogram"]
    # The first of the two repetitions is the one comparable with one fio run.
    return {"iops": m["iops"]["samples"][0], "mean": h["mean"], "p50": h["percentiles"]["p50"],
            "p99": h["percentiles"]["p99"], "cpu_per_io": 1 / m["ios_per_cpu_s"]["summary"]["mean"]}

keys = ["iops", "mean", "p50", "p99", "cpu_per_io"]
print(f"vmbench / fio, {rounds} rounds of {secs:g} s (ramp {ramp} s), file size {size}, in {os.path.abspath(d)}")
print(f"{'workload':20} {'fio IOPS':>10} {'vmb IOPS':>10} " + " ".join(f"{k + ' ratio':>14}" for k in keys))
for name, rw, test, bs, qd, (fextra, vextra) in work:
    if HUGE == (fextra, vextra) and huge_free() < 8:
        print(f"{name:20} skipped: {huge_free()} hugetlb pages free, 8 needed (sysctl vm.nr_hugepages)", flush=True)
        continue
    ratios = {k: [] for k in keys}
    fi, vi = [], []
    fd, path = tempfile.mkstemp(prefix="disk-vs-fio-", dir=d)
    try:
        lay_out(fd, size_bytes(size))
    finally:
        os.close(fd)
    for _ in range(rounds):
        f = fio(path, rw, bs, qd, fextra)
        v = vmb(path, test, bs, qd, vextra)
        fi.append(f["iops"])
        vi.append(v["iops"])
        for k in keys:
            ratios[k].append(v[k] / f[k])
    os.unlink(path)
    med = {k: statistics.median(r) for k, r in ratios.items()}
    print(f"{name:20} {statistics.median(fi):10.0f} {statistics.median(vi):10.0f} "
          + " ".join(f"{med[k]:14.3f}" for k in keys), flush=True)
PY
