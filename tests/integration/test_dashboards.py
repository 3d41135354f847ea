"""The Grafana dashboards (packaging/dashboards/) work against the real
databases, fed by both frontends measuring one real workload.

Why: a dashboard that imports but whose queries name a wrong measurement,
tag or path shows empty panels, and one whose numbers are off by a unit or
a folding shows wrong ones. So, from one run:

* a workload in a cgroup of the test's own (memory held, I/O to a file,
  children that exit 0, exit 3 and are killed, a sleeper, some CPU), measured
  as a cgroup target with a breakdown by process by proctree-execd under the
  real Telegraf (outputs.influxdb and outputs.file) and by collectd with the
  built proctree.so (csv, write_graphite to a real carbon-cache, and the
  network plugin to InfluxDB's [[collectd]] listener);
* the collectd network and write_graphite blocks and the [[collectd]]
  listener block are read verbatim out of docs/DASHBOARDS.md and used,
  with 25826 replaced by a free port as the doc says, and 2003 by carbon's;
* every query of every panel of the three dashboards, and every variable's
  query, is run against the real influxd and Debian's graphite-web (its
  render and find APIs) with Grafana's template variables put in as Grafana
  does ($host, $target, $by, $timeFilter as epoch milliseconds,
  $__interval; ${var:regex} regex-escaped, a variable inside a /regex/
  without it refused): each panel returns data, and each query does unless its
  metric is absent from the frontend's own output too (e.g. the block-I/O
  delay while kernel.task_delayacct is 0), which is then checked to be
  absent from the dashboard's answer as well;
* for each row, one number of one interval equals what the frontend printed
  for it: proctree-execd's line (as Telegraf's outputs.file holds it) for
  the Telegraf dashboard, collectd's csv row for the two collectd ones;
* two more targets, named "a/b.c(d)|e" (a --match pattern's characters)
  and "a", each answer every panel's query for themselves alone;
* the dashboards are what packaging/dashboards/generate writes, and they
  pass a structural schema of what Grafana's import reads, the export
  envelope (__inputs) included (Grafana's own schema, from its foundation
  SDK, is dashboards-grafana-schema's: see docs/DASHBOARDS.md);
* packaging/dashboards/render-pictures draws a non-empty PNG of every
  panel it names from graphite-web (PROCTREE_PICTURES_OUT keeps them, which
  is how docs/pictures/ is made).
"""

import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

import cgroup_helpers as cgh
import collectd_harness as ch
import harness as h
import telegraf_harness as th
from grafana_helpers import graphite_target, influx_vars, interpolate

TELEGRAF = th.telegraf_or_skip()
DASHBOARDS = os.path.join(h.SOURCE_ROOT, "packaging", "dashboards")
DOC = os.path.join(h.SOURCE_ROOT, "docs", "DASHBOARDS.md")
TARGET = "work"
# Beside it, targets whose names are regex and path syntax, and a prefix of
# one: a name put raw in /^$target$/ breaks the query or matches others.
OTHER_TARGETS = ("a/b.c(d)|e", "a")
GROUP = "python3"  # the workload's processes' comm: a breakdown group
TG_DB, CD_DB = "telegraf", "collectd"
UNIQ = f"pt-dash-{os.getpid()}"
# Which metric of each row is compared with the frontend's own number.
ROW_CHECKS = {"Memory": "proc_rss_max", "CPU": "proc_cpu_user_seconds", "I/O": "proc_io_write_bytes",
              "Processes": "proc_processes_started", "Descriptors": "proc_fds", "Network": "proc_net_tcp_sent_bytes",
              "GPU": "proc_gpu_memory_max",
              "cgroup (cgroup targets)": "cgroup_memory_current_max",
              "Network namespace (a tree with a network of its own)": "netns_received_bytes",
              "Breakdown": "proc_rss_max",
              "Collector's own cost": "collector_samples"}
