#!/usr/bin/env python3
"""A client that misbehaves against `vmbench serve` on 127.0.0.1:PORT in
one of several ways (the scenario, argv[2]), then checks that the server
still answers the next, well-behaved client. Exit 0 when it does; every
wait is bounded (socket timeouts), nothing sleeps."""
import resource
import socket
import sys
import time

port = int(sys.argv[1])
scenario = sys.argv[2]


def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
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
    s.sendall(b"VMBNET 1\n")
    line = readline(s)
    assert line == b"OK 1\n", line


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
while time.monotonic() < deadline:
    s = conn()
    s.sendall(b"VMBNET 1\n")
    line = readline(s)
    if line.startswith(b"ERR busy"):
        s.close()
        continue
    assert line == b"OK 1\n", line
    s.sendall(b"STATS\n")
    line = readline(s)
    assert line.startswith(b"STATS http="), line
    s.sendall(b"BYE\n")
    s.close()
    break
else:
    sys.exit("the server stayed busy")
h = conn()
h.sendall(b"GET /static/5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
resp = b""
while True:
    c = h.recv(4096)
    if not c:
        break
    resp += c
assert resp.startswith(b"HTTP/1.1 200 ") and resp.endswith(b"\r\n\r\nabcde"), resp
