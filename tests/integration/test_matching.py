"""Matching selectors on a busy host: one walk of /proc, no kernel threads.

Why: --match, --exe and --user look at every process of the host, so what a
discovery costs is set by the host, not by the tree. Several such targets
must share one walk of /proc (each process's stat read once, not once per
target), and kernel threads, which hold no user memory and would add the
kernel's own work to "root's programs", are never taken by them; --pid
still takes whatever it names.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

import harness as h

TARGETS = 20


def kernel_threads():
    """Pids whose stat has PF_KTHREAD."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[6]) & 0x00200000:  # field 9, flags
            found.append(int(name))
    return found


class SharedWalk(unittest.TestCase):
    def test_many_matching_targets_read_each_process_once(self):
        targets = []
        for i in range(TARGETS):
            targets += ["--exe", f"no-such-program-{i}"]
        with tempfile.TemporaryDirectory(prefix="proctree-walk-") as tmp:
            trace = os.path.join(tmp, "trace")
            # one discovery: --once closes the first interval; discovery every 10 s
            run = subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat,openat2", "-o", trace, h.execd_path(),
                                  "--once", "--interval", "1s", "--discovery-interval", "10s", *targets],
                                 stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
            self.assertEqual(run.returncode, 0, run.stderr)
            opens = {}
            with open(trace) as f:
                for line in f:
                    m = re.search(r'openat2?\(\d+, "(\d+)/stat"', line)
                    if m:
                        opens[m.group(1)] = opens.get(m.group(1), 0) + 1
        self.assertGreater(len(opens), 10, "the walk was not traced")
        most = max(opens.values())
        self.assertLessEqual(most, 2, f"with {TARGETS} targets a process's stat was opened {most} times")


DISCOVERY = 0.2        # seconds between discoveries in the tests below
RECHECK = 30           # PT_RECHECK_DISCOVERIES: the documented bound without events


def matching(execd, name):
    """proc_processes of target name in the last batch (0 when absent)."""
    batches = execd.batches()
    if not batches:
        return 0
    lines = [p for p in batches[-1][1] if p.tags.get("target") == name]
    return lines[0].fields.get("proc_processes", 0) if lines else 0


class ExecIntoMatch(unittest.TestCase):
    """A process that exec's into a matching program keeps its pid: it must
    still join within the documented time."""

    def test_with_process_events_at_the_next_discovery(self):
        token = f"0.{os.getpid()}"  # sleep adds its arguments: a token it takes
        script = 'read line; exec sleep 300 "$0"'
        with h.Workload(["sh", "-c", f"echo ready $$; {script}", token]) as job, \
                h.Execd(["--match", f"^sleep 300 {re.escape(token)}$", "--name", "m", "--interval", "0.2s",
                         "--discovery-interval", f"{DISCOVERY}s"]) as execd:
            execd.wait_batches(3)
            self.assertEqual(matching(execd, "m"), 0, execd.describe())
            self.assertTrue([l for l in execd.stderr_lines() if "process events" in l], execd.describe())
            start = time.monotonic()
            job.send(b"go\n")
            execd.wait_for(lambda e: matching(e, "m") == 1, 10, "the exec'd process to join")
            elapsed = time.monotonic() - start
        self.assertLess(elapsed, 2 * DISCOVERY + 0.2 + 1.0, "found later than the next discovery")

    def test_without_process_events_within_the_rotation(self):
        # In a pid namespace of its own the kernel's events carry pids that
        # proctree cannot see: it walks /proc and re-checks known processes
        # in rotation. The job is launched in the namespace with it.
        token = f"0.{os.getpid()}"
        job = 'sleep 1; exec sleep 300 "$0"'
        wait = 1.0 + RECHECK * DISCOVERY
        with h.Execd(["--match", f"^sleep 300 {re.escape(token)}$", "--name", "m", "--interval", "0.2s",
                      "--discovery-interval", f"{DISCOVERY}s", "--", "sh", "-c", job, token],
                     wrapper=["unshare", "--pid", "--fork", "--mount-proc"]) as execd:
            start = time.monotonic()
            execd.wait_for(lambda e: matching(e, "m") == 1, wait + 5, "the exec'd process to join")
            elapsed = time.monotonic() - start
            self.assertTrue([l for l in execd.stderr_lines() if "no process events" in l], execd.describe())
        self.assertGreater(elapsed, 1.0)
        self.assertLess(elapsed, wait + 1.5, f"found after {elapsed:.1f}s, documented {wait:.1f}s")


class NotItself(unittest.TestCase):
    """proctree and what started it (timeout, a shell) hold the pattern in
    their command lines; their trees hold proctree itself. A pattern that
    names no other process must find nothing."""

    def test_match_skips_proctree_and_its_ancestors(self):
        pattern = f"zzz-no-such-{os.getpid()}"
        with h.Execd(["--match", pattern, "--name", "m", "--interval", "0.2s",
                      "--discovery-interval", f"{DISCOVERY}s"],
                     wrapper=["timeout", "30", "sh", "-c", '"$@"; :', "sh"]) as execd:
            execd.wait_batches(4)
            self.assertEqual(matching(execd, "m"), 0, execd.describe())

    def test_exe_skips_only_the_ancestors(self):
        # A shell under a name of its own starts proctree (and stays its
        # parent) and, beside it, another copy of itself with a child: that
        # one matches, the ancestor does not.
        with tempfile.TemporaryDirectory(prefix="proctree-anc-") as tmp:
            name = f"ptanc{os.getpid()}"[:15]
            shell = os.path.join(tmp, name)
            shutil.copy("/bin/sh", shell)
            script = '"$0" -c "sleep 30; :" & "$@"; kill $!'
            with h.Execd(["--exe", name, "--name", "m", "--interval", "0.2s",
                          "--discovery-interval", f"{DISCOVERY}s"],
                         wrapper=[shell, "-c", script, shell]) as execd:
                execd.wait_batches(4)
                execd.wait_for(lambda e: matching(e, "m") == 2, 5, "the other copy and its sleep")
                execd.wait_batches(len(execd.batches()) + 2)
                self.assertEqual(matching(execd, "m"), 2, execd.describe())


class KernelThreads(unittest.TestCase):
    def test_matching_selectors_skip_kernel_threads(self):
        self.assertTrue(kernel_threads(), "this kernel shows no kernel threads")
        execd = h.Execd(["--interval", "0.5s", "--exe", "kthreadd", "--name", "exe",
                         "--pid", "2", "--name", "pid"])
        try:
            execd.wait_batches(2)
        finally:
            execd.stop()
        lines = {p.tags["target"]: p for p in execd.batches()[-1][1] if p.tags}
        self.assertEqual(lines["exe"].fields["proc_processes"], 0, execd.describe())
        self.assertGreater(lines["pid"].fields["proc_processes"], 1, execd.describe())


if __name__ == "__main__":
    unittest.main(verbosity=2)
