"""A thread id reused within one process: the new thread is counted.

Why: a member's thread list keeps each thread's files open (threads.h), and
a kept descriptor reads ESRCH once its thread is gone, even when the tid
is handed to a new thread of the same process (a pid space that wraps, a
thread pool that churns). The list was walked again after that ESRCH, but
the walk matched threads by tid alone: the new thread inherited the dead
one's descriptors, every read of it said ESRCH, and its context switches
(and, with --by thread, its CPU) were never counted, while task/ was
walked again at every interval.

Here the tid is reused for certain: proctree-execd and a Python process
run in a pid namespace of their own (`unshare --pid --fork --mount-proc`),
where nothing else takes pids, and the process writes the tid less one to
/proc/sys/kernel/ns_last_pid (the namespace's, as checkpoint/restore does)
before starting its second thread. Thread A lives for three intervals (its
status read through kept descriptors), ends; thread B gets A's tid and
sleeps 1 ms 300 times: about 300 voluntary switches (the kernel counts
one at every block, and a 1 ms sleep blocks), B's own status tells.
The tree's voluntary switches over every line, up to three intervals after
B wrote its own count, are at least B's count less A's (the tree joined
with A's past, and A's count left the sum when it ended); without B they
are the main thread's and A's: a few dozen.
"""

import os
import shutil
import sys
import tempfile
import unittest

import harness as h

UNSHARE = [shutil.which("unshare") or "/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
INTERVAL = 0.2
SLEEPS = 300

# Thread A waits for the test's "a_seen", ends; B takes its tid, sleeps,
# writes its count, waits for "done". Every wait polls a file, with a
# deadline: the process never outlives a failed test.
HELPER = r'''
import os, sys, threading, time
out = sys.argv[1]

def put(name, value):
    with open(os.path.join(out, name + ".tmp"), "w") as f:
        f.write(str(value))
    os.rename(os.path.join(out, name + ".tmp"), os.path.join(out, name))

def wait_file(name):
    deadline = time.monotonic() + 60
    while not os.path.exists(os.path.join(out, name)):
        if time.monotonic() > deadline:
            os._exit(3)
        time.sleep(0.05)

def voluntary():
    with open("/proc/thread-self/status") as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])

def a_body():
    put("a_tid", threading.get_native_id())
    wait_file("a_seen")
    put("a_count", voluntary())

def b_body(want):
    if threading.get_native_id() != want:
        return  # another took it meanwhile: the caller tries again
    put("b_tid", want)
    for _ in range(SLEEPS):
        time.sleep(0.001)
    put("b_count", voluntary())
    wait_file("done")

a = threading.Thread(target=a_body)
a.start()
a.join()
tid = int(open(os.path.join(out, "a_tid")).read())
deadline = time.monotonic() + 10
while not os.path.exists(os.path.join(out, "b_tid")):
    if time.monotonic() > deadline:
        put("b_tid", -1)
        os._exit(4)
    time.sleep(0.01)  # A released after the join
    if os.path.exists(f"/proc/self/task/{tid}"):
        continue
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write(str(tid - 1))
    b = threading.Thread(target=b_body, args=(tid,))
    b.start()
    b.join()
'''.replace("SLEEPS", str(SLEEPS))


class ThreadReuse(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-thread-reuse-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.helper = os.path.join(self.tmp, "helper.py")
        with open(self.helper, "w") as f:
            f.write(HELPER)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def number(self, name):
        with open(self.path(name)) as f:
            return int(f.read())

    def b_failed(self):
        return os.path.exists(self.path("b_tid")) and self.number("b_tid") == -1

    def lines(self, execd):
        return [p for _, points in execd.batches() for p in points if p.tags.get("target") == "t"]

    def test_a_reused_tid_is_a_new_thread(self):
        script = (f'{sys.executable} {self.helper} {self.tmp} & '
                  f'exec "$0" --interval {INTERVAL}s --no-global --pid $! --name t')
        with h.Execd([], wrapper=UNSHARE + ["sh", "-c", script]) as execd:
            h.wait_until(lambda: os.path.exists(self.path("a_tid")), h.START_TIMEOUT, "thread A")
            seen = len(self.lines(execd))
            execd.wait_for(lambda e: len(self.lines(e)) >= seen + 3, h.BATCH_TIMEOUT,
                           "three lines with thread A")
            open(self.path("a_seen"), "w").close()
            h.wait_until(lambda: os.path.exists(self.path("b_count")) or self.b_failed(), h.BATCH_TIMEOUT,
                         "thread B's sleeps")
            self.assertFalse(self.b_failed(), "no thread got A's tid in 10 s: the test tests nothing\n"
                             + execd.describe())
            seen = len(self.lines(execd))
            execd.wait_for(lambda e: len(self.lines(e)) >= seen + 3, h.BATCH_TIMEOUT,
                           "three lines after thread B's sleeps")
            lines = self.lines(execd)
            open(self.path("done"), "w").close()
        msg = execd.describe()
        a_tid, b_tid = self.number("a_tid"), self.number("b_tid")
        self.assertEqual(b_tid, a_tid, "thread B did not get A's tid: the test tests nothing\n" + msg)
        a_count, b_count = self.number("a_count"), self.number("b_count")
        # a sleep preempted before it blocked counts no voluntary switch:
        # rare, and the bound below is the count B read, whatever it is
        self.assertGreaterEqual(b_count, SLEEPS // 2, "thread B's sleeps did not block\n" + msg)
        counted = sum(p.fields["proc_ctx_switches_voluntary"] for p in lines)
        self.assertGreaterEqual(counted, b_count - a_count,
                                f"thread B (tid {b_tid}) did {b_count} voluntary switches, A {a_count}; "
                                f"the tree's lines counted {counted}\n{msg}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
