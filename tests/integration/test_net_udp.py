"""A tree's UDP bytes with the BPF source: proc_net_udp_sent_bytes and
proc_net_udp_received_bytes.

Why: UDP has no per-socket byte counters sock_diag could give, so the
bytes come from BPF programs on the kernel's socket layer, counted per
process: what can go wrong is a byte counted twice (a v4-mapped send
through IPv6's code and IPv4's), a byte of a process that is no member
counted, or one lost when its process exits inside an interval (its entry
must be taken by that interval's end) or sends before proctree found it.
The server is this test, outside the tree: a thread on loopback that
answers each datagram with one of a fixed size, so the tree sends in
lock step and nothing waits in a full receive buffer. The tree (a Python
child launched by proctree-execd, and a child it forks, renames and lets
exit mid-run) sends 5,000,000 bytes in 100 datagrams and receives
2,000,000 back; it writes down what its calls returned (a datagram lost
on loopback is sent again, and counted again: the kernel returned it), and
the sums over the lines must be exactly those, and within 2 % of the
planned bytes. IPv4 and, where the host has it, IPv6; with --by process
the groups' lines add up to the tree's exactly. With --source procfs the
two are left out, and one I! line says they need the BPF source; with
--no-net they are left out and nothing is said of them.
"""

import json
import os
import re
import socket
import sys
import tempfile
import threading
import time
import unittest

import accounting_helpers as ah
import harness as h
import line_rules

CHUNK, REPLY = 50_000, 20_000  # a datagram sent, and the one that answers it
PARENT_DATAGRAMS, CHILD_DATAGRAMS = 80, 20
SENT = (PARENT_DATAGRAMS + CHILD_DATAGRAMS) * CHUNK  # 5,000,000
RECEIVED = (PARENT_DATAGRAMS + CHILD_DATAGRAMS) * REPLY  # 2,000,000
SLACK = 0.02
UDP_FIELDS = ("proc_net_udp_sent_bytes", "proc_net_udp_received_bytes")

