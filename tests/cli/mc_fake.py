#!/usr/bin/env python3
# A fake memcached for tests/cli/memcached.sh: listens on a free loopback
# port, prints "listening on 127.0.0.1:PORT", and answers every connection
# as its mode says: garbage (an HTTP error page to whatever comes), silent
# (reads and never answers), close (closes at once).
import socket, sys, threading

mode = sys.argv[1]
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(64)
print("listening on 127.0.0.1:%d" % srv.getsockname()[1], flush=True)


def serve(c):
    try:
        while True:
            if mode == "close":
                break
            data = c.recv(65536)
            if not data:
                break
            if mode == "garbage":
                c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    except OSError:
        pass
    c.close()


while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
