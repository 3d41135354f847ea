"""A pid reused by a new process is a new member, never merged with the old one.

Why: pids wrap around (pid_max is often 32768 or 4194304, and busy hosts
fork millions of processes a day), so the pid of a process proctree follows
can be taken by another process between two polls. proctree identifies a
member by (pid, starttime); if it keyed on the pid alone, the new process's
counters would be read as the continuation of the old one's and the tree's
sums and process counts would be wrong. Reuse is forced deterministically in
a private pid namespace (unshare --pid --mount-proc), where the next pid can
be chosen through /proc/sys/kernel/ns_last_pid; proctree-execd runs inside
the namespace so that it reads the namespace's /proc.

Child A (pid N) moves A_BYTES and is seen alive, exits and is reaped; then
child B gets the same pid N and moves B_BYTES. The sums must hold A and B
exactly once each, both must be counted as started and as exited, and no
batch may show a negative amount.
"""

import os
import shutil
import tempfile
import unittest

import accounting_helpers as ah
import harness as h

A_BYTES = 20_000_000
B_BYTES = 3_000_000
READ_SLACK = 100_000   # sh reading its script and /proc/N/stat, the dynamic loader
WRITE_SLACK = 10_000   # the script writes two info lines and ns_last_pid

SCRIPT = r"""
d=$1; io=$2
$io {a} $d/a.fifo & a=$!
read sa < /proc/$a/stat
echo "$sa" > $d/a.info
wait $a || exit 1
# The next pid this namespace hands out is a's.
echo $((a - 1)) > /proc/sys/kernel/ns_last_pid
$io {b} $d/b.fifo & b=$!
read sb < /proc/$b/stat
echo "$sb" > $d/b.info
wait $b || exit 1
exit 0
"""


def pid_and_starttime(stat_line):
    """(pid, starttime) from a /proc/PID/stat line; starttime is field 22."""
    pid = int(stat_line.split(" ", 1)[0])
    after_comm = stat_line[stat_line.rindex(")") + 2:].split()
    return pid, int(after_comm[22 - 3])


def unshare_path():
    path = shutil.which("unshare")
    if not path:
        raise AssertionError("unshare (util-linux) is missing")
    return path


class PidReuse(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-pidreuse-")
        for name in ("a.fifo", "b.fifo"):
            os.mkfifo(os.path.join(self.tmp, name))
        self.script = os.path.join(self.tmp, "reuse.sh")
        with open(self.script, "w") as f:
            f.write(SCRIPT.format(a=A_BYTES, b=B_BYTES))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_reused_pid_is_a_new_member(self):
        # pid 1 of the namespace is a shell, so proctree-execd is an ordinary
        # process there; --kill-child takes the namespace down if the test dies.
        wrapper = [unshare_path(), "--fork", "--pid", "--mount-proc", "--kill-child", "--",
                   "sh", "-c", '"$@"; exit $?', "sh"]
        args = ["--interval", "0.5s", "--discovery-interval", "0.1s", "--",
                "sh", self.script, self.tmp, ah.iochild_path()]
        with h.Execd(args, wrapper=wrapper) as execd:
            pid_a, start_a = pid_and_starttime(
                ah.wait_file(self.path("a.info"), h.START_TIMEOUT, "a.info"))

            def written(e):
                return ah.field_sum(ah.target_points(e, "sh"), "proc_io_write_bytes")
            # A has moved its bytes and proctree has read it alive.
            execd.wait_for(lambda e: written(e) >= A_BYTES, h.START_TIMEOUT, "A's bytes")
            ah.write_fifo(self.path("a.fifo"))

            pid_b, start_b = pid_and_starttime(
                ah.wait_file(self.path("b.info"), h.START_TIMEOUT, "b.info"))
            self.assertEqual(pid_b, pid_a, "the pid was not reused; the test proves nothing")
            self.assertNotEqual(start_b, start_a, "same starttime: the identities cannot differ")
            execd.wait_for(lambda e: written(e) >= A_BYTES + B_BYTES, h.START_TIMEOUT, "B's bytes")
            ah.write_fifo(self.path("b.fifo"))
            status = execd.wait_exit(h.START_TIMEOUT)
        self.assertEqual(status, 0, execd.describe())

        points = ah.target_points(execd, "sh")
        self.assertEqual(ah.negative_deltas(points), [], "negative delta")
        read = ah.field_sum(points, "proc_io_read_bytes")
        write = ah.field_sum(points, "proc_io_write_bytes")
        msg = f"pid {pid_a}: read {read}, write {write}\n{execd.describe()}"
        self.assertGreaterEqual(write, A_BYTES + B_BYTES, msg)
        self.assertLessEqual(write, A_BYTES + B_BYTES + WRITE_SLACK, msg)
        self.assertGreaterEqual(read, A_BYTES + B_BYTES, msg)
        self.assertLessEqual(read, A_BYTES + B_BYTES + READ_SLACK, msg)
        # sh, A and B: each joined once and left once.
        self.assertEqual(ah.field_sum(points, "proc_processes_started"), 3, msg)
        self.assertEqual(ah.field_sum(points, "proc_processes_exited"), 3, msg)
        self.assertEqual(max(p.fields["proc_processes"] for p in points), 2, msg)


if __name__ == "__main__":
    unittest.main(verbosity=2)
