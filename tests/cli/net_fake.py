#!/usr/bin/env python3
"""A fake `vmbench serve` on 127.0.0.1: it speaks the control protocol and
takes the data of tcp_stream and udp tests like the real one, but its
RESULT is what MODE (argv[1]) says:

  honest  the bytes and datagrams it did receive (the harness's own check)
  forge   bytes=999999999999999999 and, for udp, as many packets: figures
          no server can have measured from what the client sent
  nul     its greeting's answer holds a NUL ("OK 1\\0junk"), to be refused
  droprr  udp_rr answered, but the first two requests of each test never
          (a peer that loses them, or answers them too late: a guest
          starved by a real-time one); the client must wait past a window
          shorter than its 200 ms timeout for the first transaction
  http    no control protocol: an HTTP server whose answers are framed as
          the path asks, each written in small pieces so that the client
          reads them cut anywhere (see HTTP below):
            /chunked  chunked, with extensions and a trailer
            /interim  a 100 Continue and a 103, then a Content-Length
            /close    no length, the body ends with the connection
            /late     a connection's first answer 0.4 s late (a slow server:
                      the one wait of this server, by design), then at once

Prints "listening on 127.0.0.1:PORT", serves sessions until killed. Every
socket wait is bounded; nothing sleeps but /late's first answer."""
import socket
import sys
import threading
import time

mode = sys.argv[1]
FORGED = 999999999999999999


def readline(f):
    line = f.readline(600)
    return line.decode("ascii", "replace").strip() if line else None


def tcp_data(ls, streams, state):
    conns = []
    ls.settimeout(5)
    try:
        for _ in range(streams):
            c, _ = ls.accept()
            c.settimeout(10)
            conns.append(c)
    except OSError:
        return

    def drain(c):
        try:
            while True:
                d = c.recv(1 << 16)
                if not d:
                    break
                if not state["ended"]:
                    state["bytes"] += len(d)
        except OSError:
            pass
        c.close()
    for c in conns:
        threading.Thread(target=drain, args=(c,), daemon=True).start()


def udp_data(us, state, echo=False):
    """Counts the datagrams; echo (udp_rr): answers each but the first two,
    which are dropped."""
    us.settimeout(0.2)
    while not state["ended"]:
        try:
            d, peer = us.recvfrom(65536)
        except socket.timeout:
            continue
        except OSError:
            return
        state["bytes"] += len(d)
        state["packets"] += 1
        if echo and state["packets"] > 2:
            state["sent"] += us.sendto(d, peer)


def session(c):
    c.settimeout(30)
    f = c.makefile("rb")
    if readline(f) is None:
        return
    if mode == "nul":
        c.sendall(b"OK 1\x00junk\n")
        return
    c.sendall(b"OK 1\n")
    while True:
        line = readline(f)
        if line is None or line == "BYE":
            return
        words = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
        if line.startswith("STATS"):
            c.sendall(b"STATS http=0\n")
            continue
        if not line.startswith("TEST"):
            c.sendall(b"ERR this fake serves TEST, STATS and BYE\n")
            continue
        kind = words.get("kind")
        state = {"bytes": 0, "packets": 0, "sent": 0, "ended": False}
        if kind == "udp_rr" and mode == "droprr":
            ds = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            ds.bind(("127.0.0.1", 0))
            t = threading.Thread(target=udp_data, args=(ds, state, True), daemon=True)
        elif kind == "udp":
            ds = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            ds.bind(("127.0.0.1", 0))
            t = threading.Thread(target=udp_data, args=(ds, state), daemon=True)
        elif kind == "tcp_stream":
            ds = socket.socket()
            ds.bind(("127.0.0.1", 0))
            ds.listen(16)
            t = threading.Thread(target=tcp_data, args=(ds, int(words.get("streams", "1")), state), daemon=True)
        else:
            c.sendall(b"ERR this fake serves tcp_stream and udp\n")
            continue
        t.start()
        c.sendall(b"PORT %d\n" % ds.getsockname()[1])
        if readline(f) != "END":
            return
        state["ended"] = True
        t.join(5)
        ds.close()
        got, packets = state["bytes"], state["packets"]
        if mode == "forge":
            got, packets = FORGED, FORGED
        if kind == "udp_rr":
            res = "RESULT bytes=%d sent=%d cpu_ns=1\n" % (got, state["sent"])
        elif kind == "udp":
            res = "RESULT bytes=%d sent=0 packets=%d lost=0 ooo=0 jitter_ns=0 cpu_ns=1\n" % (got, packets)
        else:
            res = "RESULT bytes=%d sent=0 cpu_ns=1 retrans=0\n" % got
        c.sendall(res.encode())


# Each response whole, and whether the connection stays open after it;
# their lengths are printed at the start for the CLI test.
CHUNKED = (b"HTTP/1.1 200 OK\r\nServer: fake\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"1a;name=\"x y\"\r\nabcdefghijklmnopqrstuvwxyz\r\n5\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n")
INTERIM = (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
           b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
CLOSE = b"HTTP/1.1 200 OK\r\nServer: fake\r\n\r\nthe body ends with the connection"
LATE = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
HTTP = {"/chunked": (CHUNKED, True), "/interim": (INTERIM, True), "/close": (CLOSE, False), "/late": (LATE, True)}


def http_one(c):
    """Answers the requests of one connection, each in pieces of 7 bytes."""
    c.settimeout(10)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = b""
    first = True
    while True:
        while b"\r\n\r\n" not in buf:
            d = c.recv(4096)
            if not d or len(buf) > 65536:
                return
            buf += d
        head, buf = buf.split(b"\r\n\r\n", 1)
        words = head.split(b"\r\n")[0].split()
        resp, keep = HTTP.get(words[1].decode("ascii", "replace") if len(words) > 1 else "", (None, False))
        if resp is None:
            c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        if words[1:2] == [b"/late"] and first:
            time.sleep(0.4)
        first = False
        for i in range(0, len(resp), 7):
            c.sendall(resp[i:i + 7])
        if not keep:
            return


def serve_one(c):
    try:
        if mode == "http":
            http_one(c)
        else:
            session(c)
    except OSError:
        pass
    c.close()


ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(64)
print("listening on 127.0.0.1:%d" % ls.getsockname()[1], flush=True)
if mode == "http":
    # what the client must count per response, its bytes on the wire
    print("bytes " + " ".join("%s=%d" % (k, len(v[0])) for k, v in sorted(HTTP.items())), flush=True)
while True:
    c, _ = ls.accept()
    threading.Thread(target=serve_one, args=(c,), daemon=True).start()
