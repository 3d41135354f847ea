#!/usr/bin/env python3
"""line_rules.py, the rule every line of either frontend obeys, on crafted
lines: each rule broken is caught, by the path the harnesses read lines
through (parse_line, group_batches, collectd's csv join, InfluxDB rows),
and a line at the edge of what the kernel allows passes. Needs no
program: it checks the checker."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness as h  # noqa: E402
import line_rules as r  # noqa: E402
from collectd_harness import HOSTNAME, Collectd  # noqa: E402

TS = 1_800_000_000_000_000_000
SEC = 1_000_000_000
CPUS = r.host_cpus()


def lp(fields, ts, target="t"):
    """A line of proctree-execd's line protocol."""
    body = ",".join(f"{k}={v}i" if isinstance(v, int) else f"{k}={v!r}" for k, v in fields.items())
    return f"proctree,target={target} {body} {ts}"


def batches(*fields_per_batch, step=SEC, totals=False):
    """The batches of lines with these fields, step ns apart, as Execd.batches reads them."""
    return h.group_batches([h.parse_line(lp(f, TS + i * step), totals) for i, f in enumerate(fields_per_batch)],
                           totals)


def running(*fields_per_batch):
    """The same lines in total mode: each amount (a delta metric) summed
    over the lines up to it, as --counters total prints them."""
    out, sums = [], {}
    for fields in fields_per_batch:
        line = dict(fields)
        for name, value in fields.items():
            if name in r.DELTAS:
                sums[name] = sums.get(name, 0) + value
                line[name] = sums[name]
        out.append(line)
    return out


# a quiet one-process tree's interval, as a query's columns hold it (no
# interval of its own: the caller's judges it)
QUIET = {"proc_processes": 1, "proc_processes_exited": 0, "proc_threads": 1, "proc_rss_min": 4096, "proc_rss_max": 8192,
         "proc_cpu_user_seconds": 0.01, "proc_cpu_system_seconds": 0.0, "proc_cpu_percent": 1.0}
# ... and as proctree writes it: a line of 1 s, which says so
LINE = dict(QUIET, collector_interval_seconds=1.0)


