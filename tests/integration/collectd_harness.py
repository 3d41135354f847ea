"""collectd and carbon helpers for proctree's collectd plugin tests.

Builds on harness.py (InfluxDB, workloads, /proc truth, deadlines) with:

* a collectd.conf generator that loads the built proctree.so the way a user
  does (Interval before LoadPlugin, PluginDir switched to the build dir);
* running the real collectd in the foreground (stopped by its pid) or as a
  config check (collectd -T), with its log kept in the test's temp dir;
* reading the csv plugin's files (rows, sums, a breakdown's instances);
* a private carbon-cache (127.0.0.1, free ports, every directory in the
  temp dir) and reading its whisper files back.

Every value read back from collectd's outputs is checked against
line_rules.py: a csv identifier's rows each time a test reads them, joined
with the other identifiers of its plugin instance (one line of the target's
or of a breakdown group's, split by collectd into one file per metric) by
their epoch, each with the time since the row before as its interval;
whisper points one metric at a time; the InfluxDB listener's rows by
harness.InfluxDB.rows.

Every wait polls with a deadline (harness.wait_until).
"""

import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import line_rules
from harness import (SOURCE_ROOT, START_TIMEOUT, InfluxDB, assert_no_sanitizer_report, collectd_section, free_ports,
                     stop_process, wait_until)

HOSTNAME = "testhost"  # no dots, so Graphite paths are predictable
COLLECTD = shutil.which("collectd") or "/usr/sbin/collectd"


def sanitized_env():
    """collectd's environment: for an ASan-built proctree.so (the build
    says so in PROCTREE_COLLECTD_PRELOAD), the runtime preloaded into the
    stock daemon, whose own leaks at exit are not ours to report."""
    env = dict(os.environ)
    preload = env.get("PROCTREE_COLLECTD_PRELOAD")
    if preload:
        env["LD_PRELOAD"] = preload
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS", ""), "detect_leaks=0"]))
    return env


CARBON_CACHE = shutil.which("carbon-cache") or "/usr/bin/carbon-cache"
# The CLI, not the whisper module: it runs on the system python that has
# python3-whisper, whichever python3 runs the tests.
WHISPER_FETCH = shutil.which("whisper-fetch") or "/usr/bin/whisper-fetch"


def plugin_path():
    """The built proctree.so (meson passes it; a checkout's default build dir otherwise)."""
    path = os.environ.get("PROCTREE_COLLECTD_PLUGIN") or os.path.join(
        SOURCE_ROOT, "build", "collectd-plugin", "proctree.so")
    if not os.path.isfile(path):
        raise AssertionError(f"PROCTREE_COLLECTD_PLUGIN: {path} is not a file (is it built?)")
    return path


def free_udp_port():
    """A free UDP port on 127.0.0.1 (collectd's network protocol is UDP)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_block(name, *options):
    """<Process "name"> with the given option lines."""
    body = "".join(f"    {o}\n" for o in options)
    return f'  <Process "{name}">\n{body}  </Process>\n'


# ---------------------------------------------------------------- collectd

class Collectd:
    """One collectd configuration in a temp dir: run it, check it, read its output.

    plugin_body is the inside of <Plugin proctree>; outputs is config text
    for extra write plugins (write_graphite, network), loaded before PluginDir
    is switched to the build dir.
    """

    def __init__(self, tmpdir, plugin_body, outputs="", preexec_fn=None, wrapper=(), interval=1):
        self.dir = tmpdir
        self.interval = interval  # collectd's Interval, seconds
        self.preexec_fn = preexec_fn  # run in the daemon before exec (limits)
        self.wrapper = list(wrapper)  # a command line that runs collectd (unshare ...)
        self.conf = os.path.join(tmpdir, "collectd.conf")
        self.log_path = os.path.join(tmpdir, "collectd.log")
        self.stdout_path = os.path.join(tmpdir, "collectd.stdout")
        self.csv_dir = os.path.join(tmpdir, "csv")
        self.proc = None
        # CounterMode "total": the amounts are totals (line_rules.Totals)
        self.totals = re.search(r'(?im)^\s*CounterMode\s+"total"\s*$', plugin_body) is not None
        os.makedirs(os.path.join(tmpdir, "base"), exist_ok=True)
        with open(self.conf, "w") as f:
            f.write(self._config_text(self._forced_source(plugin_body) + plugin_body, outputs))

    def _forced_source(self, plugin_body):
        """The Source the suite "sources" forces (PROCTREE_TEST_SOURCE), as
        harness.forced_source decides it for proctree-execd."""
        source = os.environ.get("PROCTREE_TEST_SOURCE")
        if not source or "Source " in plugin_body:
            return ""
        if source == "bpf" and ("ProcRoot" in plugin_body or self.wrapper):
            return ""
        return f'  Source "{source}"\n'


    def _config_text(self, plugin_body, outputs):
        d = self.dir
        return f"""Hostname "{HOSTNAME}"
