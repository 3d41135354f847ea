"""docs/TELEGRAF.md's telegraf.conf works as written, into what the dashboard reads.

Why: a new user copies the page's configuration whole and looks at the
numbers with the Telegraf dashboard (packaging/dashboards/
proctree-telegraf-influxdb.json). So the test takes the block between
<!-- telegraf-conf:begin --> and <!-- telegraf-conf:end --> out of the page
itself and runs the real Telegraf with it, every line as written except
what a test host must change (SUBSTITUTIONS below, each of which must occur
in the block exactly once, so that a changed page fails here rather than
being tested with something else):

* "/usr/bin/proctree-execd": the one this build made;
* "/run/nginx.pid": a pid file in the test's temp dir naming the root of a
  memtree (NPROCS processes of MIB_EACH MiB each, idle), which the test starts;
* "http://127.0.0.1:8086": the same URL with a free loopback port, that of
  an influxd the test starts with its data in a temp dir and no database
  (Telegraf must create the one the page names);
* Telegraf's own files (logfile, statefile): the page sets none, and the
  test fails if it comes to, until it is substituted here too.

Then it reads back as Grafana would. The database is "telegraf", the one
the dashboards test feeds and docs/DASHBOARDS.md names. The dashboard's Host
and Target variables answer this host's name and the page's target (nginx).
The page's own queries (<!-- telegraf-query:begin -->) are the dashboard's
Host query and its "Live processes and threads" query with the variables put
in as Grafana does (web1 for the host, the page's target and interval, the
last 5 minutes), and run with the host's name for web1 they give, in each
10 s bucket gathered (one batch), the tree's size. The dashboard's RSS band,
[min(proc_rss_min), max(proc_rss_max)] per bucket over the run, lies within
RSS_TOLERANCE of the tree's /proc/PID/statm sum, read before and after (the
tree is idle), min never above max. Every row stored passes line_rules (no
negative amount, no min above its max, no more CPU time than the interval
holds), and Telegraf's log has no parse error and no unprefixed stderr.
"""

import json
import os
import re
import socket
import subprocess
import tempfile
import time
import tomllib
import unittest

import harness as h
import line_rules
import telegraf_harness as th
from grafana_helpers import grafana_escape_regex, influx_vars, interpolate

TELEGRAF = th.telegraf_or_skip()
DOC = os.path.join(h.SOURCE_ROOT, "docs", "TELEGRAF.md")
DASHBOARD = os.path.join(h.SOURCE_ROOT, "packaging", "dashboards", "proctree-telegraf-influxdb.json")
DATABASE = "telegraf"  # test_dashboards.TG_DB, docs/DASHBOARDS.md's import step
DOC_HOST = "web1"  # the page's query's stand-in for the host's name
NPROCS = 3
MIB_EACH = 32
RSS_TOLERANCE = 0.02
BUCKETS = 2  # intervals gathered and read back


def substitutions(execd, pidfile, influx_port):
    """(what, as the page writes it, as this host needs it): the only
    changes made to the page's block."""
    return [("proctree-execd: the one built here", th.toml_string("/usr/bin/proctree-execd"), th.toml_string(execd)),
            ("the target's pid file: the test's memtree", th.toml_string("/run/nginx.pid"), th.toml_string(pidfile)),
            ("InfluxDB: the test's influxd on a free port", th.toml_string("http://127.0.0.1:8086"),
             th.toml_string(f"http://127.0.0.1:{influx_port}"))]


def seconds_of(duration):
    """A Telegraf duration as this page writes them ("10s")."""
    m = re.fullmatch(r"([0-9]+)s", duration)
    if not m:
        raise AssertionError(f"interval {duration!r}: not N s, which this test reads")
    return int(m.group(1))