class EachRuleCaught(unittest.TestCase):
    def assertCaught(self, name, fields, seconds=None, cpus=None, tags=None, exits=None, counted=None):
        found = r.problems(fields, seconds, cpus, tags, exits, counted=counted)
        self.assertTrue(any(p.startswith(name + ":") for p in found), f"{name} not caught in {fields}: {found}")

    def assertPossible(self, fields, seconds=None, cpus=None, tags=None, exits=None, whole=False, counted=None):
        self.assertEqual(r.problems(fields, seconds, cpus, tags, exits, whole, counted), [])

    def test_a_quiet_line_passes(self):
        self.assertPossible(QUIET, 1.0)
        self.assertPossible(LINE, 1.0, whole=True)
        self.assertPossible(LINE, whole=True)

    def test_every_line_says_its_interval(self):
        found = r.problems(QUIET, 1.0, whole=True)
        self.assertTrue(any(p.startswith("collector_interval_seconds: absent") for p in found), found)
        for nothing in (0, 0.0, -1.0, float("nan")):
            self.assertCaught("collector_interval_seconds", dict(LINE, collector_interval_seconds=nothing))
        # no longer than the time since the line before: the clocks' slack
        # allowed, a tick's more not
        edge = 2.0 * (1 + r.CLOCK_SLEW) + r.READ_WINDOW
        self.assertPossible(dict(LINE, collector_interval_seconds=edge), 2.0)
        self.assertCaught("collector_interval_seconds", dict(LINE, collector_interval_seconds=edge + r.TICK), 2.0)
        # shorter is possible: a breakdown group's line may skip batches
        self.assertPossible(dict(LINE, collector_interval_seconds=0.5), 2.0)

    def test_the_lines_own_interval_judges_its_time(self):
        # CPUs x 1 s in a line of 1 s; in one of 0.5 s whose counters span
        # it alone, however long since the line before (a group's line that
        # skipped batches), not; a line alone does not say its counters'
        # span, which may hold withheld intervals' (WithheldSpan)
        busy = dict(LINE, proc_cpu_user_seconds=float(CPUS), proc_cpu_system_seconds=0.0)
        self.assertPossible(busy, 1.0, whole=True)
        self.assertCaught("proc_cpu_user_seconds", dict(busy, collector_interval_seconds=0.5), counted=0.5)
        self.assertCaught("proc_cpu_user_seconds", dict(busy, collector_interval_seconds=0.5), 3.0, counted=0.5)
        self.assertPossible(dict(busy, collector_interval_seconds=0.5), 3.0, counted=1.0)
        self.assertPossible(dict(busy, collector_interval_seconds=0.5))
        for name in ("collector_cpu_seconds", "cgroup_pressure_cpu_some_seconds"):
            self.assertCaught(name, {name: 2.1 * CPUS, "collector_interval_seconds": 2.0})
            self.assertPossible({name: 0.5, "collector_interval_seconds": 2.0})

    def test_network_namespace(self):
        """A whole line's netns_* are all four or none, never beside
        proc_net_tcp_*; a query's columns may hold any of them."""
        ns = {"netns_received_bytes": 1000, "netns_sent_bytes": 10, "netns_received_packets": 2,
              "netns_sent_packets": 1}
        self.assertEqual(r.problems(dict(LINE, **ns), whole=True), [])
        self.assertEqual(r.problems(dict(LINE, proc_net_tcp_sent_bytes=5, proc_net_tcp_connections=1), whole=True),
                         [])
        for tcp in ("proc_net_tcp_sent_bytes", "proc_net_tcp_connections"):
            found = r.problems(dict(LINE, **ns, **{tcp: 0}), whole=True)
            self.assertTrue(any(p.startswith("netns_received_bytes:") for p in found), found)
        for left in ns:
            found = r.problems(dict(LINE, **{k: v for k, v in ns.items() if k != left}), whole=True)
            self.assertTrue(any(p.startswith(next(n for n in ns if n != left) + ":") for p in found), found)
            self.assertEqual(r.problems(dict(QUIET, **{k: v for k, v in ns.items() if k != left})), [])
        with self.assertRaises(r.ImpossibleLine):
            h.parse_line(lp(dict(LINE, **ns, proc_net_tcp_connections=0), TS))

    def test_negative(self):
        for name in ("proc_io_read_bytes", "proc_processes", "cgroup_pressure_io_some_seconds", "global_cached_min"):
            self.assertCaught(name, dict(QUIET, **{name: -1}))

    def test_not_a_number(self):
        for bad in (float("nan"), float("inf"), float("-inf")):
            self.assertCaught("proc_pss_max", dict(QUIET, proc_pss_max=bad))

    def test_min_above_max(self):
        self.assertCaught("proc_rss_min", dict(QUIET, proc_rss_min=8193))
        self.assertCaught("global_mem_used_min", {"global_mem_used_min": 2.0, "global_mem_used_max": 1.0})
        self.assertPossible(dict(QUIET, proc_rss_min=8192))

    def test_more_in_states_than_live(self):
        self.assertCaught("proc_processes", dict(QUIET, proc_processes_running=1, proc_processes_zombie=1))

    def test_cpu_over_the_interval_times_the_cpus(self):
        # the read window is allowed, a tick's more is not: proctree leaves
        # what the stats' truncation gives late for the next lines
        edge = CPUS * (1.0 + r.READ_WINDOW)
        self.assertPossible(dict(QUIET, proc_cpu_user_seconds=edge, proc_cpu_system_seconds=0.0), 1.0)
        self.assertCaught("proc_cpu_user_seconds",
                          dict(QUIET, proc_cpu_user_seconds=edge - 0.5, proc_cpu_system_seconds=0.5 + r.TICK), 1.0)
        # 300 live children's lag at once (3.98 s in 1.76 s of 2 CPUs)
        self.assertCaught("proc_cpu_user_seconds",
                          dict(QUIET, proc_processes=300, proc_cpu_user_seconds=3.5, proc_cpu_system_seconds=0.48),
                          1.76, cpus=2)
        # the last line of a tree (no live process) gives all that waited:
        # two ticks for each process that exited with it
        last = dict(QUIET, proc_processes=0, proc_processes_exited=3,
                    proc_cpu_user_seconds=edge + 6 * r.TICK, proc_cpu_system_seconds=0.0)
        self.assertPossible(last, 1.0)
        self.assertCaught("proc_cpu_user_seconds", dict(last, proc_cpu_system_seconds=r.TICK), 1.0)
        # issue 38: 300 children of 20 ms reaped at once, 2.38 s in 1 s on
        # 2 CPUs, exit records in use (their run time is exact)
        self.assertCaught("proc_cpu_user_seconds",
                          dict(QUIET, proc_cpu_user_seconds=2.2, proc_cpu_system_seconds=0.18,
                               proc_processes_exited=300, collector_exit_records=300), 1.0, cpus=2)
        self.assertCaught("proc_cpu_percent", dict(QUIET, proc_cpu_percent=100.0 * CPUS + 1))

    def test_cgroup_cpu_and_throttling(self):
        self.assertCaught("cgroup_cpu_user_seconds",
                          {"cgroup_cpu_user_seconds": 2.0, "cgroup_cpu_system_seconds": 0.1}, 1.0, cpus=2)
        self.assertPossible({"cgroup_cpu_user_seconds": 1.99, "cgroup_cpu_system_seconds": 0.02}, 1.0, cpus=2)
        self.assertCaught("cgroup_cpu_throttled_seconds", {"cgroup_cpu_throttled_seconds": 2.1}, 1.0, cpus=2)
        self.assertCaught("collector_cpu_seconds", {"collector_cpu_seconds": 2.1}, 1.0, cpus=2)

    def test_pressure_some_over_the_interval(self):
        # issue 38: 7.5 s of cpu "some" in a 1 s interval, 1.8 s in 0.23 s
        self.assertCaught("cgroup_pressure_cpu_some_seconds", {"cgroup_pressure_cpu_some_seconds": 7.5}, 1.0)
        self.assertCaught("cgroup_pressure_cpu_some_seconds", {"cgroup_pressure_cpu_some_seconds": 1.8}, 0.23)
        self.assertCaught("cgroup_pressure_memory_some_seconds", {"cgroup_pressure_memory_some_seconds": 1.1}, 1.0)
        self.assertPossible({"cgroup_pressure_io_some_seconds": 1.0, "cgroup_pressure_io_full_seconds": 1.0}, 1.0)
        # some is no bound of a sum over a glob's cgroups
        self.assertPossible({"cgroup_pressure_cpu_some_seconds": 3.0}, 1.0, tags={"target": "w@*.service"})

    def test_pressure_full_over_some(self):
        self.assertCaught("cgroup_pressure_memory_full_seconds",
                          {"cgroup_pressure_memory_some_seconds": 0.1, "cgroup_pressure_memory_full_seconds": 0.2})

    def test_delays_are_amounts_with_no_upper_bound(self):
        # the kernel credits a wait when it ends, an exit record a whole
        # life's: 90.7 s in 0.046 s was seen with 300 children runnable for
        # seconds on two busy CPUs (line_rules.problems says why)
        self.assertPossible(dict(QUIET, proc_threads=4, proc_cpu_delay_seconds=90.7), 0.046, cpus=2)
        self.assertCaught("proc_cpu_delay_seconds", dict(QUIET, proc_cpu_delay_seconds=-0.1), 1.0)
        self.assertCaught("proc_blkio_delay_seconds", dict(QUIET, proc_blkio_delay_seconds=float("nan")), 1.0)


