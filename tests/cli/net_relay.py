#!/usr/bin/env python3
"""A TCP relay in front of `vmbench serve` that delays every byte the
server sends by DELAY_MS (argv[2]) before passing it on: a known latency
added without netem. It relays the control connection (rewriting each
"PORT n" to a data port of its own) and every data connection. Listens on
127.0.0.1, prints "listening on 127.0.0.1:PORT", runs until killed.
With HOLDS_FILE, the median of the delays it really held (a sleep
overshoots by the timer's slack) is kept there, rewritten every 50
delayed writes: a client's latency is checked against what was added.
Usage: net_relay.py SERVER_PORT DELAY_MS [HOLDS_FILE]"""
import os
import socket
import sys
import threading
import time

server_port = int(sys.argv[1])
delay = float(sys.argv[2]) / 1000.0
holds_file = sys.argv[3] if len(sys.argv) > 3 else None
holds = []
holds_lock = threading.Lock()


def held(seconds):
    if not holds_file:
        return
    with holds_lock:
        holds.append(seconds)
        if len(holds) % 50:
            return
        median = sorted(holds)[len(holds) // 2]
        with open(holds_file + ".new", "w") as f:
            f.write("%.9f\n" % median)
        os.replace(holds_file + ".new", holds_file)


def pump(src, dst, delayed):
    try:
        while True:
            data = src.recv(65536)
            t = time.monotonic()
            if not data:
                break
            if delayed:
                left = t + delay - time.monotonic()
                if left > 0:
                    time.sleep(left)
                held(time.monotonic() - t)
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def relay_pair(client, target_port):
    up = socket.create_connection(("127.0.0.1", target_port), timeout=10)
    up.settimeout(None)
    for s in (client, up):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    threading.Thread(target=pump, args=(client, up, False), daemon=True).start()
    threading.Thread(target=pump, args=(up, client, True), daemon=True).start()


def data_listener(target_port):
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(128)

    def accept_loop():
        while True:
            c, _ = ls.accept()
            relay_pair(c, target_port)
    threading.Thread(target=accept_loop, daemon=True).start()
    return ls.getsockname()[1]


def control(client):
    up = socket.create_connection(("127.0.0.1", server_port), timeout=10)
    up.settimeout(None)
    threading.Thread(target=pump, args=(client, up, False), daemon=True).start()
    buf = b""
    try:
        while True:
            data = up.recv(4096)
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line.startswith(b"PORT "):
                    line = b"PORT %d" % data_listener(int(line.split()[1]))
                client.sendall(line + b"\n")
    except OSError:
        pass
    client.close()


ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 0))
ls.listen(16)
print("listening on 127.0.0.1:%d" % ls.getsockname()[1], flush=True)
while True:
    c, _ = ls.accept()
    threading.Thread(target=control, args=(c,), daemon=True).start()
