"""A tree in a network namespace of its own: netns_received_bytes,
netns_sent_bytes, netns_received_packets and netns_sent_packets, the
namespace's interface counters (docs/METRICS.md, Network).

Why: sock_diag answers only for proctree's own namespace, so such a
tree's proc_net_tcp_* are left out; where every live member is in one
other namespace, what its interfaces moved is the namespace's whole
traffic, read from a member's /proc/PID/net/dev. Three things can go
wrong: loopback traffic counted (it never leaves, and would count twice),
a wrong base (a figure that holds what came before the namespace was
found, or a negative one), and a tree that is not wholly in one namespace
given one anyway.

The tree is `unshare --net` running a Python child; the test (root) joins
its namespace to the host's with a veth pair whose inner end is the
namespace's eth0, IPv6 off on both ends (no neighbour discovery). The
child sends 3,000,000 bytes to a server of the test's on the host end
and gets 1,000,000 back, and moves 2,000,000 bytes through its own
loopback, which must not count. The expectation is the kernel's own:
the host end's counters (/sys/class/net/IF/statistics, a veth's transmit
being its peer's receive), read by the test before and after, whose
growth holds the frames' headers, the handshake and the ARP exchange the
kernel counted. The sums over the lines must be within 2 % of them (and
at least the bytes moved). A tree in the host's namespace has none of
them; a tree in two namespaces, or in the host's and another, none, with
one I! line that says why; --no-net none.
"""

import os
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

SENT, RECEIVED, LOOPBACK = 3_000_000, 1_000_000, 2_000_000
SLACK = 0.02
NETNS_FIELDS = ("netns_received_bytes", "netns_sent_bytes", "netns_received_packets", "netns_sent_packets")
TCP_FIELDS = ("proc_net_tcp_sent_bytes", "proc_net_tcp_received_bytes", "proc_net_tcp_connections")

# The tree: says its pid, waits for the server's address, moves LOOPBACK
# bytes through lo (a listener of its own), SENT bytes to the server and
# RECEIVED back, says so, waits for the end.
CHILD = r"""
import os, socket, sys, threading, time
steps = sys.argv[1]
def say(step, text=""):
    with open(os.path.join(steps, step + ".tmp"), "w") as f:
        f.write(text + "\n")
    os.rename(os.path.join(steps, step + ".tmp"), os.path.join(steps, step))
def wait(step):
    path = os.path.join(steps, step)
    while not os.path.exists(path):
        time.sleep(0.02)
    with open(path) as f:
        return f.read().strip()
say("pid", str(os.getpid()))
host, port = wait("go").split()
port = int(port)
lo = socket.socket()
lo.bind(("127.0.0.1", 0))
lo.listen(1)
def drain():
    conn, _ = lo.accept()
    while conn.recv(1 << 16):
        pass
    conn.close()
reader = threading.Thread(target=drain)
reader.start()
with socket.create_connection(lo.getsockname()) as s:
    s.sendall(b"l" * %d)
reader.join()
s = socket.create_connection((host, port))
s.sendall((%d).to_bytes(8, "big") + (%d).to_bytes(8, "big") + b"x" * %d)
got = 0
while got < %d:
    chunk = s.recv(1 << 16)
    if not chunk:
        sys.exit("the server closed early")
    got += len(chunk)
s.shutdown(socket.SHUT_WR)
while s.recv(1 << 16):
    pass
s.close()
say("done")
wait("end")
""" % (LOOPBACK, SENT, RECEIVED, SENT, RECEIVED)


