"""The two Prometheus dashboards (packaging/dashboards/proctree-*-prometheus.json)
work against a real Prometheus fed by both frontends measuring one workload.

Why: a PromQL query with a wrong name or label draws nothing, and one with a
wrong function (a rate of a gauge, the last of a band) draws wrong numbers.
So, from one run:

* a workload in a cgroup of the test's own (memory held, I/O to a file,
  children that exit 0, exit 3 and are killed, a sleeper, some CPU),
  measured as a cgroup target with a breakdown by process, amounts as
  totals, by proctree-execd --counters total under the real Telegraf
  (outputs.file and outputs.prometheus_client) and by collectd with the
  built proctree.so, CounterMode "total" (csv and write_prometheus);
* a real Prometheus scraping both every second; the Telegraf output block,
  the collectd write_prometheus block and the scrape block are read
  verbatim out of docs/DASHBOARDS.md, their ports replaced by free ones;
* every sample Prometheus holds of every metric a panel draws (the target's
  series, the breakdown group's, the host's) equals what the frontend
  printed for the line of that sample's timestamp (proctree-execd's line as
  outputs.file holds it, collectd's csv row);
* every variable's label_values() query finds the host and the target;
* every query of every panel, Grafana's variables put in ($__rate_interval
  at 4 s, four scrapes), returns data over the run, unless its metric is
  absent from the frontend's own output too (a GPU's on a host without
  one), where it is checked to return none;
* for each row, one panel query at one instant equals what the function
  does to the printed values of the samples of its window (Prometheus's
  own choice of them, asked for with the same range selector): the lowest,
  the highest, the last, the mean, or rate()'s extrapolated rate;
* the dashboards are what packaging/dashboards/generate writes and pass
  tests/integration/dashboard-structure.schema.json.
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
import prometheus_harness as ph
import telegraf_harness as th
import test_dashboards
from grafana_helpers import interpolate

TELEGRAF = th.telegraf_or_skip()
ph.prometheus_or_skip()
DASHBOARDS = os.path.join(h.SOURCE_ROOT, "packaging", "dashboards")
TELEGRAF_DASH, COLLECTD_DASH = "proctree-telegraf-prometheus.json", "proctree-collectd-prometheus.json"
TARGET = "work"
GROUP = "python3"  # the workload's processes' comm: a breakdown group
UNIQ = f"pt-prom-{os.getpid()}"
SCRAPE = "1s"
RATE_INTERVAL = 4  # seconds: Grafana's $__rate_interval at a 1 s scrape, max(4 x scrape, step + scrape)
# the collectd plugin's option for amounts as totals (docs/DASHBOARDS.md)
COUNTER_MODE = '  CounterMode "total"\n'
ROW_CHECKS, ROWS_OF_THE_HOST = test_dashboards.ROW_CHECKS, test_dashboards.ROWS_OF_THE_HOST
# A metric printed on this many lines has been scraped (the run waits for
# 10 batches, one a second, scraped each second)
ENOUGH = 5
# the metric in a selector: Telegraf's proctree_METRIC, collectd's type="METRIC"
# (proctree="METRIC" for the host's memory)
METRIC = re.compile(r'(?:\bproctree_|")((?:proc|global|cgroup|collector|netns)_[a-z_]+)\b')
# a panel query: FUNCTION(SELECTOR[$__rate_interval])
EXPR = re.compile(r"^(\w+)\((.*)\[\$__rate_interval\]\)$")
FUNCTION = {"GAUGE_MIN": "min_over_time", "GAUGE_MAX": "max_over_time", "DELTA": "rate",
            "COUNT": "last_over_time", "RATIO": "avg_over_time"}

# the dashboards test's workload: memory held, I/O, children that exit 0, 3
# and by SIGKILL, some CPU
WORKLOAD = test_dashboards.WORKLOAD


def catalog():
    """Metric name -> (kind, unit) from common/include/proctree/catalog.h."""
    kinds = h.catalog_kinds()
    return {name: (kinds[name], unit) for name, (_, unit) in h.catalog().items()}


# the same files, blocks and rows as the dashboards test's
doc_block, load, panels_by_row = test_dashboards.doc_block, test_dashboards.load, test_dashboards.panels_by_row


def metric_of(expr):
    found = set(METRIC.findall(expr))
    if len(found) != 1:
        raise AssertionError(f"query names {sorted(found)}, not one metric: {expr}")
    return found.pop()


def is_stack(panel):
    return panel["fieldConfig"]["defaults"]["custom"]["stacking"]["mode"] == "normal"


def scope_of(panel, metric):
    return "group" if is_stack(panel) else "global" if metric.startswith("global_") else "total"


def extrapolated_rate(samples, start_ms, end_ms):
    """rate() of Prometheus 2.42 (promql/functions.go extrapolatedRate,
    isCounter and isRate) over the window [start_ms, end_ms], of samples
    [(ms, value)]: the increase, counter resets added back, extrapolated
    to the window's edges where the samples come near them, per second."""
    if len(samples) < 2:
        return None
    (first_t, first_v), (last_t, last_v) = samples[0], samples[-1]
    result = last_v - first_v
    previous = 0.0
    for _, v in samples:
        if v < previous:
            result += previous
        previous = v
    to_start = (first_t - start_ms) / 1000
    to_end = (end_ms - last_t) / 1000
    sampled = (last_t - first_t) / 1000
    average = sampled / (len(samples) - 1)
    if result > 0 and first_v >= 0:
        to_start = min(to_start, sampled * (first_v / result))
    threshold = average * 1.1
    interval = sampled
    interval += to_start if to_start < threshold else average / 2
    interval += to_end if to_end < threshold else average / 2
    return result * (interval / sampled) / ((end_ms - start_ms) / 1000)


