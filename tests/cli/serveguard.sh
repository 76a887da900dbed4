#!/bin/bash
# serve's guards against a client that guesses or floods (issue 41): the
# token a server on a network takes, the wrong tokens slowed and counted
# per address, and the back-off of accept at the descriptor limit. Every
# server binds loopback; 127.0.0.2 is a second client address on lo.
. "$(dirname "$0")/lib.sh"

PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

# start_serve FD ARGS...: as net.sh's; the pid in PID (added to PIDS), the port in PORT
start_serve() {
	fd=$1
	shift
	rm -f "$T/fifo$fd"
	mkfifo "$T/fifo$fd"
	"$@" >"$T/fifo$fd" 2>"$T/serve$fd.err" &
	PID=$!
	PIDS="$PIDS $PID"
	eval "exec $fd<\"\$T/fifo$fd\""
	read -r -t 20 line <&"$fd"
	PORT=${line##*:}
}

# --- a token of real strength on a network (refused before serve binds) ---
# 192.0.2.1 (TEST-NET-1, never this machine's): a serve that took the token
# would fail to bind it (exit 1), never listen on a network; timeout bounds it
NET=192.0.2.1
VMBENCH_NET_TOKEN=Q expect 2 "serve --bind $NET refuses a one-character token" timeout 20 "$VMB" serve --bind $NET --port 0
has "$T/err" "a server on a network takes a token of at least 16" "the refusal says the rule"
has "$T/err" "openssl rand -hex 16" "and how to make one"
lacks "$T/err" "serve: bind" "it was refused before binding"
VMBENCH_NET_TOKEN=0123456789abcde expect 2 "serve --bind $NET refuses 15 characters" timeout 20 "$VMB" serve \
	--bind $NET --port 0
has "$T/err" "has 15 characters" "the refusal counts them"
VMBENCH_NET_TOKEN=0123456789abcdef expect 1 "serve --bind $NET takes 16 (and fails to bind an address not here)" \
	timeout 20 "$VMB" serve --bind $NET --port 0
has "$T/err" "bind $NET" "the failure is the bind's"
expect 0 "serve's help says the rule" "$VMB" serve --help
has "$T/out" "of 16 to 64 letters" "--bind's help gives the token's length"
# loopback keeps any token (a test's, a script's)
VMBENCH_NET_TOKEN=Q start_serve 3 "$VMB" serve --port 0 --once
check "serve on loopback takes a one-character token" test -n "$PORT"
kill "$PID"

# --- wrong tokens: counted and logged per address, that address slowed ---
TOK=s3cret.T0ken
VMBENCH_NET_TOKEN=$TOK start_serve 4 "$VMB" serve --port 0
check "wrong tokens from one address are slowed, not others'; each is logged with its count" \
	python3 - "$PORT" "$TOK" <<'PY'
import select, socket, sys
port, tok = int(sys.argv[1]), sys.argv[2]

def greet(src, token):
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(20)
    s.connect(("127.0.0.1", port))
    s.sendall(("VMBNET 1 token=%s\n" % token).encode())
    return s

def line(s):
    b = b""
    while not b.endswith(b"\n"):
        c = s.recv(1)
        if not c:
            break
        b += c
    return b.decode()

# four wrong tokens from 127.0.0.2, one after the other: each refused
for i in range(4):
    s = greet("127.0.0.2", "wrong%d" % i)
    r = line(s)
    assert r == "ERR wrong or missing token\n", (i, r)
    s.close()
# 127.0.0.2's next greeting waits (0.8 s after its fourth failure), even
# with the right token; 127.0.0.1's greeting, sent after it, is answered
# first: the wait is that address's alone
held = greet("127.0.0.2", tok)
other = greet("127.0.0.1", tok)
assert line(other).startswith("OK 1"), "127.0.0.1 was not served"
# (serve answers in order: unslowed, 127.0.0.2's answer would be here already)
ready, _, _ = select.select([held], [], [], 0)
assert not ready, "127.0.0.2's greeting was answered at once, with four wrong tokens just before it"
# and the held greeting is served in its time, not refused
r = line(held)
assert r.startswith("OK 1"), r
held.sendall(b"BYE\n")
other.sendall(b"BYE\n")
# the right token forgot 127.0.0.2's failures: the next wrong one is its first
s = greet("127.0.0.2", "wrong-again")
assert line(s) == "ERR wrong or missing token\n"
PY
for k in 1 2 3 4; do
	[ "$k" = 1 ] && w="attempt" || w="attempts"
	has "$T/serve4.err" "wrong or missing token from 127.0.0.2 ($k failed $w from this address" \
		"wrong token $k from 127.0.0.2 is logged with its count"
done
check "after the right token, 127.0.0.2's count starts again at 1 (two lines with 1)" \
	test "$(grep -c "from 127.0.0.2 (1 failed attempt from" "$T/serve4.err")" -eq 2
lacks "$T/serve4.err" "from 127.0.0.1" "127.0.0.1, which gave the right token, is not counted"
check "serve is still running" kill -0 "$PID"
kill "$PID"

# --- at the descriptor limit, accept backs off instead of spinning ---
# serve under strace with 24 descriptors; a client holds 40 connections
# open for 2 s: the ones serve cannot accept stay in the backlog. Spinning,
# serve called accept4 tens of thousands of times in such a window; backing
# off 250 ms at a time, a few per pause and one per connection taken.
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
	skip "at the descriptor limit, accept4 is called a bounded number of times" "strace cannot trace here"
else
	start_serve 5 bash -c 'ulimit -n 24 && exec strace -f -qq -c -e trace=accept4 -o "$1" "$2" serve --port 0' \
		sh "$T/strace" "$VMB"
	STRACE=$PID
	check "a client holds 40 connections open for 2 s" python3 - "$PORT" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
socks = []
for i in range(40):
    s = socket.socket()
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    socks.append(s)
time.sleep(2)  # the window over which accept4 calls are counted (a bound on a count, not a speed)
for s in socks:
    s.close()
PY
	expect 0 "the server still measures once descriptors are free" "$VMB" run net.tcp_rr --net.server "127.0.0.1:$PORT" \
		--quick --no-store
	# serve (strace's child) ends on SIGTERM, and strace writes its count
	SERVE=$(pgrep -P "$STRACE")
	kill "$SERVE"
	wait "$STRACE"
	calls=$(awk '$NF == "accept4" { print $4 }' "$T/strace")
	check "accept4 was called at most 400 times (it was $calls)" test -n "$calls" -a "${calls:-0}" -le 400
	said=$(grep -c "cannot accept a connection: Too many open files" "$T/serve5.err")
	check "the starvation is said once (it was said $said times)" test "$said" -eq 1
fi
finish
