"""A tree's TCP bytes through sock_diag: proc_net_tcp_sent_bytes,
proc_net_tcp_received_bytes and proc_net_tcp_connections.

Why: the bytes are read per socket (tcp_info's bytes_acked and
bytes_received) and credited to the tree by the inodes its members'
descriptors name, so two things can go wrong: a socket counted twice or
from a wrong base, and a connection that closes inside an interval lost
(a dump at the interval's end no longer sees it; only its destroy
notification, matched by the cookie a poll's dump learnt, carries its
last bytes). The server is this test, outside the tree: a thread on
loopback that reads what each connection sends and sends back a fixed
amount. The tree (a Python child launched by proctree-execd) sends
5,000,000 bytes on one connection kept open across batches and 3,000,000
on a second that opens and closes between two batches, receiving
2,000,000 on each: the sums over the lines must be 8,000,000 sent and
4,000,000 received within 2 % (the kernel counts the SYN and FIN in
bytes_acked, and the 16-byte header each connection sends). Root runs
it, so the destroy notifications are joined. Both IPv4 and, where the
host has it, IPv6; with --by process the group's line has them too.
--no-net leaves the three metrics out, and so does a tree in a network
namespace of its own (sock_diag would say 0 for it). As nobody with no capability the
three are there all the same (any user may dump; Linux 6.18 lets any
user join the destroy notifications, a kernel that refuses has one I!
line say what that loses). A tree of 100,000 TCP sockets passes the
bounds (65,536 sockets a target, as many links an interval's end reads):
one W! line says so, once, and nothing is counted twice.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import accounting_helpers as ah
import harness as h
import line_rules

LONG_SENT, SHORT_SENT, EACH_RECEIVED = 5_000_000, 3_000_000, 2_000_000
SENT, RECEIVED = LONG_SENT + SHORT_SENT, 2 * EACH_RECEIVED
SLACK = 0.02
NET_FIELDS = ("proc_net_tcp_sent_bytes", "proc_net_tcp_received_bytes", "proc_net_tcp_connections")

# The tree: waits for each step's file, then does it. Its connections
# send a header (the bytes to send, the bytes wanted back) and the bytes;
# the short one closes half a second after its last byte came back (a
# poll, 0.1 s apart, walks its descriptors meanwhile).
CHILD = r"""
import os, socket, sys, time
family, host, port, steps = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
def wait(step):
    while not os.path.exists(os.path.join(steps, step)):
        time.sleep(0.02)
def connect(send, want):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.connect((host, port))
    s.sendall(send.to_bytes(8, "big") + want.to_bytes(8, "big") + b"x" * send)
    got = 0
    while got < want:
        chunk = s.recv(1 << 16)
        if not chunk:
            sys.exit("the server closed early")
        got += len(chunk)
    return s
wait("long")
kept = connect(%d, %d)
wait("short")
short = connect(%d, %d)
time.sleep(0.5)
short.close()
wait("end")
kept.close()
""" % (LONG_SENT, EACH_RECEIVED, SHORT_SENT, EACH_RECEIVED)


# A tree of 100,000 TCP sockets: 50,000 loopback connections, each
# process's to its own four listeners, both ends its own, as many a process
# as its descriptors allow (this host's hard RLIMIT_NOFILE is 20,000, and
# without CAP_SYS_RESOURCE nothing raises it). Then the first process moves
# 20,000,000 bytes one way on its first connection (its lowest descriptors,
# which a bounded walk reads first). Every close resets (SO_LINGER 0): no
# TIME_WAIT holds the host's ports after.
MANY_SOCKETS = 100_000
MANY_MOVED = 20_000_000
MANY_CHILD = r"""
import os, resource, socket, struct, subprocess, sys, threading, time
total, moved, steps, role = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
def wait(step):
    while not os.path.exists(os.path.join(steps, step)):
        time.sleep(0.02)