class DocTelegraf(th.TelegrafRun):
    """The real Telegraf with a configuration given whole; stopped by its own pid."""

    def __init__(self, telegraf, text):
        super().__init__("proctree-telegraf-doc-")
        self.write_config(text)
        self.proc = subprocess.Popen([telegraf, "--config", self.config_path], stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def stop_running(self):
        h.stop_process(self.proc, timeout=15.0)


class TelegrafDocTest(unittest.TestCase):
    def setUp(self):
        with open(DASHBOARD, encoding="utf-8") as f:
            self.dashboard = json.load(f)
        self.host = socket.gethostname()  # Telegraf's host tag: os.Hostname()

    def variable_query(self, name):
        (var,) = [v for v in self.dashboard["templating"]["list"] if v["name"] == name]
        return var["query"]

    def panel_query(self, select):
        """The dashboard's one query of a target's own line that starts so."""
        found = [t["query"] for p in self.dashboard["panels"] for t in p.get("targets", [])
                 if t.get("query", "").startswith(select + " ") and "\"process\" = ''" in t["query"]]
        self.assertEqual(len(found), 1, f"{select}: {found}")
        return found[0]

    def values(self, influx, query):
        """{bucket time: value} of a one-column query, nulls left out; {}
        while the database Telegraf creates is not there yet."""
        try:
            result = influx.query(DATABASE, query)
        except AssertionError as e:
            if "database not found" in str(e):
                return {}
            raise
        return {row[0]: row[1] for s in result.get("series", []) for row in s["values"] if row[1] is not None}

    def test_page_configuration_into_the_dashboard(self):
        block = h.doc_block(DOC, "telegraf-conf")
        as_written = tomllib.loads(block)
        agent = as_written["agent"]
        for key in ("logfile", "statefile"):
            self.assertFalse(agent.get(key), f"the page's [agent] sets {key}: a path of the host, to substitute")
        (output,) = as_written["outputs"]["influxdb"]
        self.assertEqual(output["database"], DATABASE, "the dashboards' database")
        command = as_written["inputs"]["execd"][0]["command"]
        target = command[command.index("--name") + 1]
        interval = agent["interval"]
        seconds = seconds_of(interval)
        self.assertEqual(agent["flush_interval"], interval)

        with h.memtree(NPROCS, MIB_EACH) as tree, \
                h.InfluxDB() as influx, \
                tempfile.TemporaryDirectory(prefix="proctree-telegraf-doc-") as tmp:
            pids = h.descendants_and_self(tree.pid)
            self.assertEqual(sorted(pids), sorted(tree.ready_pids), "memtree's members per /proc")
            pidfile = os.path.join(tmp, "nginx.pid")
            h.write_pidfile(pidfile, tree.pid)
            text = block
            for what, written, here in substitutions(h.execd_path(), pidfile, influx.http_port):
                self.assertEqual(text.count(written), 1, f"{what}: {written} in the page's block\n{block}")
                text = text.replace(written, here)
            rss_before = h.tree_resident_bytes(pids)
            start_ns = time.time_ns()
            with DocTelegraf(TELEGRAF, text) as telegraf:
                processes_query = self.panel_query('SELECT last("proc_processes")')

                def buckets():
                    got = self.values(influx, interpolate(processes_query, influx_vars(
                        self.host, target, start_ns, time.time_ns() + 1_000_000_000, interval=interval)))
                    return got if len(got) >= BUCKETS else None
                try:
                    seen = h.wait_until(buckets, 4 * seconds + h.START_TIMEOUT, f"{BUCKETS} intervals in InfluxDB",
                                        interval=0.5)
                except AssertionError as e:
                    raise AssertionError(f"{e}\n{telegraf.describe()}\n{influx.log_tail()}") from None
                # Up to the end of the last bucket seen, whose batch is
                # written, and so is every batch before it (Telegraf
                # writes in order): later flushes change no answer below.
                end_ns = max(seen) + seconds * 1_000_000_000 - 1_000_000
                rss_after = h.tree_resident_bytes(pids)
                th.assert_clean_log(self, telegraf)
                self.check_variables(influx, target)
                self.check_page_queries(influx, processes_query, target, interval)
                self.check_dashboard_numbers(influx, target, start_ns, end_ns, interval,
                                             (rss_before + rss_after) / 2)
                self.assertLess(abs(rss_after - rss_before), 0.005 * rss_before, "the idle tree changed")
                self.check_every_row(influx)

    def check_variables(self, influx, target):
        """The dashboard's Host and Target lists, as Grafana fills them."""
        hosts = [r["value"] for r in influx.rows(DATABASE, self.variable_query("host"))]
        self.assertEqual(hosts, [self.host])
        targets = [r["value"] for r in influx.rows(DATABASE, interpolate(self.variable_query("target"),
                                                                          {"host": self.host}))]
        self.assertEqual(targets, [target])

    def check_page_queries(self, influx, processes_query, target, interval):
        """The page's queries are the dashboard's, Grafana's way, and answer the tree's size."""
        show, select = h.doc_block(DOC, "telegraf-query").strip("\n").split("\n")
        self.assertEqual(show, self.variable_query("host"))
        self.assertEqual(select, interpolate(processes_query, {
            "host": DOC_HOST, "target": target, "timeFilter": "time >= now() - 5m", "__interval": interval}))
        placeholder = f"/^{DOC_HOST}$/"
        self.assertEqual(select.count(placeholder), 1, select)
        answer = self.values(influx, select.replace(placeholder, f"/^{grafana_escape_regex(self.host)}$/"))
        self.assertGreaterEqual(len(answer), BUCKETS, select)
        self.assertEqual(set(answer.values()), {NPROCS}, answer)

    def check_dashboard_numbers(self, influx, target, start_ns, end_ns, interval, rss_truth):
        """The Memory row's band and the Processes row over the run, per bucket (one batch each)."""
        variables = influx_vars(self.host, target, start_ns, end_ns, interval=interval)
        low = self.values(influx, interpolate(self.panel_query('SELECT min("proc_rss_min")'), variables))
        high = self.values(influx, interpolate(self.panel_query('SELECT max("proc_rss_max")'), variables))
        processes = self.values(influx, interpolate(self.panel_query('SELECT last("proc_processes")'), variables))
        self.assertGreaterEqual(len(processes), BUCKETS, processes)
        self.assertEqual(set(processes.values()), {NPROCS}, processes)
        self.assertEqual(set(low), set(processes), "an RSS band in each bucket gathered")
        self.assertEqual(set(high), set(processes), "an RSS band in each bucket gathered")
        for bucket in processes:
            lo, hi = low[bucket], high[bucket]
            self.assertLessEqual(lo, hi, f"bucket {bucket}")
            for name, value in (("min", lo), ("max", hi)):
                self.assertLess(abs(value - rss_truth), RSS_TOLERANCE * rss_truth,
                                f"bucket {bucket}: RSS {name} {value} vs statm sum {rss_truth:.0f}")

    def check_every_row(self, influx):
        """No impossible value in anything stored; an interval's rules on
        each row after the first of its series, whose interval is the time
        since the row before (proctree's timestamps, each a batch's end)."""
        rows = influx.rows(DATABASE, 'SELECT * FROM "proctree" GROUP BY *')
        self.assertTrue(rows)
        last = {}
        names = h.metric_names()
        for row in sorted(rows, key=lambda r: r["time"]):
            self.assertEqual(row["host"], self.host, row)
            series = row.get("target") or ""
            metrics = {k: v for k, v in row.items() if k in names and v is not None}
            before = last.get(series)
            line_rules.check_line(metrics, (row["time"] - before) / 1e9 if before is not None else None,
                                  tags=row, raw=row)
            last[series] = row["time"]


if __name__ == "__main__":
    unittest.main(verbosity=2)
