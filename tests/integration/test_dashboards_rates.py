"""The dashboards' rate panels give the same rate at any zoom, on InfluxDB
and Graphite.

Why: proctree reports amounts per interval. A panel that draws sum(amount)
per time bucket grows with the bucket (zoomed out ten times, ten times
higher) and, with buckets narrower than the agent's interval, alternates
between a whole interval's amount and nothing. The panels divide instead:
sum(amount) / sum(collector_interval_seconds) per bucket (docs/DASHBOARDS.md,
"Rates").

A process reads /dev/zero at 10 MB/s, paced by the clock (behind, it
catches up, so each interval holds its share to a read or two), from before
the agents start until the test ends. Measured at a 10 s interval, by
proctree-execd under Telegraf (a request every 10 s) into InfluxDB, and by
collectd (Interval 10) into Graphite (write_graphite, carbon, graphite-web)
and into InfluxDB's [[collectd]] listener (docs/DASHBOARDS.md's blocks, the
port replaced). The I/O rate panel's read(2) query of each of the three
dashboards, run on the real databases with $__interval at 1 s, 10 s and 1
min over the measured time, answers 10 MB/s within 5 % in every bucket that
holds a line; at 1 s the buckets with a line are several, at 1 min at most
two. Every line Telegraf wrote passes the line rules, its interval within
2 % of the agent's.
"""

import contextlib
import os
import subprocess
import sys
import tempfile
import unittest

import collectd_harness as ch
import harness as h
import line_rules
import telegraf_harness as th
from grafana_helpers import graphite_target, influx_vars, interpolate
from test_dashboards import doc_block, load

TELEGRAF = th.telegraf_or_skip()
RATE = 10_000_000  # bytes per second
SHARE = 0.05
INTERVAL_S = 10
# Grafana's $__interval at three zooms: narrower than the agent's interval,
# equal to it, and wider
BUCKETS = ("1s", "10s", "1m")
LINES = 4  # batches of each agent before the queries: 40 s of measure
TARGET = "reader"
METRIC = "proc_io_read_bytes"
PANEL = "I/O rate: read(2)/write(2) family and storage"
TG_DB, CD_DB = "telegraf", "collectd"

READER = r"""
import os, sys, time
rate, chunk = int(sys.argv[1]), 64 << 10
fd = os.open("/dev/zero", os.O_RDONLY)
start, done = time.monotonic(), 0
print("ready", flush=True)
while True:
    due = int(rate * (time.monotonic() - start))
    while done < due:
        done += len(os.read(fd, min(chunk, due - done)))
    time.sleep(0.01)
"""


def panel_target(dashboard):
    """The query (or Graphite target) of the read(2) bytes in the I/O rate panel."""
    for p in load(dashboard)["panels"]:
        if p.get("title") == PANEL:
            for t in p["targets"]:
                if METRIC in (t.get("query") or t.get("target")):
                    return t
    raise AssertionError(f"{dashboard}: no {METRIC} in the panel {PANEL!r}")