# Rows whose metric the frontends leave out where the host lacks what it
# measures (a GPU), or the workload (a network namespace of its own: it is
# in proctree's): their number is compared only where it was printed.
ROWS_OF_THE_HOST = {"GPU", "Network namespace (a tree with a network of its own)"}
METRIC = re.compile(r"\b((?:proc|global|cgroup|collector|netns)_[a-z_]+)\b")
INTERVAL = "collector_interval_seconds"
# An amount is drawn as a rate (docs/DASHBOARDS.md): its unit, and what
# the amount over the interval is multiplied by.
RATE_UNIT = {"BYTES": ("Bps", 1), "SECONDS": ("percent", 100), "NUMBER": ("cps", 1)}
# collectd's csv prints a value to the microunit (%lf)
CSV_ULP = 5e-7
CATALOG, KINDS = h.catalog(), h.catalog_kinds()

WORKLOAD = r"""
import os, select, signal, socket, sys, tempfile, time
held = bytearray(24 << 20)
listener = socket.create_server(("127.0.0.1", 0))
sender = socket.create_connection(listener.getsockname())
receiver, _ = listener.accept()
for i in range(0, len(held), 4096):
    held[i] = 1
sleeper = os.fork()
if sleeper == 0:
    os.execvp("sleep", ["sleep", "100000"])
fd, path = tempfile.mkstemp(prefix="proctree-dash-")
block = os.urandom(256 << 10)
print("ready", os.getpid(), flush=True)
while not select.select([sys.stdin], [], [], 0.2)[0]:
    os.lseek(fd, 0, 0)
    os.write(fd, block)
    os.fsync(fd)
    os.lseek(fd, 0, 0)
    os.read(fd, len(block))
    sender.sendall(block)  # TCP both ways round the tree: sent and received
    got = 0
    while got < len(block):
        got += len(receiver.recv(len(block) - got))
    for how in ("ok", "fail", "kill"):
        pid = os.fork()
        if pid == 0:
            if how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(0 if how == "ok" else 3)
        os.waitpid(pid, 0)
    t = time.process_time()
    while time.process_time() - t < 0.02:
        pass
os.kill(sleeper, signal.SIGKILL)
os.waitpid(sleeper, 0)
os.unlink(path)
"""


def doc_block(name):
    """The code block between <!-- NAME:begin --> and <!-- NAME:end --> of docs/DASHBOARDS.md."""
    return h.doc_block(DOC, name)


def load(name):
    with open(os.path.join(DASHBOARDS, name), encoding="utf-8") as f:
        return json.load(f)


def panels_by_row(dashboard):
    """[(row title, panel)] in order."""
    out, row = [], None
    for p in dashboard["panels"]:
        if p["type"] == "row":
            row = p["title"]
        else:
            out.append((row, p))
    return out


def metric_of(query):
    """The one metric a query draws: a rate's divisor, the interval, aside."""
    found = set(METRIC.findall(query))
    if len(found) == 2 and INTERVAL in found:
        found.discard(INTERVAL)
    if len(found) != 1:
        raise AssertionError(f"query names {sorted(found)}, not one metric: {query}")
    return found.pop()


