#!/bin/bash
# The net suite side by side with its peers on loopback, alternately, in
# one run: tcp_stream against iperf3 (throughput and CPU per bit), tcp_rr and
# udp_rr against sockperf ping-pong (p50 round trip, --full-rtt), http against
# wrk on the same nginx with the same threads and connections (requests/s,
# for each thread count, wrk and vmbench in turn, who goes first alternating
# by round so that drift hits both alike; the median ratio per thread count),
# then the constant-rate mode against a known stall (serve --stall-ms 100:
# the server pauses 100 ms once a second; the corrected p99 must show it),
# and the client sweep (requests/s and p99 against connections) as the
# report draws it. With each thread count, http also compares the CPU each
# client spends per request: the user and system time of the client's
# process alone (not nginx's, the same server for both), from wait4, over
# the responses it completed (wrk's "requests in", vmbench's "responses").
# Goals: throughput ratio >= 0.95 and CPU per bit no worse, p50 within 10%,
# requests/s >= 1.0x and CPU per request <= 1.0x with each thread count
# (median of at least 5 rounds), each printed as met or NOT met.
# Usage: bench/net-vs-peers.sh [ROUNDS] [SECONDS] [THREADS,...] [CONNECTIONS]
#   defaults: 5 rounds of 3 s, threads 1,2,4, 16 connections
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-5} secs=${2:-3} threads=${3:-1,2,4} conns=${4:-16}
case "$rounds" in '' | *[!0-9]*) echo "ROUNDS: a whole number, not '$rounds'" >&2; exit 2 ;; esac
case "$threads" in '' | *[!0-9,]* | ,* | *, | *,,*) echo "THREADS: counts like 1,2,4, not '$threads'" >&2; exit 2 ;; esac
# one measurement at a time on this machine: a long one running would make both disturbed
if pgrep -f bench/power.sh >/dev/null; then
	echo "bench/power.sh is running: measure when it has finished (pgrep -f bench/power.sh)" >&2
	exit 2
fi
[ "$rounds" -ge 5 ] || echo "note: $rounds rounds; the http goal is judged on the median of at least 5"
scripts/deps.sh bench
[ -x build/vmbench ] || make build >/dev/null
VMB=$PWD/build/vmbench
out=$(mktemp -d)
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$out"' EXIT
export VMBENCH_DB=$out/results.db

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
bg() { "$@" >"$out/bg.$#.$RANDOM" 2>&1 & PIDS="$PIDS $!"; }
# wait_port PORT: until something accepts on it (20 s at most)
wait_port() {
	python3 - "$1" <<'PY'
import socket, sys, time
end = time.monotonic() + 20
while True:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close(); break
    except OSError:
        if time.monotonic() > end: raise
PY
}
# metric FILE NAME [percentile]: the median of a metric's samples, or a percentile of its histogram
metric() {
	python3 - "$@" <<'PY'
import json, statistics, sys
c = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"][0]
m = next(x for x in c["metrics"] if x["name"] == sys.argv[2])
print(m["histogram"]["percentiles"][sys.argv[3]] if len(sys.argv) > 3 else statistics.median(m["samples"]))
PY
}
ratio() { python3 -c "print(f'{$1 / $2:.3f}')"; }
# cpu FILE CMD...: run CMD; its CPU seconds (user + system, of its process and
# the children it waited for, from wait4) into FILE; CMD's exit status
cpu() {
	python3 -c 'import os, subprocess, sys
p = subprocess.Popen(sys.argv[2:])
_, st, ru = os.wait4(p.pid, 0)
open(sys.argv[1], "w").write(f"{ru.ru_utime + ru.ru_stime}\n")
sys.exit(os.waitstatus_to_exitcode(st))' "$@"
}