class Rates(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)
        cls.tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-rates-"))
        port = str(ch.free_udp_port())
        network, listener = doc_block("collectd-network"), doc_block("influxdb-collectd")
        cls.influx = stack.enter_context(h.InfluxDB(extra_config=listener.replace("25826", port)))
        stack.callback(ch.stop_influxd_quickly, cls.influx)
        cls.influx.create_database(TG_DB)
        cls.carbon = stack.enter_context(ch.Carbon(cls.tmp))
        cls.graphite = stack.enter_context(ch.GraphiteWeb(cls.tmp, cls.carbon))
        cls.reader = subprocess.Popen([sys.executable, "-c", READER, str(RATE)], stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, text=True)
        stack.callback(h.stop_process, cls.reader)
        assert cls.reader.stdout.readline().strip() == "ready"
        cls.telegraf = stack.enter_context(th.Telegraf(
            TELEGRAF, ["--pid", str(cls.reader.pid), "--name", TARGET], influx=cls.influx, database=TG_DB,
            interval=f"{INTERVAL_S}s"))
        cls.collectd = stack.enter_context(ch.Collectd(
            cls.tmp, ch.process_block(TARGET, f"Pid {cls.reader.pid}"),
            doc_block("collectd-graphite").replace('"2003"', f'"{cls.carbon.line_port}"')
            + network.replace("25826", port), interval=INTERVAL_S))
        timeout = (LINES + 3) * INTERVAL_S + h.START_TIMEOUT
        cls.telegraf.wait_batches(LINES, timeout=timeout)
        cls.collectd.wait_csv(TARGET, METRIC, count=LINES, timeout=timeout)
        # the databases have caught up with what the agents printed by then
        cls.last_tg = cls.telegraf.batches()[-1][0]
        cls.last_cd = cls.collectd.csv_rows(TARGET, METRIC)[-1][0]
        h.wait_until(lambda: cls.influx.rows(TG_DB, f'SELECT last("{METRIC}") FROM "proctree" '
                                             f"WHERE time >= {cls.last_tg}"), h.START_TIMEOUT, "Telegraf's writes")
        h.wait_until(lambda: cls.listener_rows(int(cls.last_cd * 1e9) - 1_000_000), h.START_TIMEOUT,
                     "the [[collectd]] listener's writes")
        h.wait_until(lambda: [v for s in cls.graphite.render_json(
            [f"{ch.HOSTNAME}.proctree-{TARGET}.bytes-{METRIC}"], int(cls.last_cd) - 1, int(cls.last_cd) + 2)
            for v, e in s["datapoints"] if v is not None], h.START_TIMEOUT, "carbon's points in graphite-web")
        cls.end_ns = int(max(cls.last_tg, cls.last_cd * 1e9)) + 1_000_000_000
        # Each agent's first line is left out of the measured time: it counts
        # from the moment proctree found the target, which can be moments
        # before the agent's first gather (Telegraf's ticks are aligned to
        # the interval), and a reader that reads every 10 ms has then read
        # nothing yet: a 1 s bucket holding that line alone said 0 B/s.
        cls.start_tg = cls.telegraf.batches()[0][0] + 1
        cls.start_cd = int(cls.collectd.csv_rows(TARGET, METRIC)[0][0] * 1e9) + 1

    @classmethod
    def listener_rows(cls, since_ns):
        try:
            return cls.influx.rows(CD_DB, f"SELECT last(\"value\") FROM \"proctree\" WHERE \"type_instance\" = "
                                   f"'{METRIC}' AND time >= {since_ns}")
        except AssertionError as e:
            if "database not found" in str(e):
                return []
            raise

    def influx_rates(self, db, host, query, bucket, start_ns):
        q = interpolate(query, influx_vars(host, TARGET, start_ns, self.end_ns, interval=bucket))
        result = self.influx.query(db, q)
        return [v for s in result.get("series", []) for row in s["values"] for v in row[1:] if v is not None]

    def graphite_rates(self, target, bucket):
        t = graphite_target(target, {"host": ch.HOSTNAME, "target": TARGET, "__interval": bucket})
        # graphite-web takes whole seconds: from the one after the first line's
        series = self.graphite.render_json([t], self.start_cd // 10**9 + 1, -(-self.end_ns // 10**9))
        return [v for s in series for v, _ in s["datapoints"] if v is not None]

    def assert_rates(self, what, rates_of):
        seen = {}
        for bucket in BUCKETS:
            rates = rates_of(bucket)
            seen[bucket] = len(rates)
            self.assertTrue(rates, f"{what}: no bucket of {bucket} holds a line")
            for r in rates:
                self.assertLessEqual(abs(r - RATE), SHARE * RATE,
                                     f"{what}: a bucket of {bucket} says {r:.0f} B/s, not {RATE} B/s: {rates}")
        # the zoom changed the buckets: many narrow ones with a line, few wide
        self.assertGreaterEqual(seen["1s"], LINES - 1, f"{what}: {seen}")
        self.assertLessEqual(seen["1m"], 2, f"{what}: {seen}")

    def test_telegraf_influxdb(self):
        batches = [b for b in self.telegraf.batches() if b[0] <= self.last_tg]
        for _, points in batches:
            line = h.target_line(points, TARGET)
            line_rules.check_line(line.fields, seconds=line.fields["collector_interval_seconds"], tags=line.tags,
                                  raw=line.raw)
        for (t0, _), (t1, points) in zip(batches, batches[1:]):
            interval = h.target_line(points, TARGET).fields["collector_interval_seconds"]
            self.assertLessEqual(abs(interval - (t1 - t0) / 1e9), 0.02 * (t1 - t0) / 1e9, f"{t0} .. {t1}")
        query = panel_target("proctree-telegraf-influxdb.json")["query"]
        self.assert_rates("Telegraf, InfluxDB", lambda b: self.influx_rates(TG_DB, th.HOSTNAME, query, b, self.start_tg))

    def test_collectd_graphite(self):
        target = panel_target("proctree-collectd-graphite.json")["target"]
        self.assert_rates("collectd, Graphite", lambda b: self.graphite_rates(target, b))

    def test_collectd_influxdb(self):
        query = panel_target("proctree-collectd-influxdb.json")["query"]
        self.assert_rates("collectd, InfluxDB", lambda b: self.influx_rates(CD_DB, ch.HOSTNAME, query, b, self.start_cd))


if __name__ == "__main__":
    unittest.main(verbosity=2)