FQDNLookup false
BaseDir "{d}/base"
PIDFile "{d}/collectd.pid"
# Before LoadPlugin: a plugin keeps the Interval in force when it is loaded.
Interval {self.interval}
# One write thread: the csv plugin makes a new file by stat(), then
# fopen("w") and its header; two threads writing the first values of one
# identifier both make it, and the second header (epoch,seconds and its
# newline, as long as an epoch) overwrote the first row's epoch (a row
# ",1.060000" in CI). The order of values is collectd's own, whatever the threads.
WriteThreads 1

LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "{self.log_path}"
  Timestamp true
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "{self.csv_dir}"
  StoreRates false
</Plugin>
{outputs}
# LoadPlugin only searches the current PluginDir for NAME.so.
PluginDir "{os.path.dirname(plugin_path())}"
LoadPlugin proctree
<Plugin proctree>
{plugin_body}</Plugin>
"""

    # -- running

    def start(self):
        with open(self.stdout_path, "wb") as out:
            self.proc = subprocess.Popen(self.wrapper + [COLLECTD, "-f", "-C", self.conf], stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=subprocess.STDOUT, preexec_fn=self.preexec_fn,
                                         env=sanitized_env())
        return self

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc is not None:
            stop_process(self.proc)
            assert_no_sanitizer_report(self.log().splitlines(), "collectd with proctree.so")
        return self.proc.returncode if self.proc else None

    def check(self, timeout=START_TIMEOUT):
        """collectd -T: parse the config, init, read once, shut down. Returns the exit status.

        (-t is a no-op in 5.12: it exits 0 before reading the config.)
        """
        with open(self.stdout_path, "wb") as out:
            return subprocess.run([COLLECTD, "-T", "-C", self.conf], stdin=subprocess.DEVNULL,
                                  stdout=out, stderr=subprocess.STDOUT, timeout=timeout,
                                  env=sanitized_env()).returncode

    def log(self):
        """Everything collectd said: the logfile plugin's file and its stdout/stderr."""
        text = ""
        for path in (self.log_path, self.stdout_path):
            try:
                with open(path, errors="replace") as f:
                    text += f.read()
            except FileNotFoundError:
                pass
        return text

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- csv output

    def csv_path_glob(self, instance, type_instance):
        """The csv files (one per day) of one identifier, whatever its type:
        the catalog, not the test, decides the type."""
        plugin = "proctree" + (f"-{instance}" if instance else "")
        # a group's name may hold glob's characters ("[postgres]", a title)
        return os.path.join(glob.escape(os.path.join(self.csv_dir, HOSTNAME, plugin)),
                            f"*-{type_instance}-????-??-??")

    @staticmethod
    def _read_csv(path):
        """[(epoch, value)] of one csv file, complete rows only. A row that
        does not read as two numbers is read again: collectd's csv plugin
        may be writing the file while we read it (a read of a file being
        appended to can see a row torn, its newline in but not all before
        it); one that stays so after three reads is an error."""
        for attempt in range(3):
            rows, torn = [], None
            with open(path) as f:
                for line in f:
                    if line.startswith("epoch") or not line.endswith("\n"):
                        continue  # header, or a row still being written
                    try:
                        epoch, value = line.strip().split(",")
                        rows.append((float(epoch), float(value)))
                    except ValueError:
                        torn = line
                        break
            if torn is None:
                return rows
            time.sleep(0.05)
        raise ValueError(f"{path}: row {torn!r} is not epoch,value after three reads")

    def csv_rows(self, instance, type_instance):
        """[(epoch, value)] of one identifier, oldest first ([] while absent);
        the instance's line checked whole (check_csv_instance) first."""
        self.check_csv_instance(instance)
        rows = []
        for path in sorted(glob.glob(self.csv_path_glob(instance, type_instance))):
            rows += self._read_csv(path)
        return rows

    def check_csv_instance(self, instance):
        """Every identifier of a plugin instance (a target's line, or a
        breakdown group's) joined by epoch into lines, each checked against
        line_rules with the time since the epoch before as its interval."""
        plugin = "proctree" + (f"-{instance}" if instance else "")
        lines = self._csv_lines(plugin)
        # a breakdown group's instance is TARGET-NAME: its target's line
        # (the longest instance it extends) tells what exited in the interval
        host = os.path.join(self.csv_dir, HOSTNAME)
        parents = [d for d in (os.listdir(host) if os.path.isdir(host) else [])
                   if plugin.startswith(d + "-") and d.startswith("proctree-")]
        target = self._csv_lines(max(parents, key=len)) if parents else None
        line_rules.check_joined(lines, tags={"target": instance or ""}, where=f"collectd csv {plugin}: ",
                                target=target, totals=self.totals)

    def _csv_lines(self, plugin):
        """{epoch: {metric: value}} of a plugin instance's csv files."""
        by_epoch = {}
        for path in glob.glob(os.path.join(glob.escape(os.path.join(self.csv_dir, HOSTNAME, plugin)), "*-????-??-??")):
            # TYPE-TYPE_INSTANCE-YYYY-MM-DD: the type (a stock one) has no '-'
            metric = os.path.basename(path)[:-11].split("-", 1)[-1]
            for epoch, value in self._read_csv(path):
                by_epoch.setdefault(epoch, {})[metric] = value
        return by_epoch

    def csv_sum(self, instance, *type_instances):
        """Sum of every row of these identifiers (0 while absent)."""
        return sum(v for t in type_instances for _, v in self.csv_rows(instance, t))

    def breakdown_instances(self, target):
        """Plugin instances (TARGET-NAME) of target's breakdown groups in csv."""
        host = os.path.join(self.csv_dir, HOSTNAME)
        prefix = f"proctree-{target}-"
        return sorted(d[len("proctree-"):] for d in os.listdir(host) if d.startswith(prefix))

    def wait_csv(self, instance, type_instance, count=1, timeout=START_TIMEOUT):
        """Rows of an identifier once it has at least count of them."""
        def enough():
            rows = self.csv_rows(instance, type_instance)
            return rows if len(rows) >= count else None

        try:
            return wait_until(enough, timeout, f"{count} csv rows of {self.csv_path_glob(instance, type_instance)}")
        except AssertionError as e:
            raise AssertionError(f"{e}\ncollectd log:\n{self.log()[-3000:]}") from None