vport=$(freeport); bg "$VMB" serve --port "$vport"; wait_port "$vport"
iport=$(freeport); bg iperf3 -s -p "$iport"; wait_port "$iport"
tport=$(freeport); bg sockperf sr --tcp -i 127.0.0.1 -p "$tport"; wait_port "$tport"
uport=$(freeport); bg sockperf sr -i 127.0.0.1 -p "$uport"
nport=$(freeport)
mkdir -p "$out/ng/html" "$out/ng/tmp"
head -c 1024 /dev/zero | tr '\0' x >"$out/ng/html/page.html"
cat >"$out/ng/nginx.conf" <<EOF2
worker_processes 1;
daemon off;
master_process off;
pid $out/ng/nginx.pid;
error_log $out/ng/error.log;
events { worker_connections 4096; }
http {
	access_log off;
	client_body_temp_path $out/ng/tmp; proxy_temp_path $out/ng/tmp; fastcgi_temp_path $out/ng/tmp;
	uwsgi_temp_path $out/ng/tmp; scgi_temp_path $out/ng/tmp;
	keepalive_requests 100000000;
	server { listen 127.0.0.1:$nport; root $out/ng/html; }
}
EOF2
bg /usr/sbin/nginx -p "$out/ng" -c "$out/ng/nginx.conf"; wait_port "$nport"
url="http://127.0.0.1:$nport/page.html"
v="--time $secs --warmup 0 --repeat 1 --no-store -q"

echo "net vs peers on loopback: $rounds rounds of $secs s, http with $threads threads and $conns connections"
echo "(a shared machine: read the medians and ratios, not single rounds)"
printf '%-5s %-28s %12s %12s %8s\n' round measure peer vmbench ratio
for r in $(seq "$rounds"); do
	iperf3 -c 127.0.0.1 -p "$iport" -t "$secs" -J >"$out/i.$r.json"
	"$VMB" run net.tcp_stream --net.server "127.0.0.1:$vport" $v --json "$out/v.$r.json"
	read -r ibps icpu < <(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]