class Dashboards(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = cgh.TestCgroup.missing(("memory", "cpu", "cpuacct"))
        if missing:
            raise unittest.SkipTest(f"no cgroup hierarchy for {missing}")
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)  # reverse order: the frontends stop first, the cgroup last
        cls.tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-dash-"))
        cls.cg = stack.enter_context(cgh.TestCgroup(UNIQ, ("memory", "cpu", "cpuacct")))
        # The doc's blocks, its port replaced by a free one in both.
        port = str(ch.free_udp_port())
        cls.network_block = doc_block("collectd-network")
        cls.listener_block = doc_block("influxdb-collectd")
        for block in (cls.network_block, cls.listener_block):
            assert "25826" in block and f'database = "{CD_DB}"' in cls.listener_block, block
        cls.influx = stack.enter_context(h.InfluxDB(extra_config=cls.listener_block.replace("25826", port)))
        stack.callback(ch.stop_influxd_quickly, cls.influx)
        cls.influx.create_database(TG_DB)
        cls.carbon = stack.enter_context(ch.Carbon(cls.tmp))
        cls.graphite = stack.enter_context(ch.GraphiteWeb(cls.tmp, cls.carbon))
        cls.work = cls.cg.spawn([sys.executable, "-c", WORKLOAD])
        stack.callback(cls.work.stop)
        others = []
        for _ in OTHER_TARGETS:
            others.append(subprocess.Popen(["sleep", "100000"], stdin=subprocess.DEVNULL))
            stack.callback(h.stop_process, others[-1])
        cls.start_ns = time.time_ns()
        cls.telegraf = stack.enter_context(th.Telegraf(
            TELEGRAF, ["--cgroup", cls.cg.rel, "--name", TARGET, "--by", "process"]
            + [a for name, p in zip(OTHER_TARGETS, others) for a in ("--pid", str(p.pid), "--name", name)],
            influx=cls.influx, database=TG_DB))
        cls.collectd = stack.enter_context(ch.Collectd(
            cls.tmp, ch.process_block(TARGET, f'Cgroup "{cls.cg.rel}"', 'BreakDown "process"')
            + "".join(ch.process_block(name, f"Pid {p.pid}") for name, p in zip(OTHER_TARGETS, others)),
            doc_block("collectd-graphite").replace('"2003"', f'"{cls.carbon.line_port}"')
            + cls.network_block.replace("25826", port)))
        # Enough intervals that a middle one is whole everywhere.
        cls.telegraf.wait_batches(6, timeout=60)
        cls.collectd.wait_csv(TARGET, "proc_processes_started", count=6, timeout=60)
        h.wait_until(lambda: cls.collectd.csv_rows(f"{TARGET}-{GROUP}", "proc_rss_max"), h.START_TIMEOUT,
                     "collectd's breakdown group")
        # and the databases have caught up with what the frontends printed
        # by then (Telegraf and the listener write once a second, carbon
        # as it can)
        cls.last_tg = last_tg = cls.telegraf.batches()[-1][0]
        cls.last_cd = last_cd = cls.collectd.csv_rows(TARGET, "proc_processes_started")[-1][0]
        h.wait_until(lambda: cls.influx.rows(TG_DB, f'SELECT last("proc_processes") FROM "proctree" '
                                             f"WHERE time >= {last_tg}"), h.START_TIMEOUT, "Telegraf's writes")
        h.wait_until(lambda: cls.listener_has(f"time >= {int(last_cd * 1e9) - 1_000_000}"), h.START_TIMEOUT,
                     "the [[collectd]] listener's writes")
        h.wait_until(lambda: [v for s in cls.graphite.render_json(
            [f"{ch.HOSTNAME}.proctree-{TARGET}.count-proc_processes_started"], int(last_cd) - 1, int(last_cd) + 2)
            for v, e in s["datapoints"] if v is not None and e >= int(last_cd + 0.5)], h.START_TIMEOUT,
            "carbon's points in graphite-web")
        cls.end_ns = time.time_ns() + 1_000_000_000

    @classmethod
    def listener_has(cls, time_cond):
        try:
            return cls.influx.rows(CD_DB, "SELECT last(\"value\") FROM \"proctree\" "
                                   f"WHERE \"type_instance\" = 'proc_processes_started' AND {time_cond}")
        except AssertionError as e:
            if "database not found" in str(e):
                return []
            raise

    # ---------------------------------------------------------- what the frontends printed

    # Only what was printed up to the last interval the databases were seen
    # to hold (setUpClass): the frontends go on meanwhile.

    def telegraf_points(self):
        return [p for p in self.telegraf.points() if p.tags.get("host") == th.HOSTNAME and p.timestamp <= self.last_tg]

    def csv_rows(self, instance, metric):
        return [(e, v) for e, v in self.collectd.csv_rows(instance, metric) if e <= self.last_cd]

    def telegraf_fields(self, scope):
        """Field names proctree-execd printed on the target's total ("total"),
        its breakdown ("group") or the global line."""
        names = set()
        for p in self.telegraf_points():
            if scope == "global" and "target" not in p.tags \
                    or scope == "group" and p.tags.get("process") \
                    or scope == "total" and p.tags.get("target") == TARGET and "process" not in p.tags:
                names.update(p.fields)
        return names

    def collectd_metrics(self, instance):
        d = os.path.join(self.collectd.csv_dir, ch.HOSTNAME, "proctree" + (f"-{instance}" if instance else ""))
        return {name.split("-", 1)[1][:-len("-YYYY-MM-DD")] for name in os.listdir(d)} if os.path.isdir(d) else set()

    def printed(self, backend, panel, metric):
        if backend == "telegraf":
            scope = "group" if self.is_stack(panel) else "global" if metric.startswith("global_") else "total"
            return metric in self.telegraf_fields(scope)
        instance = (f"{TARGET}-{GROUP}" if self.is_stack(panel) else "" if metric.startswith("global_")
                    else TARGET)
        return metric in self.collectd_metrics(instance)

    @staticmethod
    def is_stack(panel):
        return panel["fieldConfig"]["defaults"]["custom"]["stacking"]["mode"] == "normal"

    # ---------------------------------------------------------- running a panel's query

    def influx_series(self, db, query):
        try:
            result = self.influx.query(db, query)
        except AssertionError as e:
            if "database not found" in str(e):
                return []
            raise
        return result.get("series", [])

    @staticmethod
    def influx_values(series):
        return [v for s in series for row in s["values"] for v in row[1:] if v is not None]

    def run_target(self, backend, target, start_ns, end_ns):
        """(non-null values, raw answer) of one panel query."""
        if backend == "graphite":
            t = graphite_target(target["target"], {"host": ch.HOSTNAME, "target": TARGET, "__interval": "1s"})
            series = self.graphite.render_json([t], start_ns // 10**9 - 1, -(-end_ns // 10**9))
            return [v for s in series for v, _ in s["datapoints"] if v is not None], series
        db, host = (TG_DB, th.HOSTNAME) if backend == "telegraf" else (CD_DB, ch.HOSTNAME)
        q = interpolate(target["query"], influx_vars(host, TARGET, start_ns, end_ns,
                                                     "process" if backend == "telegraf" else None))
        series = self.influx_series(db, q)
        return self.influx_values(series), series

    # ---------------------------------------------------------- the tests

    def test_generated_and_structure(self):
        res = subprocess.run([os.path.join(DASHBOARDS, "generate"), "--check"], capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        import jsonschema  # python3-jsonschema (scripts/install-deps)
        with open(os.path.join(os.path.dirname(__file__), "dashboard-structure.schema.json")) as f:
            schema = json.load(f)
        cat, kinds = CATALOG, KINDS
        for name in ("proctree-telegraf-influxdb.json", "proctree-collectd-influxdb.json",
                     "proctree-collectd-graphite.json"):
            d = load(name)
            jsonschema.validate(d, schema)
            ids = [p["id"] for p in d["panels"]]
            self.assertEqual(len(ids), len(set(ids)), name)
            rows = [p["title"] for p in d["panels"] if p["type"] == "row"]
            self.assertEqual(rows, list(ROW_CHECKS), name)
            for _, panel in panels_by_row(d):
                unit = panel["fieldConfig"]["defaults"]["unit"]
                for t in panel["targets"]:
                    m = metric_of(t.get("query") or t.get("target"))
                    want = {"PROC_MEMORY": "bytes", "GLOBAL_MEMORY": "bytes", "BYTES": "bytes", "SECONDS": "s",
                            "PERCENT": "percent", "NUMBER": "short"}[cat[m][1]]
                    if kinds[m] == "DELTA":
                        want = RATE_UNIT[cat[m][1]][0]
                        q = t.get("query") or t.get("target")
                        self.assertIn(INTERVAL, q, f"{name}: {panel['title']}: {m} is drawn as a rate")
                    self.assertEqual(unit, want, f"{name}: {panel['title']}: {m}")

    def test_variables(self):
        for name, backend in (("proctree-telegraf-influxdb.json", "telegraf"),
                              ("proctree-collectd-influxdb.json", "collectd"),
                              ("proctree-collectd-graphite.json", "graphite")):
            host = th.HOSTNAME if backend == "telegraf" else ch.HOSTNAME
            for var in load(name)["templating"]["list"]:
                if var["type"] != "query":
                    continue
                q = interpolate(var["query"], {"host": host})
                if backend == "graphite":
                    found = [m["text"] for m in json.loads(self.graphite.get("/metrics/find", [("query", q)]))]
                    if var["regex"]:
                        rx = re.compile(var["regex"].strip("/"))
                        found = [rx.match(f).group(1) for f in found if rx.match(f)]
                else:
                    found = [r["value"] for r in self.influx.rows(TG_DB if backend == "telegraf" else CD_DB, q)]
                want = host if var["name"] == "host" else TARGET
                self.assertIn(want, found, f"{name}: ${var['name']}: {q}")

    def test_every_query_returns_data(self):
        absent = []
        for name, backend in (("proctree-telegraf-influxdb.json", "telegraf"),
                              ("proctree-collectd-influxdb.json", "collectd"),
                              ("proctree-collectd-graphite.json", "graphite")):
            for row, panel in panels_by_row(load(name)):
                with self.subTest(dashboard=name, panel=panel["title"]):
                    panel_values, panel_printed = 0, False
                    for t in panel["targets"]:
                        m = metric_of(t.get("query") or t.get("target"))
                        values, raw = self.run_target(backend, t, self.start_ns, self.end_ns)
                        if self.printed(backend, panel, m):
                            panel_printed = True
                            self.assertTrue(values, f"{name}: {panel['title']}: {m}: no data\n{t}\n{raw}")
                        else:
                            # left out by the frontend (never 0): no point here either
                            self.assertFalse(values, f"{name}: {panel['title']}: {m} not printed, yet {raw}")
                            absent.append(f"{backend}:{m}")
                        panel_values += len(values)
                    if panel_printed or row not in ROWS_OF_THE_HOST:
                        self.assertGreater(panel_values, 0, f"{name}: {panel['title']}: no query has data")
        print(f"\nmetrics the frontends left out here (no data, as printed): {sorted(set(absent))}")

    def test_each_target_answers_for_itself_alone(self):
        """Every InfluxQL query with $target, for the targets named
        "a/b.c(d)|e" and "a", grouped by the target's tag as well: each
        series is that target's (or its breakdown groups'), none another's,
        and the queries answer."""
        for name, backend, tag in (("proctree-telegraf-influxdb.json", "telegraf", "target"),
                                   ("proctree-collectd-influxdb.json", "collectd", "instance")):
            db, host = (TG_DB, th.HOSTNAME) if backend == "telegraf" else (CD_DB, ch.HOSTNAME)
            for target in OTHER_TARGETS:
                # collectd's instance: '/' becomes '_' (docs/METRICS.md)
                value = target if backend == "telegraf" else target.replace("/", "_")
                answered = 0
                for _, panel in panels_by_row(load(name)):
                    for t in panel["targets"]:
                        if "$target" not in t["query"] and "${target" not in t["query"]:
                            continue
                        q = interpolate(t["query"], influx_vars(host, value, self.start_ns, self.end_ns,
                                                                "process" if backend == "telegraf" else None))
                        if f'"{tag}" fill' not in q:
                            q = q.replace(" fill(null)", f', "{tag}" fill(null)')
                        series = self.influx_series(db, q)
                        for s in series:
                            got = s.get("tags", {}).get(tag)
                            self.assertTrue(got == value or self.is_stack(panel) and backend == "collectd"
                                            and got.startswith(value + "-"),
                                            f"{name}: {panel['title']}: target {value!r} answered for {got!r}: {q}")
                        answered += bool(self.influx_values(series))
                self.assertGreater(answered, 0, f"{name}: no query answered for target {value!r}")

    def test_one_number_per_row_equals_the_frontend(self):
        self.check_telegraf_rows()
        self.check_collectd_rows("proctree-collectd-influxdb.json", "collectd")
        self.check_collectd_rows("proctree-collectd-graphite.json", "graphite")

    def row_targets(self, name):
        """{row: (panel, target)} of each row's compared metric."""
        out = {}
        for row, panel in panels_by_row(load(name)):
            for t in panel["targets"]:
                if row not in out and metric_of(t.get("query") or t.get("target")) == ROW_CHECKS[row]:
                    out[row] = (panel, t)
        self.assertEqual(sorted(out), sorted(ROW_CHECKS), name)
        return out

    def check_telegraf_rows(self):
        batches = h.group_batches(self.telegraf_points())
        # a middle batch, with the group's line: every row's metric there
        ts, points = batches[len(batches) // 2]
        for row, (panel, t) in self.row_targets("proctree-telegraf-influxdb.json").items():
            metric = ROW_CHECKS[row]
            if self.is_stack(panel):
                line = next(p for p in points if p.tags.get("process") == GROUP)
            else:
                line = h.target_line(points, TARGET)
            if row in ROWS_OF_THE_HOST and metric not in line.fields:
                continue
            printed = line.fields[metric]
            tolerance = abs(printed) * 1e-12
            if KINDS[metric] == "DELTA":
                # the rate of that one line: its amount over its interval
                printed = printed * RATE_UNIT[CATALOG[metric][1]][1] / line.fields[INTERVAL]
                tolerance = abs(printed) * 1e-9
            values, raw = self.run_target("telegraf", t, ts, ts)
            if self.is_stack(panel):
                values = [v for s in raw if s.get("tags", {}).get("process") == GROUP
                          for row_ in s["values"] for v in row_[1:] if v is not None]
            self.assertEqual(len(values), 1, f"{row}: {metric}: {raw}")
            self.assertAlmostEqual(values[0], printed, delta=tolerance,
                                   msg=f"Telegraf dashboard, row {row}: {metric} at {ts}: printed {line.raw}")

    def check_collectd_rows(self, name, backend):
        for row, (panel, t) in self.row_targets(name).items():
            metric = ROW_CHECKS[row]
            instance = f"{TARGET}-{GROUP}" if self.is_stack(panel) else TARGET
            rows = self.csv_rows(instance, metric)
            if row in ROWS_OF_THE_HOST and not rows:
                continue
            # write_graphite sends the time rounded to the second
            # (CDTIME_T_TO_TIME_T): a middle row alone in its second, as
            # Graphite keeps one point a second
            def second(e):
                return int(e + 0.5)
            unique = [(e, v) for e, v in rows if [second(o) for o, _ in rows].count(second(e)) == 1]
            self.assertTrue(unique, f"{row}: {metric}: {rows}")
            epoch, printed = unique[len(unique) // 2]
            tolerance = abs(printed) * 1e-12
            if KINDS[metric] == "DELTA":
                # the rate of that one row: its amount over the interval
                # printed at the same time (each to the microunit)
                interval = dict(self.csv_rows(instance, INTERVAL))[epoch]
                scale = RATE_UNIT[CATALOG[metric][1]][1]
                tolerance = scale * (CSV_ULP / interval + abs(printed) * CSV_ULP / interval ** 2) * 1.01
                printed = printed * scale / interval
            ns = round(epoch * 1e9)
            if backend == "graphite":
                values, raw = self.run_target(backend, t, ns, ns)
                values = [v for s in raw if not self.is_stack(panel) or s["target"] == GROUP
                          for v, e in s["datapoints"] if e == second(epoch) and v is not None]
            else:
                # csv has the time to the millisecond: a window of 2 ms around it
                values, raw = self.run_target(backend, t, ns - 1_000_000, ns + 1_000_000)
                if self.is_stack(panel):
                    values = [v for s in raw if s.get("tags", {}).get("instance") == instance
                              for r in s["values"] for v in r[1:] if v is not None]
            self.assertEqual(len(values), 1, f"{name}: row {row}: {metric} at {epoch}: {raw}")
            self.assertAlmostEqual(values[0], printed, delta=tolerance,
                                   msg=f"{name}, row {row}: {metric} at {epoch}: csv {printed}")

    def test_pictures(self):
        out = os.environ.get("PROCTREE_PICTURES_OUT") or os.path.join(self.tmp, "pictures")
        script = os.path.join(DASHBOARDS, "render-pictures")
        res = subprocess.run([script, "--graphite", self.graphite.url, "--host", ch.HOSTNAME, "--target", TARGET,
                              "--from", str(self.start_ns // 10**9), "--until", str(self.end_ns // 10**9 + 1),
                              "--out", out], capture_output=True, text=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr + self.graphite.log_tail())
        paths = res.stdout.split()
        generate = h.read_text(os.path.join(DASHBOARDS, "generate"))
        pictured = re.search(r"PICTURED = \[(.*?)\]", generate, re.S).group(1)
        self.assertEqual(len(paths), pictured.count('"') // 2, res.stdout)
        for path in paths:
            with open(path, "rb") as f:
                data = f.read()
            self.assertTrue(data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 2000, path)


if __name__ == "__main__":
    unittest.main(verbosity=2)