def graphite_output(port):
    return f"""LoadPlugin write_graphite
<Plugin write_graphite>
  <Node "carbon">
    Host "127.0.0.1"
    Port "{port}"
    Protocol "tcp"
  </Node>
</Plugin>
"""


def network_output(port):
    return f"""LoadPlugin network
<Plugin network>
  Server "127.0.0.1" "{port}"
</Plugin>
"""


def prometheus_output(port, block=None):
    """write_prometheus serving its /metrics on 127.0.0.1:port: block (the
    doc's, its port 9103 replaced) or a config of its own."""
    if block is not None:
        if '"9103"' not in block:
            raise AssertionError(f"write_prometheus block without Port \"9103\": {block}")
        return block.replace('"9103"', f'"{port}"')
    return f"""LoadPlugin write_prometheus
<Plugin write_prometheus>
  Host "127.0.0.1"
  Port "{port}"
</Plugin>
"""


def stop_influxd_quickly(influx):
    """Stop a harness.InfluxDB whose collectd listener has received packets.

    influxd 1.6.7's collectd service then never finishes closing, so a clean
    shutdown always runs into influxd's 30 s limit ("Time limit reached").
    A second signal is influxd's own hard shutdown; the test's data is no
    longer needed. Call it before InfluxDB.stop(), which then has nothing to do.
    """
    proc = influx.proc
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    wait_until(lambda: proc.poll() is not None or "Waiting for clean shutdown" in influx.log_tail(),
               START_TIMEOUT, "influxd to start its shutdown")
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    proc.wait(START_TIMEOUT)