# The tree: waits for "go", forks a child (renamed udpchild) that waits
# for "child" (sent once a batch shows it a member), sends its share and
# exits, and is reaped at once: its last bytes are taken as it leaves,
# inside an interval. The parent then sends half its own, says "half"
# (with what its calls returned), waits for "more" (a batch in between: a
# live member's bytes are taken at an interval's end), sends the rest, and
# writes down what the calls returned in OUT: [sent, received] of the tree
# and of the child; then
# waits for "end". A datagram whose answer does not come within 2 s is
# sent again (and counted again: the kernel took it twice).
CHILD = r"""
import ctypes, json, os, socket, sys, time
family, host, port, steps, out = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
def wait(step):
    while not os.path.exists(os.path.join(steps, step)):
        time.sleep(0.02)
def exchange(n):
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.settimeout(2)
    sent = received = 0
    for _ in range(n):
        while True:
            sent += s.sendto(b"x" * %d, (host, port))
            try:
                received += len(s.recv(65536))
                break
            except socket.timeout:
                pass
    s.close()
    return sent, received
wait("go")
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    ctypes.CDLL(None).prctl(15, b"udpchild", 0, 0, 0)  # PR_SET_NAME
    wait("child")
    os.write(w, json.dumps(exchange(%d)).encode())
    os._exit(0)
os.close(w)
theirs = json.loads(os.read(r, 4096))
os.waitpid(pid, 0)
sent, received = exchange(%d)
with open(os.path.join(steps, "half.tmp"), "w") as f:
    json.dump([sent, received], f)
os.rename(os.path.join(steps, "half.tmp"), os.path.join(steps, "half"))
wait("more")
more = exchange(%d)
with open(out + ".tmp", "w") as f:
    json.dump([sent + more[0] + theirs[0], received + more[1] + theirs[1], theirs[0], theirs[1]], f)
os.rename(out + ".tmp", out)
wait("end")
""" % (CHUNK, CHILD_DATAGRAMS, PARENT_DATAGRAMS // 2, PARENT_DATAGRAMS - PARENT_DATAGRAMS // 2)

STEPS = ("go", "child", "half", "half.tmp", "more", "end", "totals", "totals.tmp")


class Server:
    """Loopback UDP server: answers each datagram with REPLY bytes."""

    def __init__(self, family, host):
        self.sock = socket.socket(family, socket.SOCK_DGRAM)
        self.sock.bind((host, 0))
        self.port = self.sock.getsockname()[1]
        self.received = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                data, peer = self.sock.recvfrom(65536)
                self.received += len(data)
                self.sock.sendto(b"y" * REPLY, peer)
            except OSError:
                return

    def close(self):
        self.sock.close()


def has_ipv6_loopback():
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def bpf_or_skip(test, execd):
    """Skip where this build or host has no BPF source (--source bpf is then
    an error, exit 2) or no socket tracepoints (Linux before 6.3)."""
    said = " ".join(execd.stderr_lines())
    if "--source bpf: the BPF task iterator cannot serve" in said:
        test.skipTest(said)
    release = os.uname().release.split(".")
    if (int(release[0]), int(re.match(r"\d+", release[1]).group())) < (6, 3):
        test.skipTest("the socket tracepoints the UDP counters use came in Linux 6.3")


class NetUdpBytes(unittest.TestCase):
    def batch(self, execd):
        """One interval ended now (a newline on its stdin, as Telegraf's
        STDIN signal): its batch, once it came."""
        count = len(execd.batches())
        execd.send()
        execd.wait_batches(count + 1)
        return execd.batches()[-1]

    def run_tree(self, family, host, by=()):
        server = Server(family, host)
        steps = tempfile.mkdtemp(prefix="proctree-udp-")
        out = os.path.join(steps, "totals")
        try:
            # no --interval: an interval ends at each newline, when the test says
            args = ["--source", "bpf", *by, "--", sys.executable, "-c", CHILD, str(int(family)), host,
                    str(server.port), steps, out]
            with h.Execd(args) as execd:
                try:
                    execd.wait_started()
                except AssertionError:
                    bpf_or_skip(self, execd)
                    raise
                bpf_or_skip(self, execd)
                self.batch(execd)  # a member now: what it sends from now is the tree's
                open(os.path.join(steps, "go"), "w").close()

                def child_seen():
                    _, points = self.batch(execd)
                    if by:
                        return any(p.tags.get("process") == "udpchild" for p in points)
                    return any(p.tags.get("target") == "python3" and "process" not in p.tags and
                               p.fields.get("proc_processes", 0) >= 2 for p in points)
                # the child a member (by process: under its new name) before it sends
                h.wait_until(child_seen, h.BATCH_TIMEOUT, "a batch with the child")
                open(os.path.join(steps, "child"), "w").close()
                h.wait_until(lambda: os.path.exists(os.path.join(steps, "half")), h.BATCH_TIMEOUT, "half sent")
                with open(os.path.join(steps, "half")) as f:
                    half = json.load(f)
                # the child gone inside this interval, the parent's first half taken live
                first = h.target_line(self.batch(execd)[1], "python3")
                open(os.path.join(steps, "more"), "w").close()
                h.wait_until(lambda: os.path.exists(out), h.BATCH_TIMEOUT, "the tree's totals")
                with open(out) as f:
                    sent_calls, received_calls, child_sent, child_received = json.load(f)
                second = h.target_line(self.batch(execd)[1], "python3")
                open(os.path.join(steps, "end"), "w").close()
                execd.wait_for(lambda e: any("launched command" in l and "exited" in l for l in e.stderr_lines()),
                               h.BATCH_TIMEOUT, "the tree's end")
                execd.close_stdin()  # as Telegraf stops it
                status = execd.wait_exit(h.BATCH_TIMEOUT)
            self.assertEqual(status, 0, execd.describe())
            line_rules.check_batches(execd.batches())
            said = [l for l in execd.stderr_lines() if "proc_net_udp" in l]
            self.assertEqual(said, [], execd.describe())
            points = ah.target_points(execd, "python3")
            self.assertEqual(ah.negative_deltas(points), [])
            sent = ah.field_sum(points, "proc_net_udp_sent_bytes")
            received = ah.field_sum(points, "proc_net_udp_received_bytes")
            # what the kernel's calls returned, each once: exact
            self.assertEqual(sent, sent_calls, execd.describe())
            self.assertEqual(received, received_calls, execd.describe())
            self.assertGreaterEqual(server.received, SENT, "the server got every datagram")
            # each interval has what was done in it, and nothing of the others: the tree
            # sends only when told, between two batches
            self.assertEqual([first.fields[f] for f in UDP_FIELDS],
                             [child_sent + half[0], child_received + half[1]], first.raw)
            self.assertEqual([second.fields[f] for f in UDP_FIELDS],
                             [sent_calls - child_sent - half[0], received_calls - child_received - half[1]],
                             second.raw)
            for total, want, what in ((sent, SENT, "sent"), (received, RECEIVED, "received")):
                self.assertGreaterEqual(total, want * (1 - SLACK), f"{what}: {total}\n{execd.describe()}")
                self.assertLessEqual(total, want * (1 + SLACK), f"{what}: {total}\n{execd.describe()}")
            if by:
                # the child's group has the child's own bytes: it joined before it sent
                for field, want in (("proc_net_udp_sent_bytes", child_sent),
                                    ("proc_net_udp_received_bytes", child_received)):
                    sums = ah.breakdown_sums(execd, "python3", "process", field)
                    self.assertEqual(sums.get("udpchild"), want, f"{field}: {sums}\n{execd.describe()}")
                # each byte in one group: the groups add up to the tree, line by line
                for p in points:
                    group_lines = [g for g in ah.breakdown_lines(execd, "python3", "process")
                                   if g.timestamp == p.timestamp]
                    for field in UDP_FIELDS:
                        self.assertEqual(sum(g.fields.get(field, 0) for g in group_lines), p.fields[field],
                                         f"{field} at {p.timestamp}\n{execd.describe()}")
        finally:
            server.close()
            for name in STEPS:
                if os.path.exists(os.path.join(steps, name)):
                    os.unlink(os.path.join(steps, name))
            os.rmdir(steps)

    def test_ipv4(self):
        """With --by process: the child's group (udpchild) has its own bytes,
        and the groups add up to the tree."""
        self.run_tree(socket.AF_INET, "127.0.0.1", by=("--by", "process"))

    def test_ipv6(self):
        if not has_ipv6_loopback():
            self.skipTest("no IPv6 loopback on this host")
        self.run_tree(socket.AF_INET6, "::1")

    def quick_tree(self, extra):
        """A tree that sends and receives at once, run to its end under
        proctree-execd with extra options; its lines and what it said."""
        server = Server(socket.AF_INET, "127.0.0.1")
        steps = tempfile.mkdtemp(prefix="proctree-udp-")
        out = os.path.join(steps, "totals")
        try:
            for step in ("go", "child", "more", "end"):
                open(os.path.join(steps, step), "w").close()
            args = [*extra, "--interval", "0.5s", "--", sys.executable, "-c", CHILD, str(int(socket.AF_INET)),
                    "127.0.0.1", str(server.port), steps, out]
            with h.Execd(args) as execd:
                status = execd.wait_exit(h.BATCH_TIMEOUT)
            if status == 2:
                bpf_or_skip(self, execd)
            self.assertEqual(status, 0, execd.describe())
            line_rules.check_batches(execd.batches())
            points = ah.target_points(execd, "python3")
            self.assertGreaterEqual(len(points), 1, execd.describe())
            return execd, points
        finally:
            server.close()
            for name in STEPS:
                if os.path.exists(os.path.join(steps, name)):
                    os.unlink(os.path.join(steps, name))
            os.rmdir(steps)

    def test_procfs_leaves_them_out(self):
        """--source procfs: absent, one I! line says they need the BPF
        source; TCP's are there as ever."""
        execd, points = self.quick_tree(["--source", "procfs"])
        for p in points:
            for field in UDP_FIELDS:
                self.assertNotIn(field, p.fields, p.raw)
            self.assertIn("proc_net_tcp_sent_bytes", p.fields, p.raw)
        said = [l for l in execd.stderr_lines() if "proc_net_udp" in l]
        self.assertEqual(len(said), 1, execd.describe())
        self.assertTrue(said[0].startswith("I! ") and "need the BPF source" in said[0], said[0])

    def test_no_net_leaves_them_out(self):
        """--no-net with the BPF source: absent, and nothing said of them
        (nothing attached)."""
        execd, points = self.quick_tree(["--source", "bpf", "--no-net"])
        for p in points:
            for field in UDP_FIELDS + ("proc_net_tcp_sent_bytes",):
                self.assertNotIn(field, p.fields, p.raw)
        self.assertEqual([l for l in execd.stderr_lines() if "proc_net_udp" in l], [], execd.describe())


if __name__ == "__main__":
    unittest.main(verbosity=2)