class Server:
    """One connection: reads the header and the bytes it announces, sends
    back what it asks for, and closes once the peer has (so nothing of the
    connection moves after the child says done)."""

    def __init__(self, host):
        self.sock = socket.socket()
        self.sock.bind((host, 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.error = None
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        try:
            conn, _ = self.sock.accept()
            with conn:
                header = b""
                while len(header) < 16:
                    header += conn.recv(16 - len(header))
                left, want = int.from_bytes(header[:8], "big"), int.from_bytes(header[8:], "big")
                while left > 0:
                    chunk = conn.recv(min(1 << 16, left))
                    if not chunk:
                        raise AssertionError("the child closed early")
                    left -= len(chunk)
                conn.sendall(b"y" * want)
                while conn.recv(1 << 16):
                    pass
        except Exception as e:  # told by close()
            self.error = e

    def close(self):
        self.sock.close()
        self.thread.join(h.BATCH_TIMEOUT)
        if self.error:
            raise self.error


class Veth:
    """A veth pair from the host to the namespace of process pid: the
    host's end HOST (an address of 198.18.0.0/15, RFC 2544's, per test
    process), the namespace's eth0; IPv6 off on both. Counters: the host
    end's, the namespace's reversed (its receive is the host end's
    transmit)."""

    def __init__(self, pid):
        me = os.getpid()
        self.name = f"ptns{me % 10_000_000}"
        b, c = (me // 64) % 256, (me % 64) * 4
        self.host, self.inner = f"198.18.{b}.{c + 1}", f"198.18.{b}.{c + 2}"
        run = lambda *argv: subprocess.run(argv, check=True, capture_output=True)
        ns = ["nsenter", "-t", str(pid), "-n"]
        run("ip", "link", "add", self.name, "type", "veth", "peer", "name", "eth0", "netns", str(pid))
        try:
            run("sysctl", "-qw", f"net.ipv6.conf.{self.name}.disable_ipv6=1")
            run(*ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.eth0.disable_ipv6=1")
            run("ip", "addr", "add", f"{self.host}/30", "dev", self.name)
            run(*ns, "ip", "addr", "add", f"{self.inner}/30", "dev", "eth0")
            run("ip", "link", "set", self.name, "up")
            run(*ns, "ip", "link", "set", "eth0", "up")
            run(*ns, "ip", "link", "set", "lo", "up")
        except BaseException:
            self.close()
            raise

    def counters(self):
        """The namespace's eth0's: received, sent bytes, received, sent packets."""
        def stat(name):
            with open(f"/sys/class/net/{self.name}/statistics/{name}") as f:
                return int(f.read())
        return (stat("tx_bytes"), stat("rx_bytes"), stat("tx_packets"), stat("rx_packets"))

    def close(self):
        subprocess.run(["ip", "link", "del", self.name], capture_output=True)


def can_make_namespaces(test):
    for argv in (["unshare", "--net", "true"], ["ip", "-V"], ["nsenter", "--version"]):
        try:
            probe = subprocess.run(argv, capture_output=True)
        except FileNotFoundError:
            test.skipTest(f"no {argv[0]}")
        if probe.returncode != 0:
            test.skipTest(f"{' '.join(argv)}: {probe.stderr.decode(errors='replace').strip()}")


def netns_sums(points):
    return tuple(sum(p.fields.get(f, 0) for p in points) for f in NETNS_FIELDS)


def with_netns(points):
    return [p for p in points if any(f in p.fields for f in NETNS_FIELDS)]


class Moved:
    """The tree of CHILD in a namespace of its own, joined by a veth: run
    by start(tree) (tree(args) starts what measures it, given the argv of
    the command), then moved(has_row, rows_after) drives the steps: the
    test reads the veth's counters once a reading was taken (has_row), the
    child moves its bytes, and the counters again once a row covers its
    last byte (rows_after(t): a row of a reading after time t)."""

    def __init__(self, test):
        self.test = test
        self.steps = tempfile.mkdtemp(prefix="proctree-netns-")
        self.veth = None

    def step(self, name, text=""):
        with open(os.path.join(self.steps, name + ".tmp"), "w") as f:
            f.write(text + "\n")
        os.rename(os.path.join(self.steps, name + ".tmp"), os.path.join(self.steps, name))

    def argv(self):
        return ["unshare", "--net", sys.executable, "-c", CHILD, self.steps]

    def join(self):
        """The veth, once the child said its pid (it is in its namespace)."""
        pid = int(ah.wait_file(os.path.join(self.steps, "pid"), h.BATCH_TIMEOUT, "the child's pid"))
        self.veth = Veth(pid)
        return pid

    def move(self, read_once, read_after):
        """The counters' growth over the child's moves: read once a
        reading was taken (read_once()), and after one taken once the last
        byte moved (read_after(t))."""
        read_once()
        before = self.veth.counters()
        server = Server(self.veth.host)
        self.step("go", f"{self.veth.host} {server.port}")
        ah.wait_file(os.path.join(self.steps, "done"), 4 * h.BATCH_TIMEOUT, "the child's moves")
        server.close()
        read_after(time.time_ns())
        after = self.veth.counters()
        self.step("end")
        return tuple(a - b for a, b in zip(after, before))

    def check(self, sums, kernel, where):
        """sums (received, sent bytes, received, sent packets) within 2 %
        of the kernel's growth, which is at least what was moved."""
        self.test.assertGreaterEqual(kernel[0], RECEIVED, f"the veth's own counters: {kernel}")
        self.test.assertGreaterEqual(kernel[1], SENT, f"the veth's own counters: {kernel}")
        for got, want, what in zip(sums, kernel, NETNS_FIELDS):
            self.test.assertGreaterEqual(got, want * (1 - SLACK), f"{what}: {got}, the kernel's {want}\n{where()}")
            self.test.assertLessEqual(got, want * (1 + SLACK), f"{what}: {got}, the kernel's {want}\n{where()}")
        self.test.assertGreaterEqual(sums[0], RECEIVED, where())
        self.test.assertGreaterEqual(sums[1], SENT, where())

    def close(self):
        if self.veth:
            self.veth.close()
        for name in os.listdir(self.steps):
            os.unlink(os.path.join(self.steps, name))
        os.rmdir(self.steps)


class NetNamespace(unittest.TestCase):
    def setUp(self):
        can_make_namespaces(self)

    def test_veth_bytes(self):
        """The tree's namespace's eth0: the kernel's counters of its peer,
        within 2 %; its loopback's 2,000,000 bytes not counted; no line
        carries proc_net_tcp_* (its sockets are not proctree's
        namespace's, but in the last line, of no process)."""
        moved = Moved(self)
        try:
            with h.Execd(["--interval", "1s", "--", *moved.argv()]) as execd:
                moved.join()

                def reading_taken():
                    execd.wait_for(lambda e: with_netns(ah.target_points(e, "unshare")), h.BATCH_TIMEOUT,
                                   "a line with netns_*")

                def read_after(when_ns):
                    execd.wait_for(lambda e: any(ts > when_ns and any(f in p.fields for p in points
                                                                    for f in NETNS_FIELDS)
                                                 for ts, points in e.batches()), h.BATCH_TIMEOUT,
                                   "a line with netns_* read after the last byte")

                kernel = moved.move(reading_taken, read_after)
                status = execd.wait_exit(h.BATCH_TIMEOUT)
            self.assertEqual(status, 0, execd.describe())
            line_rules.check_batches(execd.batches())
            points = ah.target_points(execd, "unshare")
            self.assertEqual(ah.negative_deltas(points), [])
            for p in points:
                for field in TCP_FIELDS if p.fields["proc_processes"] > 0 else ():
                    self.assertNotIn(field, p.fields, p.raw)
            sums = netns_sums(points)
            print(f"\nnetns_* summed over {len(with_netns(points))} lines: {dict(zip(NETNS_FIELDS, sums))}; "
                  f"the veth's own counters: {dict(zip(NETNS_FIELDS, kernel))}")
            moved.check(sums, kernel, lambda: f"sums {sums}, kernel {kernel}\n{execd.describe()}")
            said = [l for l in execd.stderr_lines() if "netns_* are that namespace's" in l]
            self.assertEqual(len(said), 1, execd.describe())
            self.assertTrue(said[0].startswith("I! "), said[0])
        finally:
            moved.close()

    def test_host_namespace(self):
        """A tree in the host's (proctree's) namespace: none, and nothing said."""
        with h.Execd(["--interval", "0.5s", "--", "sleep", "1.6"]) as execd:
            status = execd.wait_exit(h.BATCH_TIMEOUT)
        self.assertEqual(status, 0, execd.describe())
        points = ah.target_points(execd, "sleep")
        self.assertGreaterEqual(len(points), 2, execd.describe())
        self.assertEqual(with_netns(points), [])
        self.assertFalse([l for l in execd.stderr_lines() if "netns_" in l], execd.describe())

    def several(self, outer):
        """outer (a command line) starts an inner `unshare --net` that
        writes a file once in its own namespace, then sleeps: from the
        first batch after that file, every line of the two processes has
        none, and one I! line says why, once."""
        with tempfile.TemporaryDirectory(prefix="proctree-netns-") as tmp:
            ready = os.path.join(tmp, "ready")
            inner = f"unshare --net sh -c 'touch {ready}; exec sleep 3'"
            with h.Execd(["--interval", "0.5s", "--", *outer, f"{inner} & wait"]) as execd:
                h.wait_until(lambda: os.path.exists(ready), h.BATCH_TIMEOUT, "the inner namespace")
                since = time.time_ns()
                status = execd.wait_exit(h.BATCH_TIMEOUT)
            self.assertEqual(status, 0, execd.describe())
            line_rules.check_batches(execd.batches())
            name = os.path.basename(outer[0])
            after = [p for ts, points in execd.batches() if ts > since
                     for p in points if p.tags.get("target") == name and p.fields.get("proc_processes") == 2]
            self.assertGreaterEqual(len(after), 2, execd.describe())
            self.assertEqual(with_netns(after), [], execd.describe())
            said = [l for l in execd.stderr_lines() if "more than one network namespace" in l]
            self.assertEqual(len(said), 1, execd.describe())
            self.assertTrue(said[0].startswith("I! "), said[0])
            return said[0]

    def test_two_foreign_namespaces(self):
        said = self.several(["unshare", "--net", "sh", "-c"])
        self.assertNotIn("proctree's", said)

    def test_host_and_foreign_namespace(self):
        said = self.several(["sh", "-c"])
        self.assertIn("proctree's", said)

    def test_no_net(self):
        with h.Execd(["--interval", "0.5s", "--no-net", "--", "unshare", "--net", "sleep", "1.6"]) as execd:
            status = execd.wait_exit(h.BATCH_TIMEOUT)
        self.assertEqual(status, 0, execd.describe())
        points = ah.target_points(execd, "unshare")
        self.assertGreaterEqual(len(points), 2, execd.describe())
        self.assertEqual(with_netns(points), [])
        self.assertFalse([l for l in execd.stderr_lines() if "netns_" in l], execd.describe())


if __name__ == "__main__":
    unittest.main(verbosity=2)