class ThroughTheHarness(unittest.TestCase):
    """The paths the integration tests read lines through apply the rules."""

    def test_parse_line(self):
        h.parse_line(lp(LINE, TS))
        with self.assertRaises(r.ImpossibleLine):
            h.parse_line(lp(dict(LINE, proc_rss_min=9000), TS))
        with self.assertRaises(r.ImpossibleLine):
            h.parse_line(lp(dict(LINE, proc_io_read_bytes=-5), TS))
        # a line of proctree's that does not say its interval
        with self.assertRaisesRegex(r.ImpossibleLine, "collector_interval_seconds: absent"):
            h.parse_line(lp(QUIET, TS))
        h.parse_line(lp(QUIET, TS).replace("proctree,", "other,"))  # another program's line need not

    def test_batches_hold_the_interval_to_the_timestamps(self):
        busy = dict(LINE, proc_cpu_user_seconds=float(CPUS), proc_cpu_system_seconds=0.0)
        batches(LINE, busy)  # CPUS s in 1 s: possible
        with self.assertRaisesRegex(r.ImpossibleLine, "collector_interval_seconds: 1.0 s > the 0.500000 s"):
            batches(LINE, busy, step=SEC // 2)  # a line of 1 s, 0.5 s after the one before: not
        with self.assertRaisesRegex(r.ImpossibleLine, "proc_cpu_user_seconds"):
            batches(LINE, dict(busy, collector_interval_seconds=0.5), step=SEC // 2)  # CPUS s in 0.5 s: not
        # the first batch: its own interval judges it
        batches(busy)
        with self.assertRaisesRegex(r.ImpossibleLine, "proc_cpu_user_seconds"):
            batches(dict(busy, collector_interval_seconds=0.5))
        # another target's lines in between do not shorten an interval
        lines = [lp(LINE, TS), lp(LINE, TS + SEC // 2, target="other"), lp(busy, TS + SEC)]
        h.group_batches([h.parse_line(x) for x in lines])

    def test_counters_withheld_by_a_short_interval(self):
        # short of descriptors, a line leaves the counters out; the next
        # carries their deltas over both intervals, saying its own
        short = {"collector_interval_seconds": 1.0, "collector_samples": 10}
        caught_up = dict(LINE, proc_cpu_user_seconds=1.5 * CPUS, proc_cpu_system_seconds=0.0)
        batches(LINE, short, caught_up)
        with self.assertRaisesRegex(r.ImpossibleLine, "proc_cpu_user_seconds"):
            batches(LINE, LINE, caught_up)
        with self.assertRaisesRegex(r.ImpossibleLine, "proc_cpu_user_seconds"):  # once, not for ever after
            batches(LINE, short, dict(caught_up, proc_cpu_user_seconds=0.0), caught_up)

    def test_pressure_in_batches(self):
        with self.assertRaises(r.ImpossibleLine):
            batches({"cgroup_pressure_cpu_some_seconds": 0.0, "collector_interval_seconds": 1.0},
                    {"cgroup_pressure_cpu_some_seconds": 7.5, "collector_interval_seconds": 1.0})

    def test_a_float_in_exponent_form(self):
        # the "7.5 s in a 1 s interval" read from 7.5e-05 (75 us)
        tiny = lp(LINE, TS).replace("proc_cpu_percent=1.0", "cgroup_pressure_cpu_some_seconds=7.5e-05")
        with self.assertRaisesRegex(r.ImpossibleLine, "read as 7.5 by a person"):
            r.check_written(tiny)
        self.assertEqual(h.parse_line(tiny).fields["cgroup_pressure_cpu_some_seconds"], 7.5e-05)
        huge = lp(LINE, TS).replace("proc_cpu_percent=1.0", "proc_cpu_percent=1e+15")  # not misread as 1
        for plain in (lp(LINE, TS), tiny.replace("7.5e-05", "0.000075"), huge):
            self.assertEqual(r.check_written(plain), plain)
        with self.assertRaises(r.ImpossibleLine):
            r.check_written(lp(LINE, TS).replace("proc_cpu_user_seconds=0.01", "proc_cpu_user_seconds=1e-09"))

    def test_assert_line_possible(self):
        p = h.parse_line(lp(dict(QUIET, proc_cpu_user_seconds=10000.0), TS).replace("proctree,", "other,"))
        h.assert_line_possible(self, p)  # no interval: the time is not judged
        with self.assertRaises(AssertionError):
            h.assert_line_possible(self, p, seconds=1.0)

    def test_collectd_csv_joined_by_epoch(self):
        with tempfile.TemporaryDirectory() as d:
            c = Collectd.__new__(Collectd)
            c.csv_dir = os.path.join(d, "csv")
            c.totals = False
            inst = os.path.join(c.csv_dir, HOSTNAME, "proctree-t")
            os.makedirs(inst)

            def write(type_, metric, rows):
                with open(os.path.join(inst, f"{type_}-{metric}-2026-12-04"), "w") as f:
                    f.write("epoch,value\n" + "".join(f"{e:.3f},{v}\n" for e, v in rows))

            write("memory", "proc_rss_min", [(100.0, 10), (101.0, 10)])
            write("memory", "proc_rss_max", [(100.0, 20), (101.0, 20)])
            write("duration", "cgroup_pressure_cpu_some_seconds", [(100.0, 0.0), (101.0, 0.5)])
            # every epoch but the newest (collectd may be writing it) says its interval
            with self.assertRaisesRegex(r.ImpossibleLine, "(?s)at 100.0: .*collector_interval_seconds: absent"):
                c.csv_rows("t", "proc_rss_max")
            write("duration", "collector_interval_seconds", [(100.0, 1.0)])
            self.assertEqual(len(c.csv_rows("t", "proc_rss_max")), 2)
            write("duration", "collector_interval_seconds", [(100.0, 1.0), (101.0, 1.5)])  # 1.5 s in 1 s
            with self.assertRaisesRegex(r.ImpossibleLine, "collector_interval_seconds: 1.5 s > the 1.000000 s"):
                c.csv_rows("t", "proc_rss_max")
            write("duration", "collector_interval_seconds", [(100.0, 1.0), (101.0, 1.0)])
            self.assertEqual(len(c.csv_rows("t", "proc_rss_max")), 2)
            write("memory", "proc_rss_max", [(100.0, 20), (101.0, 5)])  # below its min at 101
            with self.assertRaises(r.ImpossibleLine):
                c.csv_rows("t", "proc_rss_max")
            write("memory", "proc_rss_max", [(100.0, 20), (101.0, 20)])
            write("duration", "cgroup_pressure_cpu_some_seconds", [(100.0, 0.0), (101.0, 7.5)])
            with self.assertRaises(r.ImpossibleLine):
                c.csv_rows("t", "proc_rss_max")

    def test_total_mode(self):
        # the catalog's amounts, read from catalog.h
        self.assertIn("proc_io_read_bytes", r.DELTAS)
        self.assertIn(r.INTERVAL, r.DELTAS)
        self.assertNotIn("proc_rss_max", r.DELTAS)
        self.assertNotIn("proc_cpu_percent", r.DELTAS)
        self.assertTrue(h.counters_total(["--pid", "1", "--counters", "total"]))
        self.assertTrue(h.counters_total(["--counters=total", "--pid", "1"]))
        self.assertFalse(h.counters_total(["--counters", "total", "--counters", "delta", "--pid", "1"]))
        self.assertFalse(h.counters_total(["--pid", "1", "--", "x", "--counters", "total"]))
        # CPUS s in each 1 s: possible, their totals too, though the third
        # line's total is 3 x CPUS s in a line whose total interval is 3 s
        # and whose own is 1 s
        busy = dict(LINE, proc_cpu_user_seconds=float(CPUS), proc_cpu_system_seconds=0.0, proc_io_read_bytes=10)
        batches(*running(busy, busy, busy), totals=True)
        # read as delta mode's, the totals break the CPU rule
        with self.assertRaisesRegex(r.ImpossibleLine, "proc_cpu_user_seconds"):
            batches(*running(busy, busy, busy))
        # the rules judge the differences: CPUS x 2 s in one 1 s interval is caught
        twice = dict(busy, proc_cpu_user_seconds=2.0 * CPUS)
        with self.assertRaisesRegex(r.ImpossibleLine, "proc_cpu_user_seconds"):
            batches(*running(busy, twice), totals=True)
        # ... and the interval's own: 2 s since the line before 1 s ago is not
        with self.assertRaisesRegex(r.ImpossibleLine, "collector_interval_seconds: 2.0 s > the 1.000000 s"):
            batches(*running(LINE, dict(LINE, collector_interval_seconds=2.0)), totals=True)
        # a total that falls
        lines = running(busy, busy)
        lines.append(dict(lines[-1], proc_io_read_bytes=15, collector_interval_seconds=3.0))
        with self.assertRaisesRegex(r.ImpossibleLine, "total mode: proc_io_read_bytes fell from 20 to 15"):
            batches(*lines, totals=True)
        # a line read alone: only what totals obey as they are
        h.parse_line(lp(running(busy, busy, busy)[-1], TS), totals=True)
        with self.assertRaises(r.ImpossibleLine):
            h.parse_line(lp(dict(running(busy)[0], proc_rss_min=9000), TS), totals=True)
        with self.assertRaises(r.ImpossibleLine):
            h.parse_line(lp(dict(running(busy)[0], proc_io_read_bytes=-1), TS), totals=True)
        # counters withheld by a short line (absent there): the next line's
        # difference spans both intervals, as in delta mode
        short = {"collector_interval_seconds": 1.0, "collector_samples": 10}
        caught_up = dict(LINE, proc_cpu_user_seconds=1.5 * CPUS, proc_cpu_system_seconds=0.0)
        batches(*running(LINE, short, caught_up), totals=True)
        with self.assertRaisesRegex(r.ImpossibleLine, "proc_cpu_user_seconds"):
            batches(*running(LINE, LINE, caught_up), totals=True)

    def test_collectd_csv_in_total_mode(self):
        with tempfile.TemporaryDirectory() as d:
            c = Collectd.__new__(Collectd)
            c.csv_dir = os.path.join(d, "csv")
            c.totals = True
            inst = os.path.join(c.csv_dir, HOSTNAME, "proctree-t")
            os.makedirs(inst)

            def write(type_, metric, rows):
                with open(os.path.join(inst, f"{type_}-{metric}-2026-12-04"), "w") as f:
                    f.write("epoch,value\n" + "".join(f"{e:.3f},{v}\n" for e, v in rows))

            epochs = [100.0, 101.0, 102.0]
            write("duration", "collector_interval_seconds", [(e, i + 1.0) for i, e in enumerate(epochs)])
            write("duration", "cgroup_pressure_cpu_some_seconds", [(e, 0.9 * (i + 1)) for i, e in enumerate(epochs)])
            self.assertEqual(len(c.csv_rows("t", "collector_interval_seconds")), 3)
            c.totals = False  # 1.8 s of stall in a 1 s line, read as delta mode's
            with self.assertRaises(r.ImpossibleLine):
                c.csv_rows("t", "collector_interval_seconds")
            c.totals = True
            write("duration", "cgroup_pressure_cpu_some_seconds", [(100.0, 0.5), (101.0, 0.4), (102.0, 0.6)])
            with self.assertRaisesRegex(r.ImpossibleLine, "fell from 0.5 to 0.4"):
                c.csv_rows("t", "collector_interval_seconds")
            write("duration", "cgroup_pressure_cpu_some_seconds", [(100.0, 0.5), (101.0, 2.0), (102.0, 2.1)])
            with self.assertRaisesRegex(r.ImpossibleLine, "(?s)at 101.0: .*cgroup_pressure_cpu_some_seconds: 1.5 >"):
                c.csv_rows("t", "collector_interval_seconds")

    def test_influxdb_rows(self):
        db = h.InfluxDB.__new__(h.InfluxDB)

        def answer(*rows):
            db.query = lambda _db, _q: {"series": [{"name": "proctree_value", "tags": {"type_instance": m},
                                                    "columns": ["time", "value"], "values": [[1, v]]}
                                                   for m, v in rows]}

        answer(("proc_rss_max", 5.0))
        self.assertEqual(db.rows("x", "q")[0]["value"], 5.0)
        answer(("proc_io_read_bytes", -1.0))
        with self.assertRaises(r.ImpossibleLine):
            db.rows("x", "q")
        # a computed column is no metric
        db.query = lambda _db, _q: {"series": [{"name": "p", "columns": ["time", "derivative"],
                                                "values": [[1, -3.0]]}]}
        db.rows("x", "q")


if __name__ == "__main__":
    unittest.main()
