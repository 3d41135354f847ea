"""One process of 1,100 TCP connections: every byte counted, to the
kernel's own figures.

Why: the BPF source's interval-end pass lists each member's TCP sockets,
and one visit of its task iterator may not write more than its seq_file
object's 32 KiB (some 600 sockets); the pass writes them to an array the
reader maps instead, however many a member holds. Where it dropped some
without saying so, or a member past that many took the files' path
(every descriptor's link read, the kernel's dump of the host's sockets at
every end), this shows: the sums of proc_net_tcp_sent_bytes and
proc_net_tcp_received_bytes must equal the sums of each connection's
TCP_INFO (tcpi_bytes_acked, tcpi_bytes_received), which the child reads
once each is finished (its FIN and the server's: the counts stand still
from then on), to the byte, and proc_net_tcp_connections must be 1,100 at
the ends that saw them open. Both sources run it (the sources suite).

Serial: its 2,200 closes (both ends) reach every process of the host that
joined the TCP destroy notifications, whose buffers other tests' runs
of proctree-execd keep (as nobody, rmem_max's: a few hundred), and the
drain of a burst is charged to the interval it ends in.
"""

import os
import selectors
import socket
import sys
import tempfile
import threading
import time
import unittest

import accounting_helpers as ah
import harness as h
import line_rules

# The child: MANY connections, each sending a header (the bytes to send,
# the bytes wanted back) and its bytes, then, when told, each finished
# and its TCP_INFO summed, then all closed.
MANY = 1100
MANY_CHILD = r"""
import os, socket, sys, time
host, port, steps, report, many = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
def wait(step):
    while not os.path.exists(os.path.join(steps, step)):
        time.sleep(0.02)
wait("open")
conns = []
for i in range(many):
    s = socket.create_connection((host, port))
    send, want = 2000 + i, 1000 + i
    s.sendall(send.to_bytes(8, "big") + want.to_bytes(8, "big") + b"x" * send)
    conns.append((s, want))
for s, want in conns:
    got = 0
    while got < want:
        chunk = s.recv(1 << 16)
        if not chunk:
            sys.exit("the server closed early")
        got += len(chunk)
open(os.path.join(steps, "opened"), "w").close()
wait("finish")
# 100 at a time, 50 ms apart: the destroy notifications of each side's
# closes (every process that joined them hears the host's) queue between
# two drains, 0.1 s apart, in a bounded buffer that other tests' closes
# fill too
acked = received = 0
for i, (s, _) in enumerate(conns):
    s.shutdown(socket.SHUT_WR)
    while s.recv(1 << 16):
        pass
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    acked += int.from_bytes(info[120:128], sys.byteorder)
    received += int.from_bytes(info[128:136], sys.byteorder)
    if i % 100 == 99:
        time.sleep(0.05)
for i, (s, _) in enumerate(conns):
    s.close()
    if i % 100 == 99:
        time.sleep(0.05)
with open(report, "w") as f:
    f.write("%d %d" % (acked, received))
wait("end")
"""


class ManyServer:
    """Loopback TCP server for many connections in one thread: per
    connection, the header and what it announces read, what it asks for
    sent back, then its close awaited and returned."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4096)
        self.port = self.sock.getsockname()[1]
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.sock, selectors.EVENT_READ, None)
        self.closed = 0
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            for key, _ in self.sel.select(0.1):
                if key.data is None:
                    conn, _ = self.sock.accept()
                    self.sel.register(conn, selectors.EVENT_READ, {"buf": b"", "left": None})
                    continue
                conn, st = key.fileobj, key.data
                chunk = conn.recv(1 << 16)
                if not chunk:
                    self.sel.unregister(conn)
                    conn.close()
                    self.closed += 1
                    continue
                st["buf"] += chunk
                if st["left"] is None and len(st["buf"]) >= 16:
                    st["left"] = int.from_bytes(st["buf"][:8], "big") + 16
                    st["want"] = int.from_bytes(st["buf"][8:16], "big")
                if st["left"] is not None and len(st["buf"]) >= st["left"] and st["want"]:
                    conn.setblocking(True)
                    conn.sendall(b"y" * st["want"])
                    conn.setblocking(False)
                    st["want"] = 0

    def close(self):
        self.stop = True
        self.thread.join()
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()
        self.sel.close()



def wait_batch_after(execd, when_ns, what):
    execd.wait_for(lambda e: any(ts > when_ns for ts, _ in e.batches()), h.BATCH_TIMEOUT, what)


class ManyConnections(unittest.TestCase):
    def test_many_connections(self):
        """One process of 1,100 connections, more than one visit of the BPF
        pass could list: every byte counted, to the kernel's own figures
        (TCP_INFO of each, read by the child once each was finished)."""
        server = ManyServer()
        steps = tempfile.mkdtemp(prefix="proctree-net-")
        report = os.path.join(steps, "report")
        try:
            args = ["--interval", "1s", "--", sys.executable, "-c", MANY_CHILD, "127.0.0.1", str(server.port), steps,
                    report, str(MANY)]
            with h.Execd(args) as execd:
                execd.wait_batches(1)  # walked once: what the tree opens from now counts whole
                open(os.path.join(steps, "open"), "w").close()
                execd.wait_for(lambda e: os.path.exists(os.path.join(steps, "opened")), h.BATCH_TIMEOUT,
                               "the connections open")
                # two ends with them all open: the first learns their cookies, the second
                # (with the BPF source) is the pass's own
                execd.wait_for(lambda e: sum(1 for p in ah.target_points(e, "python3")
                                             if p.fields.get("proc_net_tcp_connections", 0) == MANY) >= 2,
                               h.BATCH_TIMEOUT, f"two lines with the {MANY} connections")
                open(os.path.join(steps, "finish"), "w").close()
                execd.wait_for(lambda e: os.path.exists(report), h.BATCH_TIMEOUT, "the child's report")
                wait_batch_after(execd, time.time_ns(), "a batch after the connections' close")
                open(os.path.join(steps, "end"), "w").close()
                status = execd.wait_exit(h.BATCH_TIMEOUT)
            self.assertEqual(status, 0, execd.describe())
            line_rules.check_batches(execd.batches())
            with open(report) as f:
                acked, received = (int(v) for v in f.read().split())
            self.assertEqual(received, sum(1000 + i for i in range(MANY)) + MANY)  # and each one's FIN
            points = ah.target_points(execd, "python3")
            self.assertEqual(ah.field_sum(points, "proc_net_tcp_sent_bytes"), acked, execd.describe())
            self.assertEqual(ah.field_sum(points, "proc_net_tcp_received_bytes"), received, execd.describe())
            self.assertEqual(points[-1].fields["proc_net_tcp_connections"], 0, execd.describe())
        finally:
            server.close()
            for step in ("open", "opened", "finish", "end", "report"):
                if os.path.exists(os.path.join(steps, step)):
                    os.unlink(os.path.join(steps, step))
            os.rmdir(steps)



if __name__ == "__main__":
    unittest.main(verbosity=2)
