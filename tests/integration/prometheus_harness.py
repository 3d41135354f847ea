"""A private Prometheus server for proctree's integration tests.

Debian's prometheus package (scripts/install-deps) brings the binary; its
systemd service plays no part: the test starts /usr/bin/prometheus itself on
a free loopback port, its TSDB in the test's temp dir, with a scrape
configuration the test writes, and stops it by its pid. Queries go through
the HTTP API (/api/v1/query, /api/v1/query_range, /api/v1/series,
/api/v1/label/NAME/values). When there is no prometheus, a test module calls
prometheus_or_skip() first: one line, exit 77 (counted as skipped).

Every wait polls with a deadline (harness.wait_until).
"""

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

from harness import START_TIMEOUT, file_tail, free_ports, stop_process, wait_until

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
SKIP = 77


def prometheus_or_skip():
    """Path of the prometheus binary, or exit 77 (skip) with one line why."""
    if not os.access(PROMETHEUS, os.X_OK):
        print("SKIP: no prometheus: install Debian's prometheus package (scripts/install-deps)", flush=True)
        sys.exit(SKIP)
    return PROMETHEUS


def scrape_config(jobs, interval="1s"):
    """prometheus.yml text: global scrape and evaluation interval, and one
    scrape job per (name, job body) pair, the body being YAML lines of the
    job (static_configs, honor_labels, ...) indented by four spaces."""
    text = f"global:\n  scrape_interval: {interval}\n  evaluation_interval: {interval}\nscrape_configs:\n"
    for name, body in jobs:
        text += f"  - job_name: {json.dumps(name)}\n{body}"
    return text


class Prometheus:
    """prometheus with a given scrape configuration (scrape_config() or a
    block of docs/DASHBOARDS.md), its TSDB and log under tmpdir/prometheus.
    A port picked by free_ports() may be taken before prometheus binds it;
    it then exits and start() retries with a fresh one."""

    def __init__(self, tmpdir, config_text):
        self.dir = os.path.join(tmpdir, "prometheus")
        self.config_path = os.path.join(self.dir, "prometheus.yml")
        self.log_path = os.path.join(self.dir, "prometheus.log")
        self.config_text = config_text
        self.proc = None
        self.port = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, attempts=3):
        os.makedirs(self.dir, exist_ok=True)
        with open(self.config_path, "w") as f:
            f.write(self.config_text)
        for attempt in range(attempts):
            self.port = free_ports(1)[0]
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(
                    [PROMETHEUS, f"--config.file={self.config_path}",
                     f"--storage.tsdb.path={os.path.join(self.dir, f'data-{attempt}')}",
                     f"--web.listen-address=127.0.0.1:{self.port}"],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
            if wait_until(self._ready_or_dead, START_TIMEOUT, "prometheus's /-/ready\n" + self.log_tail()) == "ready":
                return self
        raise AssertionError(f"prometheus did not start:\n{self.log_tail()}")

    def _ready_or_dead(self):
        if self.proc.poll() is not None:
            return "dead"
        try:
            with urllib.request.urlopen(self.url + "/-/ready", timeout=5) as r:
                return "ready" if r.status == 200 else None
        except OSError:
            return None

    def stop(self):
        if self.proc is not None:
            stop_process(self.proc, timeout=30.0)
            self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def log_tail(self, size=4000):
        return file_tail(self.log_path, size)

    # -- HTTP API

    def api(self, path, params):
        """GET /api/v1/PATH?params; the answer's data. An error answer
        (a bad query: HTTP 400, 422) fails with Prometheus's own words."""
        url = f"{self.url}/api/v1/{path}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                body = json.loads(r.read())
        except urllib.error.HTTPError as e:
            raise AssertionError(f"prometheus {path} {params}: HTTP {e.code} {e.read()[:2000]!r}") from None
        if body.get("status") != "success":
            raise AssertionError(f"prometheus {path} {params}: {body}")
        return body["data"]

    def query(self, expr, at=None):
        """An instant query: [{metric: {labels}, value: [epoch, "text"]}]
        (a vector; a scalar's answer is returned as it is)."""
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        return self.api("query", params)["result"]

    def query_range(self, expr, start, end, step):
        """A range query over [start, end] (epochs) every step seconds:
        [{metric: {labels}, values: [[epoch, "text"], ...]}]."""
        return self.api("query_range", {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}",
                                        "step": str(step)})["result"]

    def series(self, match, start, end):
        """The label sets of the series match (a selector) selects."""
        return self.api("series", {"match[]": match, "start": f"{start:.3f}", "end": f"{end:.3f}"})

    def label_values(self, label, match=None):
        params = {"match[]": match} if match else {}
        return self.api(f"label/{urllib.parse.quote(label)}/values", params)

    def targets_up(self):
        """{job: health} of the scrape targets, once each has been scraped."""
        active = self.api("targets", {"state": "active"})["activeTargets"]
        return {t["labels"]["job"]: t["health"] for t in active}

    def wait_up(self, jobs):
        """Wait until every job's target has been scraped successfully."""
        try:
            wait_until(lambda: all(self.targets_up().get(j) == "up" for j in jobs), START_TIMEOUT,
                       f"prometheus to scrape {jobs}")
        except AssertionError as e:
            raise AssertionError(f"{e}: {self.api('targets', {})}\n{self.log_tail()}") from None