print(e["sum_received"]["bits_per_second"], e["cpu_utilization_percent"]["host_total"] + e["cpu_utilization_percent"]["remote_total"])' "$out/i.$r.json")
	vbps=$(python3 -c "print($(metric "$out/v.$r.json" mbit_per_s) * 1e6)")
	vcpu=$(python3 -c "print($(metric "$out/v.$r.json" cpu_client_pct) + $(metric "$out/v.$r.json" cpu_server_pct))")
	t=$(ratio "$vbps" "$ibps"); echo "$t" >>"$out/tput"
	c=$(python3 -c "print(f'{($vcpu / $vbps) / ($icpu / $ibps):.3f}')"); echo "$c" >>"$out/cpubit"
	printf '%-5s %-28s %12.0f %12.0f %8s\n' "$r" "tcp_stream Mbit/s" "$(python3 -c "print($ibps/1e6)")" \
		"$(python3 -c "print($vbps/1e6)")" "$t"
	printf '%-5s %-28s %12.2f %12.2f %8s\n' "$r" "  CPU % (both sides) per Gbit" "$(python3 -c "print($icpu/$ibps*1e9)")" \
		"$(python3 -c "print($vcpu/$vbps*1e9)")" "$c"

	for proto in tcp udp; do
		port=$tport flag=--tcp
		[ $proto = udp ] && port=$uport flag=
		sp=$(sockperf pp $flag -i 127.0.0.1 -p "$port" -t "$secs" -m 14 --full-rtt 2>&1 |
			sed -n 's/.*percentile 50.000 = *//p')
		"$VMB" run net.${proto}_rr --net.server "127.0.0.1:$vport" --net.rr-size 14 $v --json "$out/rr.$proto.$r.json"
		vp=$(python3 -c "print($(metric "$out/rr.$proto.$r.json" latency p50) / 1e3)")
		x=$(ratio "$vp" "$sp"); echo "$x" >>"$out/${proto}rr"
		printf '%-5s %-28s %12.2f %12.2f %8s\n' "$r" "${proto}_rr p50 RTT us (14 B)" "$sp" "$vp" "$x"
	done

	for th in ${threads//,/ }; do
		runwrk() {
			cpu "$out/wcpu" wrk -t"$th" -c"$conns" -d"${secs}s" "$url" >"$out/wrk.txt"
			wr=$(sed -n 's/^Requests\/sec: *//p' "$out/wrk.txt")
			wn=$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' "$out/wrk.txt")
		}
		runvmb() {
			cpu "$out/vcpu" "$VMB" run net.http --net.url "$url" --net.threads "$th" --net.connections "$conns" $v \
				--json "$out/h.$r.$th.json"
			vr=$(metric "$out/h.$r.$th.json" requests_per_s)
			vn=$(metric "$out/h.$r.$th.json" responses)
		}
		if [ $((r % 2)) -eq 1 ]; then runwrk; runvmb; else runvmb; runwrk; fi
		x=$(ratio "$vr" "$wr"); echo "$x" >>"$out/http.$th"
		printf '%-5s %-28s %12.0f %12.0f %8s\n' "$r" "http requests/s ($th thr)" "$wr" "$vr" "$x"
		# CPU per request: a whole process's, start-up and the end's report included
		wu=$(python3 -c "print($(cat "$out/wcpu") / $wn * 1e6)")
		vu=$(python3 -c "print($(cat "$out/vcpu") / $vn * 1e6)")
		x=$(ratio "$vu" "$wu"); echo "$x" >>"$out/httpcpu.$th"
		printf '%-5s %-28s %12.2f %12.2f %8s\n' "$r" "  CPU us per request" "$wu" "$vu" "$x"
	done
done
python3 - "$out" "$threads" "$conns" <<'PY'
import statistics, sys
# each row: the file of its per-round ratios, what it is, the goal's bounds (None: none)
rows = [("tput", "tcp_stream throughput vmbench/iperf3", 0.95, None),
        ("cpubit", "CPU per bit vmbench/iperf3", None, 1.0),
        ("tcprr", "tcp_rr p50 vmbench/sockperf", 0.9, 1.1),
        ("udprr", "udp_rr p50 vmbench/sockperf", 0.9, 1.1)]
for t in sys.argv[2].split(","):
    rows += [("http." + t, f"http requests/s vmbench/wrk, {t} threads, {sys.argv[3]} conns", 1.0, None),
             ("httpcpu." + t, f"http CPU per request vmbench/wrk, {t} threads, {sys.argv[3]} conns", None, 1.0)]
for f, what, lo, hi in rows:
    r = [float(x) for x in open(sys.argv[1] + "/" + f)]
    m = statistics.median(r)
    goal = f">= {lo}" if hi is None else f"<= {hi}" if lo is None else f"{lo} to {hi}"
    ok = (lo is None or m >= lo) and (hi is None or m <= hi)
    print(f"median {what}: {m:.3f} of {len(r)} rounds (min {min(r):.3f}, max {max(r):.3f}; "
          f"goal {goal}: {'met' if ok else 'NOT met'})")
PY

# the constant-rate mode and the sweep: with the largest thread count
threads=${threads##*,}

# the constant-rate mode against a known stall
sport=$(freeport); bg "$VMB" serve --port "$sport" --stall-ms 100; wait_port "$sport"
# 4 connections: the pause holds 4 requests on the wire (0.4% of them) and queues the rest at the
# client, where only the schedule's clock sees them wait
"$VMB" run net.http --net.server "127.0.0.1:$sport" --net.http-rate 1000 --net.connections 4 \
	--net.threads "$threads" --time 5 --warmup 0 --repeat 1 --no-store -q --json "$out/stall.json"
echo "constant rate 1000/s, server pausing 100 ms once a second (10% of the time): a request due during"
echo "a pause waits for its end, so about 10% of requests take 0 to 100 ms and p99 should be near 90 ms"
printf '  corrected p99 (from the intended send): %8.1f ms\n' "$(python3 -c "print($(metric "$out/stall.json" latency p99)/1e6)")"
printf '  uncorrected p99 (from the actual send): %8.1f ms\n' \
	"$(python3 -c "print($(metric "$out/stall.json" uncorrected_latency p99)/1e6)")"

# the client sweep, as the report draws it
"$VMB" run net.http --net.url "$url" --net.threads "$threads" --net.connections 1,4,16,64,256 --time "$secs" \
	--warmup 0.5 --repeat 2 -q --json "$out/sweep.json"
echo "client sweep against nginx (requests/s and p99 against connections):"
python3 - "$out/sweep.json" <<'PY'
import json, statistics, sys
for c in json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"]:
    m = {x["name"]: x for x in c["metrics"]}
    print(f"  {c['params']['connections']:>4} connections: {statistics.median(m['requests_per_s']['samples']):9.0f} req/s"
          f"  p99 {statistics.median(m['p99_latency']['samples']) / 1e3:8.1f} us")
PY
"$VMB" report "$out/sweep.json" -o "$out/sweep.html"
grep -q "p99_latency vs connections" "$out/sweep.html" && grep -q "requests_per_s vs connections" "$out/sweep.html" &&
	echo "the report draws both curves (net.http requests_per_s and p99_latency vs connections)"
if [ -n "${KEEP_REPORT:-}" ]; then cp "$out/sweep.html" "$KEEP_REPORT"; echo "report kept in $KEEP_REPORT"; fi
