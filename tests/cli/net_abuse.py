#!/usr/bin/env python3
"""A client that misbehaves against `vmbench serve` on 127.0.0.1:PORT in
one of several ways (the scenario, argv[2]), then checks that the server
still answers the next, well-behaved client. Exit 0 when it does; every
wait is bounded (socket timeouts), nothing sleeps to wait for a result (a
slow client's pace is a bounded wait for the server's answer). With
$VMBENCH_NET_TOKEN set, the server is taken to ask for that token, and the
well-behaved client presents it and loads a page on its session's own HTTP
port. A third party is a socket bound to 127.0.0.2."""
import os
import resource
import select
import socket
import sys
import time

port = int(sys.argv[1])
scenario = sys.argv[2]
token = os.environ.get("VMBENCH_NET_TOKEN", "")
GREETING = ("VMBNET 1 token=%s\n" % token if token else "VMBNET 1\n").encode()


def conn(src="127.0.0.1", to=None):
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", to or port))
    return s


def readline(s):
    buf = b""
    while not buf.endswith(b"\n"):
        c = s.recv(1)
        if not c:
            break
        buf += c
    return buf


def closed(s):
    """True when the server closed s (it may say one line first)."""
    try:
        data = s.recv(4096)
        while data:
            data = s.recv(4096)
        return True
    except ConnectionResetError:
        return True


def hello(s):
    s.sendall(GREETING)
    line = readline(s)
    assert line == b"OK 1\n", line


def http_get(s, path):
    """One GET with Connection: close: the whole answer."""
    s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    resp = b""
    while True:
        c = s.recv(65536)
        if not c:
            return resp
        resp += c


def slow(s, data, interval, limit):
    """Send data one byte per interval until the server closes s: the
    number of bytes it took, or None when the server kept it open for
    limit bytes (or all of data)."""
    for i in range(min(limit, len(data))):
        r, _, _ = select.select([s], [], [], interval)
        if r:
            try:
                if not s.recv(4096):
                    return i
            except ConnectionResetError:
                return i
        try:
            s.sendall(data[i:i + 1])
        except (BrokenPipeError, ConnectionResetError):
            return i
    return None


if scenario == "garbage":
    s = conn()
    s.sendall(bytes(range(256)) * 16)
    assert closed(s), "garbage left the connection open"
elif scenario == "badlines":
    s = conn()
    hello(s)
    for bad in [b"TEST kind=nope ms=1\n", b"\x01\x02\x03\n", b"TEST kind=udp ms=999999999\n",
                b"TEST kind=tcp_stream ms=10 streams=100000\n", b"PORT 1\n", b"x" * 600 + b"\n"]:
        s.sendall(bad)
        line = readline(s)
        assert line.startswith(b"ERR "), (bad[:40], line)
        if len(bad) > 512:
            break  # a line too long ends the session
    assert closed(s)
elif scenario == "version":
    s = conn()
    s.sendall(b"VMBNET 2\n")
    line = readline(s)
    assert line.startswith(b"ERR ") and b"version" in line, line
    assert closed(s)
elif scenario == "midtest":
    # a stream test abandoned with its data connection open, a UDP test
    # abandoned with its control connection: both sessions end
    s = conn()
    hello(s)
    s.sendall(b"TEST kind=tcp_stream ms=600000 streams=1 size=65536\n")
    line = readline(s)
    assert line.startswith(b"PORT "), line
    d = socket.create_connection(("127.0.0.1", int(line.split()[1])), timeout=10)
    d.sendall(b"x" * 100000)
    s.close()
    d.close()
    s = conn()
    hello(s)
    s.sendall(b"TEST kind=udp ms=600000 size=100\n")
    line = readline(s)
    assert line.startswith(b"PORT "), line
    s.close()
elif scenario == "thousand":
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    socks = []
    for i in range(1000):
        s = conn()
        if i % 2:
            s.sendall(b"VMBNET 1\n")  # greet and then say nothing more
        socks.append(s)
    busy = 0
    for s in socks[1::2]:
        line = readline(s)
        assert line in (b"OK 1\n",) or line.startswith(b"ERR busy"), line
        busy += line.startswith(b"ERR busy")
    assert busy > 0, "more than 16 sessions at once were accepted"
    for s in socks:
        s.close()
