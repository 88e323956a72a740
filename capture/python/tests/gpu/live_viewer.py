"""A stand-in for the GUI's Capture > Listen on the GPU machine (no display there): accepts one
recorder on a Unix socket, stores the stream, and logs when each byte range arrived.
    python live_viewer.py SOCKET OUT.vscap OUT.arrivals"""
import os
import socket
import sys
import time

path, out, log = sys.argv[1:4]
if os.path.exists(path):
    os.unlink(path)
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
os.chmod(path, 0o600)
srv.listen(1)
conn, _ = srv.accept()
total = 0
with open(out, "wb") as f, open(log, "w") as lg:
    while True:
        b = conn.recv(1 << 20)
        if not b:
            break
        f.write(b)
        total += len(b)
        lg.write("%d %.6f\n" % (total, time.time()))
print("viewer received %d bytes" % total)
