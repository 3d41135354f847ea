"""--counters total (CounterMode "total" in collectd): every amount a
monotonic total since proctree first measured its series, through a
restart of the target, equal to what the delta mode's lines add up to.

Why: Prometheus scrapes at its own period; a per-interval amount it reads
is lost or counted twice, so it wants counters (docs/METRICS.md, "Delta
or total").

tests/workload/amounts.py is a service found by its pid file that, told
to, writes a known number of bytes, forks a known number of children and
burns a known CPU time, and writes nothing else once its pid file is
written: a target that joins it without its past has exactly those
amounts. Two proctree-execd watch it at once, one --counters total, one
--counters delta, each at its own batch times; so the spans of their
lines never line up, and the test compares what both must reach: the
whole run's. The service does its work, is stopped and started again
(another pid, the pid file rewritten), and does it again. Then:

* in total mode, every amount (each metric of kind delta) of every line
  (the target's, its --by process groups', the global one) never falls
  from a batch to the next of its series;
* the total's last proc_io_write_bytes is both incarnations' bytes, and
  so is the sum of the delta mode's; proc_processes_started likewise is
  their children (the kernel's process events, else a poll or a
  discovery sees each child: each lives 0.3 s);
* the CPU seconds of the two modes agree within 1 %: both read the same
  counters of a process that is idle, blocked on its stdin, at each of
  their reads but while it works, and each reads it idle after each work
  (so each incarnation's last read is the same for both: what is left
  between them is /proc's truncation of utime and stime to ticks);
* every line read is held to line_rules.py, in total mode on the
  differences of its totals (harness.Execd knows the mode from its args).

A launched command's summary (--summary json) is the run's in either mode:
its bytes written those of the command's dd (and the launch's few), its
collector_interval_seconds
its seconds; the table in total mode says READ TOTAL and WRITE TOTAL, and
its last row the bytes written (3.13 MiB), not a rate.

collectd at Interval 1 with CounterMode "total", on the same service
through the same restart: its csv rows of every amount of the target
never fall, and its proc_io_write_bytes ends at both incarnations' bytes.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import collectd_harness as ch
import harness as h
import line_rules

AMOUNTS = [sys.executable, os.path.join(h.SOURCE_ROOT, "tests", "workload", "amounts.py")]
TICK = line_rules.TICK
# each incarnation's work: bytes written, children forked, CPU seconds
# (CPU: /proc's ticks, which each observer may read a tick or two apart
# at each incarnation's end: 1 % of 5 s is 5 ticks)
WORKS = [(3_000_000, 4, 2.5), (1_234_567, 3, 2.5)]
BYTES = sum(w[0] for w in WORKS)
CHILDREN = sum(w[1] for w in WORKS)
CPU = ("proc_cpu_user_seconds", "proc_cpu_system_seconds")
WAIT = 30.0  # a busy host's batches and discoveries


def start(pidfile, where):
    """A new incarnation, once its pid file names it."""
    service = h.Workload(AMOUNTS + [pidfile, where])

    def named():
        try:
            with open(pidfile) as f:
                return f.read().strip() == str(service.pid)
        except OSError:
            return False
    h.wait_until(named, WAIT, f"{pidfile} naming {service.pid}")
    return service


def work(service, where, amounts):
    """One work of an incarnation (its first), until it is done."""
    service.send(f"work {amounts[0]} {amounts[1]} {amounts[2]}\n".encode())
    done = os.path.join(where, f"done-{service.pid}-1")
    h.wait_until(lambda: os.path.isdir(done), WAIT, f"{service.pid}'s work done")


def lines_of(batches, target="work"):
    """The target's lines of batches, oldest first."""
    return [t for t in (h.target_line(p, target) for _, p in batches) if t is not None]


def lines(execd, target="work"):
    """The target's lines, oldest first."""
    return lines_of(execd.batches(), target)


def delta_sum_of(found, metric):
    return sum(p.fields.get(metric, 0) for p in found)


def delta_sum(execd, metric):
    return delta_sum_of(lines(execd), metric)


def last_total(execd, metric):
    found = [p.fields[metric] for p in lines(execd) if metric in p.fields]
    return found[-1] if found else 0


def joined(execd, restarts=0):
    """The service is a member now, and the restarts seen are as many."""
    found = lines(execd)
    if not found or found[-1].fields.get("proc_processes", 0) < 1:
        return False
    counted = sum(p.fields.get("proc_restarts", 0) for p in found) if not execd.totals else \
        found[-1].fields.get("proc_restarts", 0)
    return counted >= restarts