elif scenario == "reflect":
    # a udp_rr test's port answers the client's own address only: a datagram
    # from another address (a forged source) is not echoed to it
    s = conn()
    hello(s)
    s.sendall(b"TEST kind=udp_rr ms=3000 size=16\n")
    line = readline(s)
    assert line.startswith(b"PORT "), line
    dport = int(line.split()[1])
    other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    other.bind(("127.0.0.2", 0))
    other.settimeout(0.5)
    other.sendto(b"r" * 16, ("127.0.0.1", dport))
    try:
        data = other.recv(100)
        sys.exit("echoed to another address: %r" % data)
    except socket.timeout:
        pass
    own = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    own.settimeout(5)
    own.sendto(b"s" * 16, ("127.0.0.1", dport))
    assert own.recv(100) == b"s" * 16  # the client's own address is answered
    s.sendall(b"END\n")
    line = readline(s)
    assert line.startswith(b"RESULT ") and b"bytes=16 " in line, line  # the other's datagram is not counted
    s.sendall(b"BYE\n")
    s.close()
elif scenario == "thirdparty":
    # a data port takes only the control connection's address: a third
    # party connecting to it gets nothing and is not counted as a stream
    s = conn()
    hello(s)
    s.sendall(b"TEST kind=tcp_stream ms=3000 streams=1 size=65536 dir=rev\n")
    line = readline(s)
    assert line.startswith(b"PORT "), line
    dport = int(line.split()[1])
    other = conn("127.0.0.2", dport)
    got = b""
    try:
        got = other.recv(65536)
    except ConnectionResetError:
        pass
    assert got == b"", "a third party received %d bytes" % len(got)
    own = conn(to=dport)
    assert len(own.recv(65536)) > 0  # the client itself is served
    s.sendall(b"END\n")
    own.close()
    line = readline(s)
    assert line.startswith(b"RESULT "), line
    s.sendall(b"BYE\n")
    s.close()
elif scenario == "udpport":
    # a udp_rr port answers the client's own port once known: another
    # socket on the same address is neither echoed nor counted
    s = conn()
    hello(s)
    s.sendall(b"TEST kind=udp_rr ms=3000 size=16\n")
    line = readline(s)
    assert line.startswith(b"PORT "), line
    dport = int(line.split()[1])
    own = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    own.settimeout(5)
    own.sendto(b"s" * 16, ("127.0.0.1", dport))
    assert own.recv(100) == b"s" * 16
    other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    other.settimeout(0.5)
    other.sendto(b"o" * 16, ("127.0.0.1", dport))
    try:
        data = other.recv(100)
        sys.exit("echoed to another port: %r" % data)
    except socket.timeout:
        pass
    s.sendall(b"END\n")
    line = readline(s)
    assert line.startswith(b"RESULT ") and b"bytes=16 " in line, line
    s.sendall(b"BYE\n")
    s.close()
elif scenario == "idle16":
    # 16 connections that said "VMBNET" and nothing more take no session
    # slot: the next client is greeted at once
    idle = [conn("127.0.0.2") for _ in range(16)]
    for s in idle:
        s.sendall(b"VMBNET")
    s = conn()
    s.sendall(GREETING)
    line = readline(s)
    assert line == b"OK 1\n", line
    s.sendall(b"BYE\n")
    s.close()
    for s in idle:
        s.close()
elif scenario == "sessions16":
    # one address holds 4 sessions at most: 16 greeted and silent ones from
    # 127.0.0.2 leave slots for everyone else
    held = []
    busy = 0
    for _ in range(16):
        s = conn("127.0.0.2")
        s.sendall(GREETING)
        line = readline(s)
        assert line == b"OK 1\n" or line.startswith(b"ERR busy"), line
        busy += line.startswith(b"ERR busy")
        held.append(s)
    assert busy == 12, "%d of 16 refused" % busy
    s = conn()
    hello(s)
    s.sendall(b"BYE\n")
    s.close()
    for s in held:
        s.close()
elif scenario == "slowloris":
    # an HTTP request one byte at a time, never ending: closed by the
    # request's total deadline, not kept by an idle timer each byte restarts
    s = conn()
    n = slow(s, b"GET /static/5 HTTP/1.1\r\nX: " + b"y" * 1000, 0.2, 150)
    assert n is not None, "a request of one byte per 0.2 s held its connection for 150 bytes (30 s)"
    s = conn()
    n = slow(s, GREETING[:-1] + b"x" * 1000, 0.2, 150)
    assert n is not None, "a greeting of one byte per 0.2 s held its connection for 150 bytes (30 s)"
