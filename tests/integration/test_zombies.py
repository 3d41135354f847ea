"""Children that exit and stay unreaped: their CPU counts when it was used.

Why: the kernel folds a child's CPU into its parent's counters only when the
parent reaps it. A parent that reaps late (a busy server, a supervisor that
collects its children in batches) once made proctree report nothing while
the children ran and all of it in the interval of the reap: 11 s of CPU in
one 2 s interval of a 2-core host. A zombie's stat holds its final CPU, so
it counts in the interval it ran in, and the reap adds nothing more.

exitkids zombies runs N children one after another, each spinning 40 ms
(far less than a poll: most are gone before any poll sees them alive) and
leaves them unreaped until the test says so. As root (exit records and
process events) and as nobody (process events only), the CPU reported before
the reap is the children's (getrusage once they are reaped) within 5%, the
total does not grow by their CPU again at the reap, every process is counted
started and exited once, and proc_cpu_percent never passes what the host's
CPUs can do. A zombie's stat gives its CPU in whole clock ticks (truncated),
so before the reap up to a tick per child is still to come. With a breakdown
by process (and exit records) too: there a zombie's record used to leave it
out of the tree, and all of its CPU came at the reap.

No interval reports more CPU than the host's CPUs can do in it (its length
from the lines' timestamps) plus a tick per CPU: without exit records each
child's user and system times are each truncated to a tick in its zombie's
stat and the parent's fold at the reap is exact, so the reap brings up to
two ticks per child beyond what its stat showed; proctree reports at most
the interval's length x the CPUs (rounded up to a tick) and leaves the rest
for the next lines (ledger.h).
"""

import os
import time
import unittest

import accounting_helpers as ah
import harness as h

CHILDREN = 25  # 1 s of CPU
CPU_SLACK = 0.05


def exitkids_path():
    return h.program("PROCTREE_EXITKIDS", "tests/workload/exitkids")


class Zombies(unittest.TestCase):
    def cpu(self, points):
        return ah.field_sum(points, "proc_cpu_user_seconds") + ah.field_sum(points, "proc_cpu_system_seconds")

    def within_the_hosts_cpus(self, points, what):
        tick = 1 / os.sysconf("SC_CLK_TCK")
        for last, p in zip(points, points[1:]):
            seconds = (p.timestamp - last.timestamp) / 1e9
            self.assertLessEqual(self.cpu([p]), (seconds + tick) * os.cpu_count(), f"{p.raw}\n{what}")

    def run_zombies(self, wrapper=(), program=None, args=()):
        results, batches, execd = ah.drive(self, [exitkids_path(), "zombies", str(CHILDREN)],
                                           ["--interval", "0.5s", "--name", "kids", *args],
                                           [(b"go\n", 1), (b"reap\n", 1)], wrapper, program)
        self.assertEqual(results[0], [f"zombies {CHILDREN}"])
        children_cpu = float(results[1][0].split()[1])
        before = [p for _, points in batches[0] if (p := h.target_line(points, "kids"))]
        points = ah.target_points(execd, "kids")
        what = f"children's CPU {children_cpu}\n{execd.describe()}"
        # each zombie's stat truncates its CPU to a clock tick; the reap's
        # fold sums the exact run times, so the total gets the rest then
        truncated = CHILDREN / os.sysconf("SC_CLK_TCK")
        self.assertGreaterEqual(self.cpu(before), children_cpu * (1 - CPU_SLACK) - truncated,
                                "before the reap: " + what)
        self.assertLessEqual(abs(self.cpu(points) - children_cpu), children_cpu * CPU_SLACK, "in all: " + what)
        self.assertEqual(ah.negative_deltas(points), [], execd.describe())
        for p in points:
            self.assertLessEqual(p.fields["proc_cpu_percent"], 100 * os.cpu_count(), p.raw)
        self.within_the_hosts_cpus(points, what)
        if any("following the kernel's process events" in line for line in execd.stderr_lines()):
            self.assertEqual(ah.field_sum(points, "proc_processes_started"), CHILDREN, execd.describe())
            self.assertEqual(ah.field_sum(points, "proc_processes_exited"), CHILDREN, execd.describe())
        return execd

    def test_with_exit_records(self):
        execd = self.run_zombies()
        self.assertTrue(any("using the kernel's exit records" in line for line in execd.stderr_lines()),
                        execd.describe())

    def test_by_process_with_exit_records(self):
        execd = self.run_zombies(args=("--by", "process"))
        self.assertTrue(any("using the kernel's exit records" in line for line in execd.stderr_lines()),
                        execd.describe())

    def test_without_exit_records(self):
        self.run_zombies(*ah.execd_as_nobody(self, "proctree-zombies-"))