def assert_never_falls(test, series_rows, where):
    """series_rows: {series: [fields of its lines, oldest first]}: every
    amount of every series not below its value before."""
    checked = 0
    for series, rows in series_rows.items():
        last = {}
        for fields in rows:
            for name, value in fields.items():
                if name not in line_rules.DELTAS:
                    continue
                if name in last:
                    test.assertGreaterEqual(value, last[name], f"{where} {series}: {name} fell: {rows}")
                    checked += 1
                last[name] = value
    test.assertGreater(checked, 0, f"{where}: no amount seen twice")


class TotalAgainstDelta(unittest.TestCase):
    def test_totals_never_fall_and_reach_the_runs_amounts(self):
        with tempfile.TemporaryDirectory(prefix="proctree-counters-") as tmp:
            pidfile = os.path.join(tmp, "work.pid")
            service = start(pidfile, tmp)
            common = ["--pidfile", pidfile, "--name", "work", "--by", "process", "--interval", "0.5s",
                      "--discovery-interval", "100ms"]
            try:
                with h.Execd(["--counters", "total"] + common) as total, \
                        h.Execd(["--counters", "delta"] + common) as delta:
                    self.assertTrue(total.totals)
                    self.assertFalse(delta.totals)
                    for n, amounts in enumerate(WORKS, 1):
                        if n > 1:  # the restart: another pid, the pid file rewritten
                            service.stop()
                            service = start(pidfile, tmp)
                        for e in (total, delta):
                            e.wait_for(lambda e: joined(e, n - 1), WAIT, f"the service as a member ({n})")
                        work(service, tmp, amounts)
                        # each has read the idle service since (the second
                        # batch from now began after the work): a read
                        # during the burn would be its last before the
                        # restart, the rest lost to one and not the other
                        for e in (total, delta):
                            e.wait_batches(len(e.batches()) + 2)
                    want = sum(w[0] for w in WORKS)
                    total.wait_for(lambda e: last_total(e, "proc_io_write_bytes") >= want, WAIT,
                                   f"a total of {want} bytes written")
                    delta.wait_for(lambda e: delta_sum(e, "proc_io_write_bytes") >= want, WAIT,
                                   f"deltas adding up to {want} bytes written")
                    for e in (total, delta):  # and after that, two more batches: nothing more is added
                        e.wait_batches(len(e.batches()) + 2)
                    # one snapshot each: a batch that came between two
                    # reads of it would be in one list and not the other
                    total_batches = total.batches()
                    total_lines, delta_lines = lines_of(total_batches), lines(delta)
                    self.assertGreater(len(delta_lines), 4)
            finally:
                service.stop()

        raw = "\n".join(p.raw for p in total_lines)
        # every series of the total run (the target's, its groups', the global line)
        series = {}
        for _, points in total_batches:
            for p in points:
                series.setdefault(tuple(sorted(p.tags.items())), []).append(p.fields)
        self.assertGreater(len(series), 2, list(series))  # groups and the global line too
        assert_never_falls(self, series, "proctree-execd --counters total")

        last = total_lines[-1].fields
        self.assertEqual(last["proc_io_write_bytes"], BYTES, raw)
        self.assertEqual(delta_sum_of(delta_lines, "proc_io_write_bytes"), BYTES,
                         "\n".join(p.raw for p in delta_lines))
        self.assertEqual(last["proc_processes_started"], CHILDREN, raw)
        self.assertEqual(delta_sum_of(delta_lines, "proc_processes_started"), CHILDREN)
        # restarts are amounts too: the one restart, counted once
        self.assertEqual(last["proc_restarts"], 1, raw)
        self.assertEqual(delta_sum_of(delta_lines, "proc_restarts"), 1)
        # the CPU: the same counters, each mode's whole run
        cpu_total = sum(last[m] for m in CPU)
        cpu_delta = sum(delta_sum_of(delta_lines, m) for m in CPU)
        burnt = sum(w[2] for w in WORKS)
        # the burns are in it (what /proc shows of them: ticks, a few lost
        # at each incarnation's end; the two modes' agreement is the point)
        self.assertGreaterEqual(cpu_total, 0.9 * burnt, raw)
        self.assertAlmostEqual(cpu_total, cpu_delta, delta=max(0.01 * cpu_delta, 2 * TICK),
                               msg=f"total {cpu_total} s, deltas' sum {cpu_delta} s")
        # the wall time each line covers adds up in total mode too: the
        # total's interval is the run's time since its first batch began
        first_ts, last_ts = total_batches[0][0], total_batches[-1][0]
        covered = last[line_rules.INTERVAL] - total_lines[0].fields[line_rules.INTERVAL]
        self.assertAlmostEqual(covered, (last_ts - first_ts) / 1e9, delta=0.05)
        # and the delta run's lines still carry amounts, not totals: theirs
        # add up to its span
        span = (delta_lines[-1].timestamp - delta_lines[0].timestamp) / 1e9
        self.assertAlmostEqual(delta_sum_of(delta_lines[1:], line_rules.INTERVAL), span, delta=0.05)