def done(step):
    open(os.path.join(steps, step), "w").close()
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
room = (hard if hard != resource.RLIM_INFINITY else 1 << 20) - 200
resource.setrlimit(resource.RLIMIT_NOFILE, (room + 200, hard))
processes = -(-total // min(room, total))
many = total // processes // 2
kids = []
if role == "first":
    kids = [subprocess.Popen([sys.executable, "-c", sys.argv[5], *sys.argv[1:4], str(k), sys.argv[5]])
            for k in range(1, processes)]
listeners = []
for _ in range(4):
    l = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    l.bind(("127.0.0.1", 0))
    l.listen(1024)
    listeners.append(l)
wait("open")
pairs = []
for k in range(many):
    l = listeners[k % 4]
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.connect(l.getsockname())
    a, _ = l.accept()
    pairs.append((c, a))
done(f"opened-{role}")
if role == "first":
    for k in range(1, processes):
        wait(f"opened-{k}")
    c, a = pairs[0]
    def drain():
        got = 0
        while got < moved:
            got += len(a.recv(1 << 20))
    t = threading.Thread(target=drain)
    t.start()
    c.sendall(b"x" * moved)
    t.join()
    done("moved")
wait("end")
for pair in pairs:
    for s in pair:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
for kid in kids:
    if kid.wait() != 0:
        sys.exit("a process of the tree failed")
"""

# A tree whose one process swaps a connection for another while its
# number of descriptors stays the same, so that a poll that walks a holder
# only when that number moved (its fd/'s size, or the count the BPF poll
# took) passes it over: the new connection must still count, whole, by
# the interval's end. Each connection is finished (our FIN, then the
# server's) before TCP_INFO is read, so the kernel's counts stand still
# from then on, and the child writes them down: the sums must be theirs to
# the byte. The swap: the second connection made, then put at the first's
# descriptor (dup2, which closes the first) and its own descriptor closed,
# one after the other: one descriptor more for the time of a connect on
# loopback, against polls 0.1 s apart.
SWAP_CHILD = r"""
import os, socket, sys, time
family, host, port, steps, report = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
def wait(step):
    while not os.path.exists(os.path.join(steps, step)):
        time.sleep(0.02)
def exchange(s, send, want):
    s.sendall(send.to_bytes(8, "big") + want.to_bytes(8, "big") + b"x" * send)
    got = 0
    while got < want:
        chunk = s.recv(1 << 16)
        if not chunk:
            sys.exit("the server closed early")
        got += len(chunk)
def finish(s):
    s.shutdown(socket.SHUT_WR)
    while s.recv(1 << 16):
        pass
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    # struct tcp_info: tcpi_bytes_acked at 120, tcpi_bytes_received at 128
    return int.from_bytes(info[120:128], sys.byteorder), int.from_bytes(info[128:136], sys.byteorder)
counts = []
wait("first")
first = socket.socket(family, socket.SOCK_STREAM)
first.connect((host, port))
exchange(first, %d, %d)
wait("swap")
counts.append(finish(first))
second = socket.socket(family, socket.SOCK_STREAM)
second.connect((host, port))
os.dup2(second.fileno(), first.fileno())
second.close()
exchange(first, %d, %d)
wait("close")
counts.append(finish(first))
first.close()
with open(report, "w") as f:
    f.write(" ".join("%%d %%d" %% c for c in counts))
wait("end")
""" % (LONG_SENT, EACH_RECEIVED, SHORT_SENT, EACH_RECEIVED)


class Server:
    """Loopback TCP server: per connection, reads the header and what it
    announces, sends back what it asks for, then waits for its close."""

    def __init__(self, family, host):
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.bind((host, 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.cond = threading.Condition()
        self.served, self.closed = 0, 0
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        with conn:
            header = b""
            while len(header) < 16:
                header += conn.recv(16 - len(header))
            send, want = int.from_bytes(header[:8], "big"), int.from_bytes(header[8:], "big")
            left = send
            while left > 0:
                chunk = conn.recv(min(1 << 16, left))
                if not chunk:
                    return
                left -= len(chunk)
            conn.sendall(b"y" * want)
            with self.cond:
                self.served += 1
                self.cond.notify_all()
            while conn.recv(1 << 16):
                pass
            with self.cond:
                self.closed += 1
                self.cond.notify_all()

    def wait(self, what, count):
        deadline = time.monotonic() + h.BATCH_TIMEOUT
        with self.cond:
            while getattr(self, what) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the server: {what} {getattr(self, what)} < {count}")
                self.cond.wait(left)

    def close(self):
        self.sock.close()


def has_ipv6_loopback():
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def wait_batch_after(execd, when_ns, what):
    execd.wait_for(lambda e: any(ts > when_ns for ts, _ in e.batches()), h.BATCH_TIMEOUT, what)


class NetTcpBytes(unittest.TestCase):
    def run_tree(self, family, host, by=()):
        server = Server(family, host)
        steps = tempfile.mkdtemp(prefix="proctree-net-")
        try:
            args = ["--interval", "1s", *by, "--", sys.executable, "-c", CHILD, str(int(family)), host,
                    str(server.port), steps]
            with h.Execd(args) as execd:
                execd.wait_batches(1)  # walked once: what the tree opens from now counts whole
                open(os.path.join(steps, "long"), "w").close()
                server.wait("served", 1)
                # a batch that saw the kept connection open
                execd.wait_for(lambda e: any(p.fields.get("proc_net_tcp_connections", 0) >= 1
                                             for p in ah.target_points(e, "python3")), h.BATCH_TIMEOUT,
                               "a line with the kept connection")
                open(os.path.join(steps, "short"), "w").close()
                server.wait("closed", 1)  # the short one, closed by the tree
                wait_batch_after(execd, time.time_ns(), "a batch after the short connection's close")
                open(os.path.join(steps, "end"), "w").close()
                status = execd.wait_exit(h.BATCH_TIMEOUT)
            self.assertEqual(status, 0, execd.describe())
            line_rules.check_batches(execd.batches())
            points = ah.target_points(execd, "python3")
            self.assertEqual(ah.negative_deltas(points), [])
            sent = ah.field_sum(points, "proc_net_tcp_sent_bytes")
            received = ah.field_sum(points, "proc_net_tcp_received_bytes")
            for total, want, what in ((sent, SENT, "sent"), (received, RECEIVED, "received")):
                self.assertGreaterEqual(total, want * (1 - SLACK), f"{what}: {total}\n{execd.describe()}")
                self.assertLessEqual(total, want * (1 + SLACK), f"{what}: {total}\n{execd.describe()}")
            self.assertGreaterEqual(max(p.fields["proc_net_tcp_connections"] for p in points), 1, execd.describe())
            self.assertEqual(points[-1].fields["proc_net_tcp_connections"], 0, execd.describe())
            if by:
                # the tree is one process: its group's line has all of it
                sums = ah.breakdown_sums(execd, "python3", "process", "proc_net_tcp_sent_bytes")
                self.assertEqual(list(sums.values()), [sent], f"{sums}\n{execd.describe()}")
                sums = ah.breakdown_sums(execd, "python3", "process", "proc_net_tcp_received_bytes")
                self.assertEqual(list(sums.values()), [received], f"{sums}\n{execd.describe()}")
        finally:
            server.close()
            for step in ("long", "short", "end"):
                if os.path.exists(os.path.join(steps, step)):
                    os.unlink(os.path.join(steps, step))
            os.rmdir(steps)

    def test_ipv4(self):
        """With --by process: the one group's line carries the same bytes."""
        self.run_tree(socket.AF_INET, "127.0.0.1", by=("--by", "process"))

    def test_ipv6(self):
        if not has_ipv6_loopback():
            self.skipTest("no IPv6 loopback on this host")
        self.run_tree(socket.AF_INET6, "::1")

    def test_swapped_connection(self):
        """A holder swaps one connection for another between two polls, its
        number of descriptors the same: both are counted, to the kernel's
        own figures (TCP_INFO, read by the child once each was finished)."""
        server = Server(socket.AF_INET, "127.0.0.1")
        steps = tempfile.mkdtemp(prefix="proctree-net-")
        report = os.path.join(steps, "report")
        try:
            args = ["--interval", "1s", "--", sys.executable, "-c", SWAP_CHILD, str(int(socket.AF_INET)),
                    "127.0.0.1", str(server.port), steps, report]
            with h.Execd(args) as execd:
                execd.wait_batches(1)  # walked once: what the tree opens from now counts whole
                open(os.path.join(steps, "first"), "w").close()
                server.wait("served", 1)
                # a holder now: an end's walk found its connection
                execd.wait_for(lambda e: any(p.fields.get("proc_net_tcp_connections", 0) >= 1
                                             for p in ah.target_points(e, "python3")), h.BATCH_TIMEOUT,
                               "a line with the first connection")
                open(os.path.join(steps, "swap"), "w").close()
                server.wait("served", 2)
                wait_batch_after(execd, time.time_ns(), "a batch with the second connection open")
                open(os.path.join(steps, "close"), "w").close()
                server.wait("closed", 2)
                wait_batch_after(execd, time.time_ns(), "a batch after the second connection's close")
                open(os.path.join(steps, "end"), "w").close()
                status = execd.wait_exit(h.BATCH_TIMEOUT)
            self.assertEqual(status, 0, execd.describe())
            line_rules.check_batches(execd.batches())
            with open(report) as f:
                a1, r1, a2, r2 = (int(v) for v in f.read().split())
            self.assertGreater(a1, LONG_SENT)
            self.assertGreater(a2, SHORT_SENT)
            points = ah.target_points(execd, "python3")
            self.assertEqual(ah.field_sum(points, "proc_net_tcp_sent_bytes"), a1 + a2, execd.describe())
            self.assertEqual(ah.field_sum(points, "proc_net_tcp_received_bytes"), r1 + r2, execd.describe())
            self.assertEqual(points[-1].fields["proc_net_tcp_connections"], 0, execd.describe())
        finally:
            server.close()
            for step in ("first", "swap", "close", "end", "report"):
                if os.path.exists(os.path.join(steps, step)):
                    os.unlink(os.path.join(steps, step))
            os.rmdir(steps)

    def test_listener_is_no_connection(self):
        """A listening socket is no connection, with either source, even once
        a dump of the listeners (ss -tl) gave it a cookie: the BPF pass, which
        lists it, is then the end's dump, and takes no more than the
        kernel's dump would (which tells no listener)."""
        ss = shutil.which("ss")
        if not ss:
            self.skipTest("no ss here to give the listener a cookie")
        peer = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        peer.bind(("127.0.0.1", 0))
        peer.listen(4)  # the tree's connection waits in its backlog
        steps = tempfile.mkdtemp(prefix="proctree-net-")
        child = ("import os, socket, sys, time\n"
                 "l = socket.socket(); l.bind(('127.0.0.1', 0)); l.listen(4)\n"
                 "c = socket.create_connection(('127.0.0.1', int(sys.argv[1])))\n"
                 "while not os.path.exists(sys.argv[2]): time.sleep(0.02)\n")
        end = os.path.join(steps, "end")
        try:
            with h.Execd(["--interval", "0.5s", "--", sys.executable, "-c", child, str(peer.getsockname()[1]),
                          end]) as execd:
                execd.wait_for(lambda e: any(p.fields.get("proc_net_tcp_connections", 0) >= 1
                                             for p in ah.target_points(e, "python3")), h.BATCH_TIMEOUT,
                               "a line with the connection")
                subprocess.run([ss, "-tlnH"], check=True, capture_output=True)
                after = time.time_ns()
                execd.wait_for(lambda e: sum(1 for ts, _ in e.batches() if ts > after) >= 3, h.BATCH_TIMEOUT,
                               "three batches after the listeners' dump")
                open(end, "w").close()
                status = execd.wait_exit(h.BATCH_TIMEOUT)
            self.assertEqual(status, 0, execd.describe())
            points = [p for p in ah.target_points(execd, "python3") if p.fields["proc_processes"] > 0]
            said = [p.fields["proc_net_tcp_connections"] for p in points[1:-1]]
            self.assertTrue(said, execd.describe())
            self.assertEqual(set(said), {1}, execd.describe())
        finally:
            peer.close()
            if os.path.exists(end):
                os.unlink(end)
            os.rmdir(steps)

    def test_no_net_leaves_them_out(self):
        server = Server(socket.AF_INET, "127.0.0.1")
        steps = tempfile.mkdtemp(prefix="proctree-net-")
        try:
            for step in ("long", "short", "end"):
                open(os.path.join(steps, step), "w").close()
            args = ["--interval", "0.5s", "--no-net", "--", sys.executable, "-c", CHILD, str(int(socket.AF_INET)),
                    "127.0.0.1", str(server.port), steps]
            with h.Execd(args) as execd:
                status = execd.wait_exit(h.BATCH_TIMEOUT)
            self.assertEqual(status, 0, execd.describe())
            points = ah.target_points(execd, "python3")
            self.assertGreaterEqual(len(points), 1, execd.describe())
            for p in points:
                for field in NET_FIELDS:
                    self.assertNotIn(field, p.fields, p.raw)
        finally:
            server.close()
            for step in ("long", "short", "end"):
                os.unlink(os.path.join(steps, step))
            os.rmdir(steps)

    def test_other_network_namespace(self):
        """A tree in a network namespace of its own: sock_diag answers for
        proctree's, so its sums would be 0 whatever it moves; they are left
        out while a member is there, and one I! line says why."""
        probe = subprocess.run(["unshare", "--net", "true"], capture_output=True)
        if probe.returncode != 0:
            self.skipTest(f"unshare --net: {probe.stderr.decode(errors='replace').strip()}")
        with h.Execd(["--interval", "0.5s", "--", "unshare", "--net", "sleep", "2"]) as execd:
            status = execd.wait_exit(h.BATCH_TIMEOUT)
        self.assertEqual(status, 0, execd.describe())
        points = [p for p in ah.target_points(execd, "unshare") if p.fields["proc_processes"] > 0]
        self.assertTrue(points, execd.describe())
        for p in points:
            for field in NET_FIELDS:
                self.assertNotIn(field, p.fields, p.raw)
        said = [l for l in execd.stderr_lines() if "another network namespace" in l]
        self.assertEqual(len(said), 1, execd.describe())
        self.assertTrue(said[0].startswith("I! "), said[0])

    def test_a_tree_of_100000_sockets(self):
        """A tree holding 100,000 TCP sockets (in as few processes as the
        host's descriptor limit allows), past the 65,536 a target follows
        and the links an interval's end reads: one W! line says the bound,
        once; what is counted is never more than what moved (nothing
        twice), and the bytes of the first connection, which the walk
        reaches, are all there (its SYN and FIN count a byte each per
        side); no line is impossible."""
        steps = tempfile.mkdtemp(prefix="proctree-net-many-")
        try:
            args = ["--interval", "1s", "--", sys.executable, "-c", MANY_CHILD, str(MANY_SOCKETS), str(MANY_MOVED),
                    steps, "first", MANY_CHILD]
            with h.Execd(args) as execd:
                execd.wait_batches(1)  # walked once: what the tree opens from now counts whole
                open(os.path.join(steps, "open"), "w").close()
                for step in ("opened-first", "moved"):
                    execd.wait_for(lambda e: os.path.exists(os.path.join(steps, step)), h.BATCH_TIMEOUT * 3,
                                   f"the tree: {step}")
                wait_batch_after(execd, time.time_ns(), "a batch after the bytes moved")
                wait_batch_after(execd, time.time_ns(), "a second one")
                open(os.path.join(steps, "end"), "w").close()
                status = execd.wait_exit(h.BATCH_TIMEOUT * 3)
            self.assertEqual(status, 0, execd.describe())
            line_rules.check_batches(execd.batches())
            points = ah.target_points(execd, "python3")
            self.assertEqual(ah.negative_deltas(points), [])
            said = [l for l in execd.stderr_lines() if l.startswith(("W! ", "E! ")) and "network:" in l]
            bound = [l for l in said if "said once" in l]
            self.assertEqual(len(bound), 1, execd.describe())
            self.assertTrue(bound[0].startswith("W! ") and "65,536" in bound[0], bound[0])
            # 100,000 sockets closed at once may overflow the destroy
            # notifications' buffer: said, and only that
            others = [l for l in said if l not in bound]
            self.assertLessEqual(len(others), 1, execd.describe())
            for line in others:
                self.assertIn("destroy notifications were lost", line)
            connections = max(p.fields["proc_net_tcp_connections"] for p in points)
            self.assertLessEqual(connections, 65_536, execd.describe())
            self.assertGreaterEqual(connections, 2, "the first connection's two ends at least")
            for field in ("proc_net_tcp_sent_bytes", "proc_net_tcp_received_bytes"):
                total = ah.field_sum(points, field)
                # each socket counted at most once: the moved bytes and a
                # SYN and FIN for each end of each connection followed
                self.assertLessEqual(total, MANY_MOVED + 4 * connections, f"{field}: {total}\n{execd.describe()}")
                self.assertGreaterEqual(total, MANY_MOVED, f"{field}: {total}\n{execd.describe()}")
        finally:
            for name in os.listdir(steps):
                os.unlink(os.path.join(steps, name))
            os.rmdir(steps)

    def test_without_capabilities(self):
        """As nobody, no capability: the dumps still give the three metrics
        (any user may dump); the destroy groups are joined (Linux 6.18), or
        one I! line says this kernel refused them and what that loses."""
        wrapper, program = ah.execd_as_nobody(self, "proctree-net-")
        sleeper = subprocess.Popen(["sleep", "60"], user=ah.NOBODY, group=ah.NOBODY)
        try:
            with h.Execd(["--interval", "0.5s", "--pid", sleeper.pid, "--name", "idle"], wrapper=wrapper,
                         program=program) as execd:
                execd.send()
                execd.wait_batches(2)
            said = [l for l in execd.stderr_lines() if "TCP destroy notifications" in l]
            self.assertLessEqual(len(said), 1, execd.describe())
            for line in said:
                self.assertTrue(line.startswith("I! ") and "CAP_NET_ADMIN" in line and "not counted" in line, line)
            points = ah.target_points(execd, "idle")
            self.assertTrue(points, execd.describe())
            for p in points:
                for field in NET_FIELDS:
                    self.assertEqual(p.fields.get(field), 0, p.raw)
        finally:
            h.stop_process(sleeper)


if __name__ == "__main__":
    unittest.main(verbosity=2)
