#!/bin/sh
# vmbench net.memcached side by side with memaslap (Debian's memcaslap, of
# libmemcached-tools) against one memcached on loopback started here: the
# same threads, connections (memaslap's concurrency, one socket each), mix
# (a set to nine gets), key and value sizes (64 and 1024 bytes, memaslap's
# defaults) and key space (memaslap's window times its concurrency), each
# as fast as answers come, run alternately. Per round: ops/s and mean
# latency of each and their ratios, and the log2 bucket of the p99
# (memaslap keeps latencies in powers of two of a microsecond only: its
# bucket K holds the latencies above 2^(K-1) and at most 2^K us, the
# smallest K with 2^K >= the latency, ms_local_log2 in its ms_stats.c; so
# vmbench's p99 goes to the bucket ceil(log2(p99 in us)) to compare); then
# the medians. Goals: ops/s ratio (vmbench / memaslap) at least 0.9 (the
# generator is not what limits the figure), mean latency ratio 0.8 to 1.25,
# the p99 in the same or the next power of two.
# Usage: bench/memcached-vs-memaslap.sh [ROUNDS] [SECONDS] [CONNECTIONS] [THREADS]
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-5} secs=${2:-5} conns=${3:-16} threads=${4:-2}
win=1024 # memaslap -w 1k: its keys per connection
keys=$((win * conns))
scripts/deps.sh bench
[ -x build/vmbench ] || make build >/dev/null
command -v memcaslap >/dev/null || { echo "memcached-vs-memaslap: no memcaslap (libmemcached-tools)" >&2; exit 1; }
out=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
u=""
[ "$(id -u)" -ne 0 ] || u="-u root"
# shellcheck disable=SC2086
memcached -l 127.0.0.1 -p "$port" -U 0 -m 1024 -c 4096 $u &
mc=$!
trap 'kill $mc 2>/dev/null; rm -rf "$out"' EXIT
python3 - "$port" <<'PY' || { echo "memcached-vs-memaslap: memcached did not start" >&2; exit 1; }
import socket, sys, time
for _ in range(500):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.01)
sys.exit(1)
PY
printf 'key\n64 64 1\nvalue\n1024 1024 1\ncmd\n0 0.1\n1 0.9\n' > "$out/cfg"

echo "net.memcached vs memaslap: 127.0.0.1:$port, $threads threads, $conns connections, 1:9 set:get," \
	"64 B keys, 1 KiB values, $keys keys, $secs s, $rounds rounds"
printf '%-6s %10s %10s %7s %10s %10s %7s %8s %8s\n' round ms_ops vmb_ops ratio ms_avg_us vmb_avg_us ratio ms_p99 vmb_p99
for r in $(seq "$rounds"); do
	memcaslap -s "127.0.0.1:$port" -F "$out/cfg" -t "${secs}s" -S "${secs}s" -T "$threads" -c "$conns" -w 1k \
		> "$out/ms.txt" 2>&1 || true # memaslap exits 1 after a timed run
	rm -f "$out/v.json"
	build/vmbench run net.memcached --net.memcached-server "127.0.0.1:$port" --net.threads "$threads" \
		--net.connections "$conns" --net.memcached-keys "$keys" --time "$secs" --repeat 2 --warmup 0 \
		--no-store -q --json "$out/v.json"
	python3 - "$out/ms.txt" "$out/v.json" "$r" >> "$out/rows" <<'PY'
import json, math, re, sys
ms = open(sys.argv[1]).read()
# memaslap's global line of its total statistics: ops/s, mean latency
tot = ms[ms.index("Total Statistics"):]
g = re.search(r"Global\s+\S+\s+\d+\s+(\d+)\s+\S+\s+\d+\s+\d+\s+\d+\s+(\d+)", tot)
ms_ops, ms_avg = float(g.group(1)), float(g.group(2))
# its log2 distribution of the total: the row "K:" begins with bucket K (up to 2^K us)
dist = ms[ms.rindex("Total Statistics ("):]
counts = {}
for row in re.finditer(r"^\s+(\d+):((?:\s+\d+)+)$", dist, re.M):
    for j, n in enumerate(row.group(2).split()):
        counts[int(row.group(1)) + j] = int(n)
total, acc, ms_p99 = sum(counts.values()), 0, None
for k in sorted(counts):
    acc += counts[k]
    if acc >= 0.99 * total:
        ms_p99 = k
        break
c = json.load(open(sys.argv[2]))["suites"][0]["tests"][0]["cases"][0]
m = {x["name"]: x for x in c["metrics"]}
v_ops = m["requests_per_s"]["summary"]["mean"]
h = m["latency"]["histogram"]
v_avg = h["mean"] / 1e3
# memaslap's bucket of a latency: the smallest K with 2^K >= it (us)
v_p99 = int(math.ceil(math.log2(max(h["percentiles"]["p99"] / 1e3, 1))))
print(sys.argv[3], ms_ops, v_ops, v_ops / ms_ops, ms_avg, v_avg, v_avg / ms_avg, ms_p99, v_p99)
PY
	tail -n 1 "$out/rows" | awk '{ printf "%-6s %10.0f %10.0f %7.3f %10.0f %10.0f %7.3f %8s %8s\n",
		$1, $2, $3, $4, $5, $6, $7, "2^" $8, "2^" $9 }'
done
python3 - "$out/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
ops = statistics.median(float(r[3]) for r in rows)
lat = statistics.median(float(r[6]) for r in rows)
p99 = statistics.median(int(r[8]) - int(r[7]) for r in rows)
print(f"median ops/s ratio {ops:.3f} (goal >= 0.9: {'met' if ops >= 0.9 else 'NOT met'})")
print(f"median mean-latency ratio {lat:.3f} (goal 0.8 to 1.25: {'met' if 0.8 <= lat <= 1.25 else 'NOT met'})")
print(f"median p99 bucket difference {p99:+.0f} powers of two (goal -1 to +1: {'met' if abs(p99) <= 1 else 'NOT met'})")
PY
