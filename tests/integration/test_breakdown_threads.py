"""--by thread: one line per thread name across the tree.

namedthreads runs two threads named "worker" that burn 0.5 s of CPU each
and one named "gc" that burns 0.15 s (prctl PR_SET_NAME), each measuring
its own CPU (CLOCK_THREAD_CPUTIME_ID). Attached with --pid before they
start, proctree's thread=worker and thread=gc lines, summed over the
batches, show what those threads did; a line carries CPU and context
switches only, never negative. InfluxDB accepts every line, the name in
its thread tag.

With --exit the same threads exit as soon as they are done, within one
interval: /proc forgets them, and only their exit records (proctree runs
as root here) credit their names' lines with what they did.
"""

import unittest

import accounting_helpers as ah
import harness as h

THREADS = [("worker", 0.5), ("worker", 0.5), ("gc", 0.15)]
FIELDS = {"proc_cpu_user_seconds", "proc_cpu_system_seconds", "proc_cpu_percent", "proc_ctx_switches_voluntary",
          "proc_ctx_switches_involuntary", "collector_interval_seconds"}


def run_threads(interval, exit_when_done=False):
    """namedthreads THREADS followed with --by thread: (execd, {name: CPU
    its threads measured}, the names whose threads shared a core while
    they spun: their spin took a quarter longer than their CPU)."""
    argv = [ah.namedthreads_path()] + (["--exit"] if exit_when_done else [])
    argv += [f"{name}:{seconds}" for name, seconds in THREADS]
    with h.Workload(argv) as work:
        with h.Execd(["--interval", interval, "--pid", str(work.pid), "--name", "nt", "--by", "thread"]) as execd:
            execd.wait_batches(1)  # attached: what the threads do from now on is counted
            work.send(b"go\n")
            truth, contended = {}, set()
            for line in work.read_lines(len(THREADS), 60, "cpu"):
                _, name, seconds, wall = line.split()
                truth[name] = truth.get(name, 0) + float(seconds)
                if float(wall) > 1.25 * float(seconds):
                    contended.add(name)
            # a batch that ends after the threads went idle (or exited) has all they did
            seen = execd.batch_count()
            execd.wait_batches(seen + 2)
            execd.stop()
    return execd, truth, contended


class BreakdownByThread(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.execd, cls.truth, _ = run_threads("0.3s")

    def test_cpu_per_thread_name(self):
        cpu = ah.breakdown_sums(self.execd, "nt", "thread", "proc_cpu_user_seconds", "proc_cpu_system_seconds")
        for name, seconds in self.truth.items():
            self.assertIn(name, cpu, self.execd.describe())
            self.assertLessEqual(abs(cpu[name] - seconds), 0.1 * seconds + 0.03, f"{name}: {cpu} against {self.truth}")
        self.assertGreater(cpu["worker"], 4 * cpu["gc"])

    def test_cpu_and_switches_only_never_negative(self):
        lines = ah.breakdown_lines(self.execd, "nt", "thread")
        self.assertTrue(lines, self.execd.describe())
        for p in lines:
            self.assertLessEqual(set(p.fields), FIELDS, p.fields)
            self.assertNotIn("process", p.tags)
            self.assertTrue(all(v >= 0 for v in p.fields.values()), p.fields)
        self.assertTrue(any("proc_ctx_switches_voluntary" in p.fields for p in lines))

    def test_influxdb_accepts_every_line(self):
        with h.InfluxDB() as influx:
            influx.create_database("t")
            influx.write_ok("t", self.execd.stdout_bytes().decode())
            rows = influx.rows("t", "SELECT sum(proc_cpu_user_seconds) FROM proctree GROUP BY thread")
        self.assertTrue(any(r.get("thread") == "gc" for r in rows), rows)


class ExitedThreads(unittest.TestCase):
    def test_exit_records_credit_threads_that_exited(self):
        # a 3 s interval: the threads start and exit between two of its ends
        execd, truth, contended = run_threads("3s", exit_when_done=True)
        cpu = ah.breakdown_sums(execd, "nt", "thread", "proc_cpu_user_seconds", "proc_cpu_system_seconds")
        for name, seconds in truth.items():
            self.assertIn(name, cpu, execd.describe())
            # The records' CPU is the thread's exact run time, what it
            # measured of itself, whether or not it shared a core (its tick
            # samples, which the lines once took, part from that by tens of
            # percent on a busy host: docs/METRICS.md, "Breakdown by thread
            # name").
            self.assertLessEqual(abs(cpu[name] - seconds), 0.1 * seconds + 0.03,
                                 f"{name} ({'shared a core' if name in contended else 'had a core'}): "
                                 f"{cpu} against {truth}")
        # the main thread only waited: the process's stat, which counts its
        # exited threads too, is not taken for its own
        self.assertLess(cpu.get("namedthreads", 0), 0.1, cpu)


if __name__ == "__main__":
    unittest.main(verbosity=2)