def influxdb_listening(stack, database):
    """(harness.InfluxDB with a collectd listener into database, its UDP
    port), entered on stack (contextlib.ExitStack) and stopped quickly."""
    port = free_udp_port()
    # The listener batches points for 10 s by default; 1 s keeps a test short.
    influx = stack.enter_context(InfluxDB(extra_config=collectd_section(port, database) + '  batch-timeout = "1s"\n'))
    stack.callback(stop_influxd_quickly, influx)
    return influx, port


# ---------------------------------------------------------------- carbon

class GraphiteDaemon:
    """What carbon-cache and graphite-web share: started by start() as
    self.proc, stopped by its pid, their log (self.log_path) and graphite's
    exception log under self.dir."""

    def stop(self):
        if self.proc is not None:
            stop_process(self.proc)
            self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def log_tail(self, size=3000):
        text = ""
        for path in (self.log_path, os.path.join(self.dir, "storage", "log", "exception.log")):
            try:
                with open(path, errors="replace") as f:
                    text += f.read()[-size:]
            except FileNotFoundError:
                pass
        return text or "(no log)"


class Carbon(GraphiteDaemon):
    """A private carbon-cache storing every metric at 1 s resolution."""

    def __init__(self, tmpdir):
        self.dir = os.path.join(tmpdir, "carbon")
        self.whisper_dir = os.path.join(self.dir, "storage", "whisper")
        self.log_path = os.path.join(self.dir, "carbon.log")
        self.proc = None
        self.line_port = None
        self.query_port = None  # the cache's query port (graphite-web's CARBONLINK_HOSTS)

    def start(self, attempts=3):
        """Start it and wait until the line receiver accepts connections.

        A free port can be taken before carbon binds it; carbon then exits
        and we retry with fresh ports.
        """
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, "storage-schemas.conf"), "w") as f:
            f.write("[everything]\npattern = .*\nretentions = 1s:1h\n")
        for _ in range(attempts):
            self.line_port, pickle_port, self.query_port = free_ports(3)
            conf = os.path.join(self.dir, "carbon.conf")
            with open(conf, "w") as f:
                f.write(self._config_text(pickle_port, self.query_port))
            with open(self.log_path, "wb") as log:
                self.proc = subprocess.Popen([CARBON_CACHE, f"--config={conf}", "--nodaemon", "start"],
                                             stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
            if wait_until(self._ready_or_dead, START_TIMEOUT, "carbon-cache's line receiver") == "ready":
                return self
        raise AssertionError(f"carbon-cache did not start:\n{self.log_tail()}")

    def _config_text(self, pickle_port, query_port):
        storage = os.path.join(self.dir, "storage")
        return f"""[cache]
STORAGE_DIR = {storage}
LOCAL_DATA_DIR = {self.whisper_dir}
WHITELISTS_DIR = {storage}/lists
LOG_DIR = {storage}/log
PID_DIR = {storage}
USER =
MAX_CREATES_PER_MINUTE = inf
MAX_UPDATES_PER_SECOND = inf
ENABLE_UDP_LISTENER = False
LINE_RECEIVER_INTERFACE = 127.0.0.1
LINE_RECEIVER_PORT = {self.line_port}
PICKLE_RECEIVER_INTERFACE = 127.0.0.1
PICKLE_RECEIVER_PORT = {pickle_port}
CACHE_QUERY_INTERFACE = 127.0.0.1
CACHE_QUERY_PORT = {query_port}
"""

    def _ready_or_dead(self):
        if self.proc.poll() is not None:
            return "dead"
        try:
            socket.create_connection(("127.0.0.1", self.line_port), timeout=1).close()
            return "ready"
        except OSError:
            return None


    def whisper_path(self, metric):
        return os.path.join(self.whisper_dir, *metric.split(".")) + ".wsp"

    def wait_points(self, metric):
        """points(metric) once carbon has stored some; fails with carbon's log."""
        try:
            return wait_until(lambda: self.points(metric), START_TIMEOUT, f"whisper points of {metric}")
        except AssertionError as e:
            raise AssertionError(f"{e}\ncarbon log:\n{self.log_tail()}") from None

    def points(self, metric, seconds=300):
        """[(epoch, value)] stored for metric over the last seconds, gaps left out."""
        path = self.whisper_path(metric)
        if not os.path.exists(path):
            return []
        out = subprocess.run([WHISPER_FETCH, f"--from={int(time.time()) - seconds}", path],
                             capture_output=True, text=True, timeout=START_TIMEOUT, check=True).stdout
        points = []
        for line in out.splitlines():
            epoch, value = line.split()
            if value != "None":
                points.append((int(epoch), float(value)))
        # HOST.proctree-INSTANCE.TYPE-TYPE_INSTANCE: one metric's series;
        # whisper's 1 s slots keep no interval worth the name (gaps are left
        # out), so only the rules of a value alone apply
        line_rules.check_series(metric.rsplit(".", 1)[-1].split("-", 1)[-1], points, where=f"whisper {metric}: ")
        return points


# ---------------------------------------------------------------- graphite-web

GRAPHITE_MANAGE = shutil.which("graphite-manage") or "/usr/bin/graphite-manage"


class GraphiteWeb(GraphiteDaemon):
    """Debian's graphite-web (its Django app, Django's own server) on a free
    loopback port, reading a Carbon's whisper files and asking its cache
    for the points not written yet. Its settings are a module of our own in
    the temp dir (graphite.settings imports GRAPHITE_SETTINGS_MODULE), so
    /etc/graphite is neither read nor needed; its storage (log, index) is in
    the temp dir too. The render API needs no database. Stopped by its pid."""

    def __init__(self, tmpdir, carbon):
        self.dir = os.path.join(tmpdir, "graphite-web")
        self.carbon = carbon
        self.proc = None
        self.port = None
        self.log_path = os.path.join(self.dir, "graphite-web.log")

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, attempts=3):
        storage = os.path.join(self.dir, "storage")
        os.makedirs(os.path.join(storage, "log"), exist_ok=True)
        with open(os.path.join(self.dir, "proctree_graphite_settings.py"), "w") as f:
            f.write(f"""SECRET_KEY = "proctree-test-only"
STORAGE_DIR = {storage!r}
WHISPER_DIR = {self.carbon.whisper_dir!r}
STANDARD_DIRS = [{self.carbon.whisper_dir!r}]
LOG_DIR = {os.path.join(storage, "log")!r}
INDEX_FILE = {os.path.join(storage, "index")!r}
CARBONLINK_HOSTS = ["127.0.0.1:{self.carbon.query_port}:a"]
ALLOWED_HOSTS = ["127.0.0.1"]
""")
        env = dict(os.environ, GRAPHITE_SETTINGS_MODULE="proctree_graphite_settings", PYTHONPATH=self.dir)
        # The find API (Grafana's variables) reads the user's profile: its
        # tables, in STORAGE_DIR/graphite.db (sqlite), are made first.
        with open(self.log_path, "wb") as log:
            subprocess.run([GRAPHITE_MANAGE, "migrate", "--noinput", "-v", "0"], stdin=subprocess.DEVNULL,
                           stdout=log, stderr=subprocess.STDOUT, env=env, cwd=self.dir, timeout=120, check=True)
        for _ in range(attempts):
            self.port = free_ports(1)[0]
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen([GRAPHITE_MANAGE, "runserver", f"127.0.0.1:{self.port}", "--noreload"],
                                             stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                             env=env, cwd=self.dir)
            if wait_until(self._ready_or_dead, START_TIMEOUT, "graphite-web's render API") == "ready":
                return self
        raise AssertionError(f"graphite-web did not start:\n{self.log_tail()}")

    def _ready_or_dead(self):
        if self.proc.poll() is not None:
            return "dead"
        try:
            with urllib.request.urlopen(self.url + "/render?target=none&format=json", timeout=5) as r:
                return "ready" if r.status == 200 else None
        except OSError:
            return None

    def get(self, path, params):
        """GET path?params (a list of pairs for repeated keys); the body."""
        with urllib.request.urlopen(self.url + path + "?" + urllib.parse.urlencode(params), timeout=60) as r:
            return r.read()

    def render_json(self, targets, start, until):
        """[{target, datapoints: [[value, epoch]...]}] of targets over start..until (epochs)."""
        params = [("target", t) for t in targets] + [("from", str(start)), ("until", str(until)),
                                                     ("format", "json")]
        return json.loads(self.get("/render", params))

