"""collector_interval_seconds: every line says the wall time it covers.

Why: proctree's amounts (bytes, CPU seconds, faults, ...) are per
interval, and a backend that wants a rate divides them by the interval's
length, which proctree knows and Telegraf or collectd do not: a batch per
request covers whatever time passed since the request before, and a timer's
batch is late by what made it.

The truth is on the lines: a batch's timestamp is its interval's end, so the
time between two consecutive batches' timestamps is the second one's
interval. Each line of a batch (the target's, each --by process group's,
the global one) says the same interval, within 2 % of that time (the
monotonic clock proctree measures with against the realtime stamps, a csv
epoch's millisecond). The first batch covers the time since proctree
started: more than 0, and no more than the time since the test started it.

- proctree-execd --interval 1s;
- proctree-execd per request, newlines 0.5 s, 2 s and 1 s apart: each
  interval spans at least the pause the test made before its request;
- collectd's plugin at Interval 1 (collectd_harness), BreakDown "process".

The target is the test's own process, whose tree holds proctree-execd or
collectd: two process names, two group lines, and nothing left behind.
"""

import os
import tempfile
import time
import unittest

import collectd_harness as ch
import harness as h
import line_rules

FIELD = "collector_interval_seconds"
SHARE = 0.02  # of the time between two batches
# the clocks' difference over a span: a tick for reading them apart (and a
# csv epoch's millisecond), NTP's slew of the realtime one
CLOCKS = line_rules.READ_WINDOW
PAUSES = (0.5, 2.0, 1.0)


class Checks(unittest.TestCase):
    def assert_intervals(self, epochs, intervals, started, what):
        """intervals[i], the interval of the batch at epochs[i] (seconds):
        the first within the time since started, each other within SHARE of
        the time since the batch before."""
        self.assertGreater(len(epochs), 2, what)
        first = epochs[0] - started
        self.assertGreater(intervals[0], 0, what)
        self.assertLessEqual(intervals[0], first * (1 + line_rules.CLOCK_SLEW) + CLOCKS,
                             f"{what}: the first batch's {intervals[0]} s, {first:.6f} s after the start")
        for i in range(1, len(epochs)):
            gap = epochs[i] - epochs[i - 1]
            self.assertLessEqual(abs(intervals[i] - gap), SHARE * gap,
                                 f"{what}: batch {i} says {intervals[i]} s, {gap:.6f} s after the one before")


class ExecdIntervals(Checks):
    def run_execd(self, args, drive):
        """proctree-execd on the test's tree with --by process: its batches,
        each checked to hold the target's, a group's and the global line, all
        saying one interval; [timestamps in s], [intervals], the start."""
        started = time.time()
        with h.Execd(["--pid", os.getpid(), "--name", "t", "--by", "process"] + args) as execd:
            drive(execd)
            batches = execd.batches()
        epochs, intervals = [], []
        for ts, points in batches:
            what = f"batch at {ts}:\n" + "\n".join(p.raw for p in points)
            self.assertIsNotNone(h.target_line(points, "t"), what)
            self.assertIsNotNone(h.global_line(points), what)
            self.assertTrue([p for p in points if "process" in p.tags], what)
            said = {p.fields.get(FIELD) for p in points}
            self.assertEqual(len(said), 1, f"lines of one batch say different intervals: {what}")
            interval = said.pop()
            self.assertIsInstance(interval, float, what)
            epochs.append(ts / 1e9)
            intervals.append(interval)
        return epochs, intervals, started, execd

    def test_interval_timer(self):
        epochs, intervals, started, execd = self.run_execd(["--interval", "1s"], lambda e: e.wait_batches(5))
        self.assert_intervals(epochs, intervals, started, execd.describe())

    def test_batches_per_request(self):
        def drive(execd):
            execd.wait_started()  # a request before then would join the first batch
            execd.send()
            execd.wait_batches(1)
            for n, pause in enumerate(PAUSES, 2):
                time.sleep(pause)
                execd.send()
                execd.wait_batches(n)

        epochs, intervals, started, execd = self.run_execd([], drive)
        self.assertEqual(len(epochs), 1 + len(PAUSES), execd.describe())
        self.assert_intervals(epochs, intervals, started, execd.describe())
        # a batch is made after its request, which the test made a pause
        # after it saw the batch before
        for pause, interval in zip(PAUSES, intervals[1:]):
            self.assertGreaterEqual(interval, pause - CLOCKS, f"{intervals} after pauses {PAUSES}")


class CollectdIntervals(Checks):
    def test_interval_1(self):
        with tempfile.TemporaryDirectory(prefix="proctree-collectd-interval-") as tmp:
            started = time.time()
            with ch.Collectd(tmp, ch.process_block("t", f"Pid {os.getpid()}", 'BreakDown "process"')) as collectd:
                collectd.wait_csv("t", FIELD, count=6)
                # the newest batch's values may still be on their way to the files
                target = collectd.csv_rows("t", FIELD)[:-1]
                others = {i: dict(collectd.csv_rows(i, FIELD)) for i in [""] + collectd.breakdown_instances("t")}
                log = collectd.log()[-2000:]
        what = f"target {target}\nothers {others}\n{log}"
        self.assertGreaterEqual(len(others), 3, what)  # the global line and two groups
        for instance, rows in others.items():
            for epoch, interval in target:
                # every group is in use in every batch (both processes live throughout)
                self.assertEqual(rows.get(epoch), interval, f"{instance!r} at {epoch}: {what}")
        self.assert_intervals([e for e, _ in target], [v for _, v in target], started, what)


if __name__ == "__main__":
    unittest.main()