elif scenario == "session_deadline":
    # a session that keeps asking ends at its total deadline
    s = conn()
    hello(s)
    line = b""
    for _ in range(200):
        s.sendall(b"STATS\n")
        line = readline(s)
        if not line.startswith(b"STATS "):
            break
        select.select([s], [], [], 0.1)
    assert line.startswith(b"ERR ") and b"time is up" in line, line
    assert closed(s)
elif scenario == "pipelined":
    # 300 lines after the greeting in one write (1.8 kB): every one answered
    s = conn()
    s.sendall(GREETING + b"STATS\n" * 300)
    assert readline(s) == b"OK 1\n"
    for i in range(300):
        line = readline(s)
        assert line.startswith(b"STATS http="), (i, line)
    s.sendall(b"BYE\n")
    s.close()
elif scenario == "nul":
    # a NUL inside a line is refused, not taken for the line's end
    s = conn()
    s.sendall(GREETING[:-1] + b"\x00junk\n")
    line = readline(s)
    assert line.startswith(b"ERR ") and b"0x00" in line, line
    s = conn()
    hello(s)
    s.sendall(b"STATS\x00junk\n")
    line = readline(s)
    assert line.startswith(b"ERR ") and b"0x00" in line, line
    s.sendall(b"BYE\n")
    s.close()
elif scenario == "duptoken":
    s = conn()
    s.sendall(b"VMBNET 1 token=a token=b\n")
    line = readline(s)
    assert line.startswith(b"ERR ") and b"twice" in line, line
elif scenario == "httpsize":
    # /static/N: decimal digits only, no sign, no white space
    for path, status in [(b"/static/5", b"200"), (b"/static/+5", b"404"), (b"/static/-5", b"404"),
                         (b"/static/\t5", b"400"), (b"/static/5 ", b"400"), (b"/static/0x5", b"404")]:
        resp = http_get(conn(), path)
        assert resp.startswith(b"HTTP/1.1 " + status + b" "), (path, resp[:60])
elif scenario == "http403":
    # with a token, the main port gives no page to anyone: a short 403,
    # and 255 pipelined requests get one answer of a few hundred bytes
    resp = http_get(conn(), b"/static/1048576")
    assert resp.startswith(b"HTTP/1.1 403 ") and len(resp) < 400, (len(resp), resp[:80])
    s = conn()
    s.sendall(b"GET /static/1048576 HTTP/1.1\r\nHost: x\r\n\r\n" * 255)
    resp = b""
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            resp += c
    except ConnectionResetError:
        pass  # closed with requests unread
    assert len(resp) < 400 and (resp == b"" or resp.startswith(b"HTTP/1.1 403 ")), (len(resp), resp[:80])
elif scenario == "httpauth":
    # a session's HTTP port: pages for the session's address, nothing for another
    s = conn()
    hello(s)
    s.sendall(b"HTTP\n")
    line = readline(s)
    assert line.startswith(b"PORT "), line
    hport = int(line.split()[1])
    resp = http_get(conn(to=hport), b"/static/5")
    assert resp.startswith(b"HTTP/1.1 200 ") and resp.endswith(b"abcde"), resp
    try:
        resp = http_get(conn("127.0.0.2", hport), b"/static/5")
    except ConnectionResetError:
        resp = b""
    assert resp == b"", resp[:60]
    s.sendall(b"BYE\n")
    s.close()
elif scenario == "bigheader":
    s = conn()
    s.sendall(b"GET /static/10 HTTP/1.1\r\n" + b"X: " + b"y" * 9000 + b"\r\n\r\n")
    assert closed(s)
else:
    sys.exit("unknown scenario " + scenario)

# The next client is answered: a session, its counters, and an HTTP page.
# Sessions the misbehaving client held are ended by the server within its
# bounds; a busy answer is retried, for 20 s at most.
deadline = time.monotonic() + 20
hport = port
while time.monotonic() < deadline:
    s = conn()
    s.sendall(GREETING)
    line = readline(s)
    if line.startswith(b"ERR busy"):
        s.close()
        continue
    assert line == b"OK 1\n", line
    s.sendall(b"STATS\n")
    line = readline(s)
    assert line.startswith(b"STATS http="), line
    if token:
        s.sendall(b"HTTP\n")
        line = readline(s)
        assert line.startswith(b"PORT "), line
        hport = int(line.split()[1])
    break
else:
    sys.exit("the server stayed busy")
resp = http_get(conn(to=hport), b"/static/5")
assert resp.startswith(b"HTTP/1.1 200 ") and resp.endswith(b"\r\n\r\nabcde"), resp
s.sendall(b"BYE\n")
s.close()