class Summary(unittest.TestCase):
    def test_the_summary_is_the_runs_in_either_mode(self):
        # 50 x 64 KiB written by dd: 3,276,800 bytes, 3.12 MiB
        dd = ["dd", "if=/dev/zero", "bs=65536", "count=50", "status=none"]
        written = 50 * 65536
        with tempfile.TemporaryDirectory(prefix="proctree-counters-sum-") as tmp:
            summaries, tables = {}, {}
            for mode in ("delta", "total"):
                path = os.path.join(tmp, f"{mode}.json")
                run = subprocess.run([h.execd_path(), "--counters", mode, "--format", "table", "--interval", "0.2s",
                                      "--summary", "json", "--summary-file", path, "--",
                                      "sh", "-c", " ".join(dd) + f" of={tmp}/out-{mode}; sleep 0.5"],
                                     stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=WAIT)
                self.assertEqual(run.returncode, 0, run.stderr)
                with open(path) as f:
                    summaries[mode] = json.load(f)
                tables[mode] = run.stdout
        for mode, s in summaries.items():
            # dd's, and the launch's own few (the command's pid written to
            # its cgroup before the exec): a sum of totals would be far more
            self.assertGreaterEqual(s["metrics"]["proc_io_write_bytes"], written, (mode, s))
            self.assertLessEqual(s["metrics"]["proc_io_write_bytes"], written + 32, (mode, s))
            self.assertAlmostEqual(s["metrics"][line_rules.INTERVAL], s["seconds"], delta=1e-6, msg=(mode, s))
            self.assertGreaterEqual(s["intervals"], 2, (mode, s))
        rows = [line for line in tables["total"].splitlines() if line[8:10] == "  " and "sh" in line[10:28]]
        self.assertIn("READ TOTAL", tables["total"])
        self.assertIn("WRITE TOTAL", tables["total"])
        self.assertNotIn("TOTAL", tables["delta"])
        # the last row's WRITE TOTAL: dd's bytes, to the table's 3 figures
        self.assertTrue(rows, tables["total"])
        figure, unit = rows[-1].split()[-3:-1]
        self.assertEqual(unit, "MiB", rows[-1])
        self.assertAlmostEqual(float(figure) * 2**20, written, delta=0.006 * 2**20, msg=rows[-1])


class CollectdTotals(unittest.TestCase):
    def test_collectd_totals_never_fall(self):
        with tempfile.TemporaryDirectory(prefix="proctree-counters-cd-") as tmp:
            pidfile = os.path.join(tmp, "work.pid")
            service = start(pidfile, tmp)
            body = '  CounterMode "total"\n  DiscoveryInterval 0.1\n' + \
                ch.process_block("work", f'PidFile "{pidfile}"', 'BreakDown "process"')
            try:
                with ch.Collectd(tmp, body) as collectd:
                    self.assertTrue(collectd.totals)
                    for n, amounts in enumerate(WORKS, 1):
                        if n > 1:
                            service.stop()
                            service = start(pidfile, tmp)

                            def restarted():
                                rows = collectd.csv_rows("work", "proc_restarts")
                                return rows and rows[-1][1] >= 1 and \
                                    collectd.csv_rows("work", "proc_processes")[-1][1] >= 1
                            h.wait_until(restarted, WAIT, "collectd's restart line")
                        else:
                            h.wait_until(lambda: any(v >= 1 for _, v in collectd.csv_rows("work", "proc_processes")),
                                         WAIT, "the service as a member")
                        work(service, tmp, amounts)
                    h.wait_until(lambda: collectd.csv_rows("work", "proc_io_write_bytes")[-1][1] >= BYTES, WAIT,
                                 f"a total of {BYTES} bytes written")
                    rows = len(collectd.csv_rows("work", "proc_io_write_bytes"))
                    collectd.wait_csv("work", "proc_io_write_bytes", count=rows + 2)
                    written = collectd.csv_rows("work", "proc_io_write_bytes")
                    # each plugin instance's lines (checked by line_rules on
                    # the way), and every amount of each
                    instances = ["work", ""] + collectd.breakdown_instances("work")
                    series = {i: [fields for _, fields in sorted(collectd._csv_lines(
                        "proctree" + (f"-{i}" if i else "")).items())] for i in instances}
                    for i in instances:
                        collectd.check_csv_instance(i)
            finally:
                service.stop()
        self.assertGreater(len(instances), 2, instances)
        assert_never_falls(self, series, "collectd CounterMode total")
        self.assertEqual(written[-1][1], BYTES, written)
        values = [v for _, v in written]
        self.assertEqual(values, sorted(values), written)


if __name__ == "__main__":
    unittest.main()