LATE = 300  # exitkids latereap: 300 children of 20 ms at once, reaped together 4 s on
LOSSY_RUNS = 3  # runs of it until one loses no exit record


class LateReap(unittest.TestCase):
    """Many short children reaped late and together: each zombie's stat
    truncates its user and its system CPU to a tick, and the reap's fold
    adds them exact, so the rest (up to two ticks a child: 300 x 20 ms gave
    2.38 CPU s in one 1 s interval of a 2-CPU host) once came at the reap.
    With exit records each zombie's CPU is its records' exact run time, in
    the interval it ran in. exitkids latereap says when its last child had
    exited and when it began to reap, 2 s later at least: every interval
    that begins after that exit holds no more than the parent's own CPU
    since (its reaping), plus a tick per CPU for its stat's truncation and
    what the children ran after their records were sent (their exit's
    unmapping of their memory, closing of their files: 0.1 ms each, 1 ms
    allowed; before, 300 children of 20 ms brought 0.36 s there in each of two runs).

    No line, the target's or a breakdown group's, holds more CPU than the
    host's CPUs can run in its interval (its length from the timestamps)
    plus a tick per CPU: while the children run, each live member's stat
    lags its run time by up to a tick of user and one of system, and the
    next read gives that lag at once (300 children: 3.98 CPU s in 1.76 s
    and 4.61 in 1.62 s of a 2-CPU host); proctree reports at most the
    interval's length x the CPUs, rounded up to a tick, and leaves the rest
    for the next lines (ledger.h). So a line that ends just after the last
    exit may leave some of the children's CPU to the next: after the last
    exit, the lines hold only the parent's work from the first one below
    its bound on (1.46 s waited once past a line that ended 2 ms after the
    exit). The total is the children's (getrusage once reaped) plus the
    parent's own within 1 %, the target's line and, by process, the
    groups' lines summed; by thread the thread lines, less what the
    children ran past their records (in the parent's fold alone).

    By thread the thread lines hold each child's CPU once: what its reads
    showed, then its record's run time past the last read, and nothing of
    its zombie's stat after. They used to count it from the record's tick
    samples against the last read and then the zombie's stat against the
    samples, about the larger of the two each: 8.72 s against the
    children's 6.06.

    Run-queue and block-I/O delays (the target's line; a thread line
    carries none) are bounded by what the threads could wait: a thread
    waits at most while it lives, so up to each line no more than the
    children's lives so far (forked, at most till they had all exited)
    and the parent's since the test began, the next line's timestamp
    being after this one's reads."""

    def run_late_reap(self, args=(), key=None):
        """The run's bounds, and the records' own (below) on a run that lost
        none: another test's burst of exits can overflow the socket while
        the 300 children hold both CPUs and proctree-execd waits for one
        (no line for 13.5 s once in CI, beside a VM and two container
        builds). A loss leaves every member not yet settled by its records
        to its stat's ticks and the reap's fold (docs/METRICS.md, exit
        records), so up to two ticks a child come at the reap, and the
        thread lines miss the lost records' run time; the tree's total, the
        groups' partition of it and every line's bound still hold, and are
        checked on every run. The scenario runs again, up to LOSSY_RUNS
        times in all, until one loses no record."""
        runs = []
        for _ in range(LOSSY_RUNS):
            losses, what = self.late_reap_once(args, key)
            if losses == 0:
                return
            runs.append(what)
        self.fail(f"exit records lost in each of {LOSSY_RUNS} runs: the records' bounds are unchecked\n"
                  + "\n".join(runs))

    def late_reap_once(self, args, key):
        began = time.time()  # before the parent started: its delay counts from later
        results, _, execd = ah.drive(self, [exitkids_path(), "latereap", str(LATE)],
                                     ["--interval", "1s", "--name", "kids", *args], [(b"go\n", 2)])
        finished = time.time()  # proctree-execd stopped: every line's reads were done
        if not any("using the kernel's exit records" in line for line in execd.stderr_lines()):
            self.skipTest("no exit records here (CAP_NET_ADMIN, Linux 6.0)")
        rusage, late = results[0][0].split(), results[0][1].split()
        self.assertEqual((rusage[0], late[0]), ("rusage", "late"), results)
        done = float(rusage[1]) + float(rusage[5])  # the children's CPU and the parent's own
        exited, reaped, self_at_exit, forked = (float(v) for v in late[1:])
        points = ah.target_points(execd, "kids")

        def cpu(p):
            return p.fields.get("proc_cpu_user_seconds", 0) + p.fields.get("proc_cpu_system_seconds", 0)

        def delay(p):
            return p.fields.get("proc_cpu_delay_seconds", 0) + p.fields.get("proc_blkio_delay_seconds", 0)

        spans = [(last.timestamp / 1e9, p.timestamp / 1e9) for last, p in zip(points, points[1:])]
        groups = {}  # the breakdown's lines by interval end
        for p in ah.breakdown_lines(execd, "kids", key) if key else ():
            groups.setdefault(p.timestamp, []).append(p)
        what = (f"children's and parent's CPU {done}, forked {forked}, last exit {exited}, reap {reaped}; "
                f"by interval (start, end, CPU, delay, groups' CPU): "
                f"{[(b, e, round(cpu(p), 3), round(delay(p), 3), [(g.tags[key], round(cpu(g), 3)) for g in groups.get(p.timestamp, [])]) for (b, e), p in zip(spans, points[1:])]}; "
                f"record losses {ah.field_sum(points, 'collector_exit_record_losses')}\n{execd.describe()}")
        tick = 1 / os.sysconf("SC_CLK_TCK")
        cpus = os.cpu_count()
        for (begin, end), p in zip(spans, points[1:]):
            for line in [p, *groups.get(p.timestamp, [])]:
                self.assertLessEqual(cpu(line), (end - begin) * cpus + tick * cpus, f"{line.raw}\n{what}")
        # what waited for lines past the exit is all out at the first one
        # below its bound (the bound is ceil(length x CPUs), the length by
        # proctree's clock: a tick of slack)
        settled, waits = exited, False
        for (begin, end), p in zip(spans, points[1:]):
            if begin > exited:
                if not waits:
                    break
                settled = end
            waits = cpu(p) >= (end - begin) * cpus - tick
        after = sum(cpu(p) for (begin, _), p in zip(spans, points[1:]) if begin >= settled)
        self.assertTrue(any(begin >= settled and end > reaped for begin, end in spans), what)
        # what a child runs after its record (the kernel sends it before it
        # frees its memory and files) is in its fold alone: 0.1 ms here;
        # after a loss, also what its stat truncated of its user and system time
        losses = ah.field_sum(points, "collector_exit_record_losses")
        per_child = 0.001 + (2 * tick if losses else 0)
        self.assertLessEqual(after, float(rusage[5]) - self_at_exit + tick * cpus + LATE * per_child, what)
        total = sum(cpu(p) for p in points)
        self.assertLessEqual(abs(total - done), 0.01 * done, what)
        in_groups = sum(cpu(g) for lines in groups.values() for g in lines)
        if key == "process":
            self.assertLessEqual(abs(in_groups - done), 0.01 * done, f"groups {in_groups}: {what}")
        elif key == "thread":
            # never over; under by at most what the children ran past their
            # records, which the reap gives their parent's fold and no thread
            # line (docs/METRICS.md): the allowance the tree's line gets above
            # (6.02 and 6.12 s against 6.08 and 6.27 in CI, the second built
            # with AddressSanitizer, whose mappings make an exit longer)
            self.assertLessEqual(in_groups, done * 1.01, f"groups {in_groups}: {what}")
            if losses == 0:
                self.assertGreaterEqual(in_groups, done * 0.99 - LATE * 0.001, f"groups {in_groups}: {what}")
        waited = 0
        for p, following in zip(points, points[1:] + [None]):
            waited += delay(p)
            until = following.timestamp / 1e9 if following else finished
            could = LATE * max(0.0, min(exited, until) - forked) + (until - began)
            self.assertLessEqual(waited, could, f"delays up to {p.raw}\n{what}")
        self.assertEqual(ah.negative_deltas(points), [], execd.describe())
        return losses, what

    def test_exact_cpu_of_zombies(self):
        self.run_late_reap()

    def test_by_process(self):
        self.run_late_reap(("--by", "process"), "process")

    def test_by_thread(self):
        self.run_late_reap(("--by", "thread"), "thread")


if __name__ == "__main__":
    unittest.main(verbosity=2)
