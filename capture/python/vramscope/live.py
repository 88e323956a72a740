"""The live connection to a listening vramscope viewer: a Unix socket fed by a sender thread from a
bounded queue. The program never waits for the viewer: when the queue is full (viewer slow or gone)
the connection is dropped with one message, and the file goes on being written. Nothing is sent to a
listener that runs as another user (a socket planted at the path by someone else)."""
import collections
import errno
import os
import socket
import struct
import sys
import threading


def listener_uid(sock):
    """The uid of the process listening at the other end of a connected Unix socket (SO_PEERCRED:
    pid, uid, gid as the kernel recorded them when it listened), or None where the OS cannot say."""
    if not hasattr(socket, "SO_PEERCRED"):
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


class LiveSink:
    def __init__(self, path, max_queued=64 << 20, connect_timeout=2.0, expected_uid=None):
        self.path = path
        self.max_queued = max_queued
        self.closed = False
        self.sent = 0
        self._queued = 0
        self._queue = collections.deque()
        self._cv = threading.Condition()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(connect_timeout)
        try:
            self._sock.connect(path)  # raises OSError: the caller says "no viewer listening"
            self._check_listener(os.geteuid() if expected_uid is None else expected_uid)
        except OSError:
            self._sock.close()
            raise
        self._sock.settimeout(None)
        self._thread = threading.Thread(target=self._run, name="vramscope-live", daemon=True)
        self._thread.start()
        self.requests = collections.deque()  # what the viewer asked for: b"R" = a retention graph
        self._reader = threading.Thread(target=self._read, name="vramscope-live-requests", daemon=True)
        self._reader.start()

    def _check_listener(self, expected_uid):
        """Raises PermissionError unless the listener runs as `expected_uid` (our own by default)."""
        uid = listener_uid(self._sock)
        if uid is not None and uid != expected_uid:
            raise PermissionError(errno.EACCES, "the listener runs as uid %d, not as this user (uid %d): "
                                  "refused, nothing sent" % (uid, expected_uid))

    def _read(self):
        """The viewer's requests, one byte each ("R": collect a retention graph now)."""
        while not self.closed:
            try:
                b = self._sock.recv(64)
            except OSError:
                return
            if not b:
                return
            for c in b:
                if c == ord("R"):
                    self.requests.append("retention")

    def write(self, data):
        with self._cv:
            if self.closed:
                return
            if self._queued + len(data) > self.max_queued:
                self._give_up("the viewer is not keeping up (%d MiB queued)" % (self._queued >> 20))
                return
            self._queue.append(data)
            self._queued += len(data)
            self._cv.notify()

    def _give_up(self, why):
        if not self.closed:
            self.closed = True
            self._queue.clear()
            self._cv.notify()
            print("vramscope: live view disconnected: %s; recording continues to the file" % why, file=sys.stderr)
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _run(self):
        while True:
            with self._cv:
                while not self._queue and not self.closed:
                    self._cv.wait()
                if self.closed and not self._queue:
                    break
                data = self._queue.popleft()
                self._queued -= len(data)
            try:
                self._sock.sendall(data)
                self.sent += len(data)
            except OSError as e:
                with self._cv:
                    self._give_up(str(e) or "connection lost")
                break
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # EOF for the viewer; wakes the request reader
        except OSError:
            pass
        self._sock.close()

    def close(self, timeout=2.0):
        """Sends what is queued (for at most `timeout` seconds), then closes."""
        with self._cv:
            if not self.closed:
                self.closed = True
                self._cv.notify()
        self._thread.join(timeout)