def expected(function, values, start_ms, end_ms, samples):
    if function == "min_over_time":
        return min(values)
    if function == "max_over_time":
        return max(values)
    if function == "last_over_time":
        return values[-1]
    if function == "avg_over_time":
        return sum(values) / len(values)
    if function == "rate":
        return extrapolated_rate([(t, v) for (t, _), v in zip(samples, values)], start_ms, end_ms)
    raise AssertionError(f"no expectation for {function}")


class PrometheusDashboards(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = cgh.TestCgroup.missing(("memory", "cpu", "cpuacct"))
        if missing:
            raise unittest.SkipTest(f"no cgroup hierarchy for {missing}")
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)  # reverse order: Prometheus, the frontends, the cgroup last
        cls.tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-prom-"))
        cls.cg = stack.enter_context(cgh.TestCgroup(UNIQ, ("memory", "cpu", "cpuacct")))
        tg_port, cd_port = h.free_ports(2)
        scrape = doc_block("prometheus-scrape")
        for port in ("9273", "9103"):
            assert f'"127.0.0.1:{port}"' in scrape, scrape
        cls.work = cls.cg.spawn([sys.executable, "-c", WORKLOAD])
        stack.callback(cls.work.stop)
        cls.start = time.time()
        cls.telegraf = stack.enter_context(th.Telegraf(
            TELEGRAF, ["--cgroup", cls.cg.rel, "--name", TARGET, "--by", "process", "--counters", "total"],
            extra_outputs=th.prometheus_client_output(tg_port, doc_block("telegraf-prometheus"))))
        cls.collectd = stack.enter_context(ch.Collectd(
            cls.tmp, COUNTER_MODE + ch.process_block(TARGET, f'Cgroup "{cls.cg.rel}"', 'BreakDown "process"'),
            ch.prometheus_output(cd_port, doc_block("collectd-prometheus"))))
        config = (f"global:\n  scrape_interval: {SCRAPE}\n  evaluation_interval: {SCRAPE}\n"
                  + scrape.replace('"127.0.0.1:9273"', f'"127.0.0.1:{tg_port}"')
                  .replace('"127.0.0.1:9103"', f'"127.0.0.1:{cd_port}"'))
        cls.prom = stack.enter_context(ph.Prometheus(cls.tmp, config))
        cls.prom.wait_up(["proctree-telegraf", "proctree-collectd"])
        # Enough intervals that a window of $__rate_interval holds several
        # samples of each; the group's line in both.
        cls.telegraf.wait_batches(10, timeout=60)
        cls.collectd.wait_csv(TARGET, "proc_processes_started", count=10, timeout=60)
        h.wait_until(lambda: cls.collectd.csv_rows(f"{TARGET}-{GROUP}", "proc_rss_max"), h.START_TIMEOUT,
                     "collectd's breakdown group")
        # Everything is judged up to what both frontends had printed by now
        # (a sample later than that may not be in the file yet), once
        # Prometheus has scraped past it: a series takes no sample older
        # than its newest, so none up to `end` can come after.
        cls.end_ms = min(cls.telegraf.batches()[-1][0] // 1_000_000,
                         round(cls.collectd.csv_rows(TARGET, "proc_processes_started")[-1][0] * 1000))
        for sel in (cls.selector(TELEGRAF_DASH, "total", "proc_processes_started"),
                    cls.selector(COLLECTD_DASH, "total", "proc_processes_started")):
            h.wait_until(lambda: [s for s in cls.prom.query(f"timestamp({sel})")
                                  if float(s["value"][1]) * 1000 > cls.end_ms], h.START_TIMEOUT,
                         f"Prometheus to scrape {sel} past {cls.end_ms} ms\n{cls.prom.log_tail()}")
        cls.end = cls.end_ms / 1000

    # ---------------------------------------------------------- what the frontends printed

    # Read through harness's readers, which hold every line to line_rules
    # in total mode (the differences of the totals of a series).

    @staticmethod
    def selector(name, scope, metric):
        """The raw series of one metric on one line as the dashboard names
        it (what the panel's query takes its samples from)."""
        for row, panel in panels_by_row(load(name)):
            for t in panel["targets"]:
                if metric_of(t["expr"]) == metric and scope_of(panel, metric) == scope:
                    sel = EXPR.match(t["expr"]).group(2)
                    return PrometheusDashboards.interpolate(name, sel, group=scope == "group")
        raise AssertionError(f"{name}: no panel draws {metric} ({scope})")

    @staticmethod
    def interpolate(name, expr, group=False):
        """Grafana's variables put in; a breakdown's selector narrowed to
        the one group compared."""
        if name == TELEGRAF_DASH:
            expr = interpolate(expr, {"host": th.HOSTNAME, "target": TARGET, "by": "process",
                                      "__rate_interval": f"{RATE_INTERVAL}s"})
            return expr.replace('process!=""', f'process="{GROUP}"') if group else expr
        expr = interpolate(expr, {"host": ch.HOSTNAME, "target": TARGET, "__rate_interval": f"{RATE_INTERVAL}s"})
        return expr.replace(f'proctree=~"{TARGET}-.+"', f'proctree="{TARGET}-{GROUP}"') if group else expr

    def printed(self, name, scope, metric):
        """{ms: value} the frontend printed for metric on the line of scope
        (the target's total, the group's, the host's), up to end."""
        if name == TELEGRAF_DASH:
            out = {}
            for p in (p for _, batch in self.telegraf.batches() for p in batch):
                if p.timestamp // 1_000_000 > self.end_ms or p.tags.get("host") != th.HOSTNAME:
                    continue
                if (scope == "global" and "target" not in p.tags
                        or scope == "group" and p.tags.get("process") == GROUP
                        or scope == "total" and p.tags.get("target") == TARGET
                        and not any(k in p.tags for k in ("process", "title", "cgroup", "thread"))):
                    if metric in p.fields:
                        out[p.timestamp // 1_000_000] = p.fields[metric]
            return out
        instance = {"total": TARGET, "group": f"{TARGET}-{GROUP}", "global": ""}[scope]
        return {round(e * 1000): v for e, v in self.collectd.csv_rows(instance, metric)
                if round(e * 1000) <= self.end_ms + 1}

    @staticmethod
    def printed_at(printed, name, ms):
        """The printed value of the line of a sample's timestamp: Telegraf's
        is the line's in milliseconds; collectd's csv rounds the time to
        the millisecond, write_prometheus truncates it."""
        for t in ((ms,) if name == TELEGRAF_DASH else (ms, ms + 1, ms - 1)):
            if t in printed:
                return printed[t]
        raise AssertionError(f"{name}: no printed line at {ms} ms (printed: {sorted(printed)[-8:]}...)")

    @staticmethod
    def tolerance(name, value, spread=1.0):
        """How far a value may be from the printed one: collectd's csv
        writes 6 decimals (%lf) where write_prometheus writes every
        digit; spread is how much a function magnifies that (a rate:
        the extrapolation over the window)."""
        return abs(value) * 1e-9 + (spread * 1e-6 if name == COLLECTD_DASH else 1e-12)

    def samples(self, sel, at, seconds):
        """[(ms, value)] Prometheus holds of sel over the `seconds` before at."""
        out = []
        for s in self.prom.query(f"{sel}[{seconds}s]", at):
            out += [(round(float(t) * 1000), float(v)) for t, v in s["values"]]
        return sorted(out)

    # ---------------------------------------------------------- the tests

    def test_generated_and_structure(self):
        res = subprocess.run([os.path.join(DASHBOARDS, "generate"), "--check"], capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        import jsonschema  # python3-jsonschema (scripts/install-deps)
        with open(os.path.join(os.path.dirname(__file__), "dashboard-structure.schema.json")) as f:
            schema = json.load(f)
        cat = catalog()
        for name in (TELEGRAF_DASH, COLLECTD_DASH):
            d = load(name)
            jsonschema.validate(d, schema)
            self.assertEqual([p["title"] for p in d["panels"] if p["type"] == "row"], list(ROW_CHECKS), name)
            for _, panel in panels_by_row(d):
                units = {o["matcher"]["options"]: p["value"] for o in panel["fieldConfig"]["overrides"]
                         for p in o["properties"] if p["id"] == "unit"}
                for t in panel["targets"]:
                    m = metric_of(t["expr"])
                    kind, unit = cat[m][0], cat[m][1]
                    fn = EXPR.match(t["expr"])
                    self.assertTrue(fn, f"{name}: {panel['title']}: {t['expr']}")
                    self.assertEqual(fn.group(1), FUNCTION[kind], f"{name}: {panel['title']}: {m}")
                    want = ({"BYTES": "Bps", "SECONDS": "percentunit", "NUMBER": "cps"} if kind == "DELTA" else
                            {"PROC_MEMORY": "bytes", "GLOBAL_MEMORY": "bytes", "BYTES": "bytes", "SECONDS": "s",
                             "PERCENT": "percent", "NUMBER": "short"})[unit]
                    got = units.get(t["legendFormat"], panel["fieldConfig"]["defaults"]["unit"])
                    self.assertEqual(got, want, f"{name}: {panel['title']}: {m}")

    def test_variables(self):
        for name, host in ((TELEGRAF_DASH, th.HOSTNAME), (COLLECTD_DASH, ch.HOSTNAME)):
            for var in load(name)["templating"]["list"]:
                if var["type"] != "query":
                    continue
                m = re.fullmatch(r"label_values\((.*), (\w+)\)", var["query"])
                self.assertTrue(m, f"{name}: ${var['name']}: {var['query']}")
                sel = interpolate(m.group(1), {"host": host})
                found = self.prom.label_values(m.group(2), sel)
                self.assertIn(host if var["name"] == "host" else TARGET, found, f"{name}: ${var['name']}: {sel}")
                if var["name"] == "target":
                    # the breakdown's groups are not targets
                    self.assertNotIn(f"{TARGET}-{GROUP}", found, f"{name}: ${var['name']}: {sel}")

    def test_samples_equal_printed(self):
        """Every sample of every metric the panels draw, on each line, is
        what the frontend printed at its time."""
        for name in (TELEGRAF_DASH, COLLECTD_DASH):
            compared = 0
            for _, panel in panels_by_row(load(name)):
                for t in panel["targets"]:
                    m = metric_of(t["expr"])
                    scope = scope_of(panel, m)
                    sel = self.selector(name, scope, m)
                    samples = self.samples(sel, self.end, int(self.end - self.start) + 2)
                    printed = self.printed(name, scope, m)
                    # a line printed between two scrapes is not scraped: a
                    # metric on a line or two may have no sample, one on
                    # ENOUGH lines has some, one never printed has none
                    if len(printed) >= ENOUGH or not printed:
                        self.assertEqual(bool(samples), bool(printed), f"{name}: {sel}: {len(printed)} printed")
                    for ms, v in samples:
                        want = self.printed_at(printed, name, ms)
                        self.assertAlmostEqual(v, want, delta=self.tolerance(name, want),
                                               msg=f"{name}: {sel} at {ms} ms")
                    compared += len(samples)
            self.assertGreater(compared, 0, name)

    def test_every_query_returns_data(self):
        absent = []
        for name in (TELEGRAF_DASH, COLLECTD_DASH):
            for row, panel in panels_by_row(load(name)):
                with self.subTest(dashboard=name, panel=panel["title"]):
                    panel_values, panel_printed = 0, False
                    for t in panel["targets"]:
                        m = metric_of(t["expr"])
                        expr = self.interpolate(name, t["expr"])
                        raw = self.prom.query_range(expr, self.start, self.end, 1)
                        values = [v for s in raw for _, v in s["values"]]
                        printed = self.printed(name, scope_of(panel, m), m)
                        if len(printed) >= ENOUGH:
                            panel_printed = True
                            self.assertTrue(values, f"{name}: {panel['title']}: {m}: no data\n{expr}\n{raw}")
                        elif not printed:
                            self.assertFalse(values, f"{name}: {panel['title']}: {m} not printed, yet {raw}")
                            absent.append(f"{name}:{m}")
                        panel_values += len(values)
                    if panel_printed or row not in ROWS_OF_THE_HOST:
                        self.assertGreater(panel_values, 0, f"{name}: {panel['title']}: no query has data")
        print(f"\nmetrics the frontends left out here (no data, as printed): {sorted(set(absent))}")

    def test_one_number_per_row_equals_the_frontend(self):
        for name in (TELEGRAF_DASH, COLLECTD_DASH):
            checked = set()
            for row, panel in panels_by_row(load(name)):
                for t in panel["targets"]:
                    m = metric_of(t["expr"])
                    if row in checked or m != ROW_CHECKS[row]:
                        continue
                    checked.add(row)
                    with self.subTest(dashboard=name, row=row):
                        self.check_row(name, row, panel, t, m)
            self.assertEqual(sorted(checked), sorted(ROW_CHECKS), name)

    def check_row(self, name, row, panel, target, metric):
        scope = scope_of(panel, metric)
        printed = self.printed(name, scope, metric)
        if row in ROWS_OF_THE_HOST and not printed:
            return
        function, sel = EXPR.match(target["expr"]).groups()
        sel = self.interpolate(name, sel, group=scope == "group")
        expr = f"{function}({sel}[{RATE_INTERVAL}s])"
        # an instant at a sample of the run's middle whose window holds
        # three samples or more
        run = self.samples(sel, self.end, int(self.end - self.start) + 2)
        candidates = [ms for ms, _ in run[len(run) // 2:] + run[:len(run) // 2]
                      if len([1 for o, _ in run if ms - RATE_INTERVAL * 1000 <= o <= ms]) >= 3]
        self.assertTrue(candidates, f"{name}: {row}: no window of 3 samples in {run}")
        at_ms = candidates[0]
        window = self.samples(sel, at_ms / 1000, RATE_INTERVAL)
        values = [self.printed_at(printed, name, ms) for ms, _ in window]
        want = expected(function, values, at_ms - RATE_INTERVAL * 1000, at_ms, window)
        got = self.prom.query(expr, at_ms / 1000)
        self.assertEqual(len(got), 1, f"{name}: {row}: {expr} at {at_ms} ms: {got}")
        spread = 2 * RATE_INTERVAL / max(1e-3, (window[-1][0] - window[0][0]) / 1000) if function == "rate" else 1
        self.assertAlmostEqual(float(got[0]["value"][1]), want, delta=self.tolerance(name, want, spread),
                               msg=f"{name}, row {row}: {expr} at {at_ms} ms over samples {window}, "
                               f"printed {values}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
