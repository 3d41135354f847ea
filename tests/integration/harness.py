"""Shared helpers for proctree's integration tests.

The integration tests run the real proctree-execd on real process trees and
feed its output to a real InfluxDB 1.x, so this module knows how to:

* find the built programs (paths come from meson through the environment);
* start and stop a private influxd (127.0.0.1, free ports, data in a temp
  dir, stopped by its own pid) and talk to it over HTTP;
* run proctree-execd the way Telegraf's inputs.execd does (three pipes,
  stdout and stderr drained by threads) and wait for its batches;
* parse InfluxDB line protocol strictly, so malformed output fails a test;
* read ground truth from /proc;
* start the workload programs (tests/workload) and wait until they are ready.

Every wait polls with a deadline: nothing here sleeps a fixed time hoping
that something has happened.
"""

import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

import line_rules

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
MIB = 1 << 20

# Generous deadlines: the machine is small and noisy, and a deadline only
# bounds how long a failing test takes, it never makes a test pass.
START_TIMEOUT = 30.0
BATCH_TIMEOUT = 10.0


# ---------------------------------------------------------------- programs

def program(env_name, default_relpath):
    """Path of a built program.

    meson passes the paths in the environment; a developer running a test by
    hand from a checkout gets the default build dir. A missing program is a
    failure, never a skip: the project's test script builds everything.
    """
    path = os.environ.get(env_name) or os.path.join(SOURCE_ROOT, "build", default_relpath)
    if not os.access(path, os.X_OK):
        raise AssertionError(f"{env_name}: {path} is not an executable (is it built?)")
    return path


def execd_path():
    return program("PROCTREE_EXECD", "execd-bin/proctree-execd")


def memtree_path():
    return program("PROCTREE_MEMTREE", "tests/workload/memtree")


def iopump_path():
    return program("PROCTREE_IOPUMP", "tests/workload/iopump")


def wait_until(predicate, timeout, what, interval=0.02):
    """Poll predicate() until it returns something truthy; fail at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.1f}s waiting for {what}")
        time.sleep(interval)


def peak_then_burn(alloc_bytes, burn_seconds):
    """A python3 -c program that allocates alloc_bytes, touches every page,
    frees them, then burns burn_seconds of its own CPU time in user mode
    (however busy the host; read rarely, as each read is a system call):
    the peak is long gone when the busy part is measured."""
    return f"""
import time
b = bytearray({alloc_bytes})
for i in range(0, len(b), 4096):
    b[i] = 1
del b
t = time.process_time()
while time.process_time() - t < {burn_seconds}:
    for _ in range(100000):
        pass
"""


def free_ports(count):
    """count distinct free TCP ports on 127.0.0.1.

    The sockets are held open together so the ports differ; another process
    could still grab one before the server binds it, which is why
    InfluxDB.start() retries with new ports.
    """
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


# What AddressSanitizer, LeakSanitizer and UBSan print when they find
# something: run-tests runs a set of these tests against binaries built
# with them (suite "sanitizer"), where such a line fails the test even if
# the numbers came out right.
_SANITIZER_REPORT = re.compile(r"runtime error:|ERROR: (Address|Leak)Sanitizer|SUMMARY: \w+Sanitizer")


def assert_no_sanitizer_report(lines, who):
    """Fail with the report if any line of a program's stderr is a sanitizer's."""
    found = [line for line in lines if _SANITIZER_REPORT.search(line)]
    if found:
        raise AssertionError(f"{who}: sanitizer report:\n" + "\n".join(lines[-40:]))


# The warnings another test's load can cause: the kernel's process events
# and exit records go to every listener on the host, and a fork burst
# anywhere (a container image build beside the suite) can overflow a
# listener's socket. proctree counts the loss and says so in one of these
# lines; whatever else a test forbids stays forbidden.
LOAD_WARNINGS = ("process events were lost (a burst overflowed the socket)",
                 "exit records were lost (a burst overflowed the socket)")


def load_free(lines):
    """lines (proctree-execd's stderr, or Telegraf's log lines of it) less
    those that host-wide load can cause (LOAD_WARNINGS): a test that
    forbids every W! line forbids what is left."""
    return [line for line in lines if not any(w in line for w in LOAD_WARNINGS)]


CGROUP_V1_CONTROLLERS = ("memory", "cpu", "cpuacct", "pids", "blkio")


def cgroup_mounts():
    """{"v2": the cgroup2 mount, CONTROLLER: its v1 mount} from our mountinfo,
    the first of each, for the v1 controllers proctree reads."""
    found = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            fstype, _source, options = right.split()[:3]
            point = left.split()[4]
            if fstype == "cgroup2":
                found.setdefault("v2", point)
            elif fstype == "cgroup":
                for opt in options.split(","):
                    if opt in CGROUP_V1_CONTROLLERS:
                        found.setdefault(opt, point)
    return found


def read_text(path):
    """A whole (small) file's text."""
    with open(path) as f:
        return f.read()


def doc_block(path, name):
    """The fenced block between <!-- NAME:begin --> and <!-- NAME:end --> of
    the markdown file path: what a test runs as the document says it, so
    that the document cannot drift from what was tested."""
    m = re.search(rf"<!-- {name}:begin -->\n```[a-z]*\n(.*?)```\n<!-- {name}:end -->", read_text(path), re.S)
    if not m:
        raise AssertionError(f"{os.path.relpath(path, SOURCE_ROOT)} has no {name} block")
    return m.group(1)


def file_tail(path, size=4000):
    """The last size bytes of a log file, as text; "(no log)" when there is none."""
    try:
        with open(path, "rb") as f:
            return f.read()[-size:].decode("utf-8", "replace")
    except (OSError, TypeError):
        return "(no log)"


def stop_process(proc, timeout=10.0):
    """Stop a child by its own pid: SIGTERM, wait, SIGKILL as a last resort."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


# ---------------------------------------------------------------- InfluxDB

class InfluxDB:
    """A private influxd 1.x for one test.

    extra_config is appended to the generated config, e.g. a [[collectd]]
    listener section (see collectd_section()).
    """

    def __init__(self, extra_config=""):
        self.extra_config = extra_config
        self.proc = None
        self.tmpdir = None
        self.http_port = None
        self.log_path = None

    # -- life cycle

    def start(self, attempts=3):
        """Start influxd and wait until /ping answers 204.

        A port picked by free_ports() may be taken by the time influxd binds
        it; then influxd exits and we retry with fresh ports.
        """
        self.tmpdir = tempfile.mkdtemp(prefix="proctree-influxd-")
        for attempt in range(attempts):
            rpc_port, self.http_port = free_ports(2)
            conf = os.path.join(self.tmpdir, "influxdb.conf")
            with open(conf, "w") as f:
                f.write(self.config_text(rpc_port, self.http_port))
            self.log_path = os.path.join(self.tmpdir, f"influxd-{attempt}.log")
            with open(self.log_path, "wb") as log:
                self.proc = subprocess.Popen(
                    [shutil.which("influxd") or "/usr/bin/influxd", "run", "-config", conf],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
            if self._wait_ping():
                return self
        raise AssertionError(f"influxd did not start; last log:\n{self.log_tail()}")

    def config_text(self, rpc_port, http_port):
        d = self.tmpdir
        return f"""reporting-disabled = true
bind-address = "127.0.0.1:{rpc_port}"

[meta]
  dir = "{d}/meta"

[data]
  dir = "{d}/data"
  wal-dir = "{d}/wal"

[http]
  enabled = true
  bind-address = "127.0.0.1:{http_port}"
  log-enabled = false

[monitor]
  store-enabled = false

{self.extra_config}
"""

    def _wait_ping(self):
        """True once /ping answers 204; False if influxd exited (port clash)."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                if self._request("GET", "/ping")[0] == 204:
                    return True
            except OSError:
                pass
            time.sleep(0.05)
        stop_process(self.proc)
        raise AssertionError(f"influxd /ping did not answer within {START_TIMEOUT}s:\n{self.log_tail()}")

    def stop(self):
        if self.proc is not None:
            stop_process(self.proc, timeout=30.0)
            self.proc = None
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def log_tail(self, size=4000):
        return file_tail(self.log_path, size)

    # -- HTTP API

    def _request(self, method, path, params=None, body=None):
        url = f"http://127.0.0.1:{self.http_port}{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        req = urllib.request.Request(url, data=body, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace")

    def create_database(self, name):
        status, text = self._request("POST", "/query", {"q": f'CREATE DATABASE "{name}"'})
        if status != 200 or '"error"' in text:
            raise AssertionError(f"CREATE DATABASE {name}: HTTP {status} {text}")
        return name

    def write(self, db, body):
        """POST line protocol to /write; returns (HTTP status, response text)."""
        if isinstance(body, str):
            body = body.encode("utf-8")
        return self._request("POST", "/write", {"db": db, "precision": "ns"}, body)

    def write_ok(self, db, body):
        """Write and require 204, the only answer meaning every point was stored."""
        status, text = self.write(db, body)
        if status != 204:
            raise AssertionError(f"InfluxDB rejected the write: HTTP {status} {text}\nbody:\n{body!r}")

    def query(self, db, q):
        """GET /query with ns epochs; returns the first statement's result dict."""
        status, text = self._request("GET", "/query", {"db": db, "q": q, "epoch": "ns"})
        if status != 200:
            raise AssertionError(f"query {q!r}: HTTP {status} {text}")
        result = json.loads(text)["results"][0]
        if "error" in result:
            raise AssertionError(f"query {q!r}: {result['error']}")
        return result

    def rows(self, db, q):
        """Rows of a query as dicts: columns, plus the series' tags (GROUP BY *).

        What proctree wrote is checked against line_rules as it is read
        back: a row's columns named as metrics (proctree-execd's points), or
        the value of a row whose type_instance names one (collectd's, through
        the [[collectd]] listener); computed columns (derivatives, sums) are
        not metrics and are left alone."""
        rows = []
        for series in self.query(db, q).get("series", []):
            tags = series.get("tags", {})
            for values in series["values"]:
                row = dict(zip(series["columns"], values))
                row.update(tags)
                rows.append(row)
        for row in rows:
            metrics = {k: v for k, v in row.items() if k in metric_names()}
            if row.get("type_instance") in metric_names() and "value" in row:
                metrics[row["type_instance"]] = row["value"]
            if metrics:
                line_rules.check_line(metrics, tags=row, raw=f"InfluxDB {db}: {row}")
        return rows


def collectd_section(port, database, typesdb="/usr/share/collectd/types.db"):
    """A [[collectd]] listener section for InfluxDB(extra_config=...)."""
    return f"""[[collectd]]
  enabled = true
  bind-address = "127.0.0.1:{port}"
  database = "{database}"
  typesdb = "{typesdb}"
  security-level = "none"
  parse-multivalue-plugin = "split"
"""


# ---------------------------------------------------------------- line protocol

@dataclass(frozen=True)
class Point:
    measurement: str
    tags: dict
    fields: dict
    timestamp: int
    raw: str


_INT = re.compile(r"-?[0-9]+i")
_FLOAT = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")
_TIMESTAMP = re.compile(r"-?[0-9]{1,19}")
_BOOLS = {"t": True, "T": True, "true": True, "True": True, "TRUE": True,
          "f": False, "F": False, "false": False, "False": False, "FALSE": False}


def _split_unescaped(text, sep, quotes=False):
    """Split at sep where it is neither backslash-escaped nor inside quotes."""
    parts, cur, i, in_quotes = [], [], 0, False
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            cur.append(text[i:i + 2])
            i += 2
            continue
        if quotes and c == '"':
            in_quotes = not in_quotes
        if c == sep and not in_quotes:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    if in_quotes:
        raise ValueError("unbalanced quotes")
    parts.append("".join(cur))
    return parts


def _unescape(text, specials):
    """Undo line-protocol escapes; other backslashes stay, as InfluxDB 1.6 keeps them."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in specials:
            out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _field_value(text):
    if text.startswith('"'):
        if len(text) < 2 or not text.endswith('"'):
            raise ValueError(f"bad string field {text!r}")
        return _unescape(text[1:-1], '"\\')
    if _INT.fullmatch(text):
        return int(text[:-1])
    if text in _BOOLS:
        return _BOOLS[text]
    if _FLOAT.fullmatch(text):
        return float(text)
    raise ValueError(f"bad field value {text!r}")


def parse_line(line, totals=False):
    """Parse one line of InfluxDB line protocol, strictly.

    proctree's output must be accepted by InfluxDB, so anything InfluxDB 1.6
    would refuse (missing fields, empty tag values, stray spaces, CR, unsigned
    integers, NaN) raises ValueError here too, naming the line. A line no
    interval can hold (line_rules.py: a negative amount, a min above its
    max) raises line_rules.ImpossibleLine; the rules that need the
    interval's length are checked by group_batches, which knows it.
    totals: a line of total mode (--counters total; line_rules.Totals).
    """
    try:
        if "\r" in line or "\t" in line:
            raise ValueError("CR or TAB in line")
        # Quotes are literal in the measurement and tags; only field values
        # can be quoted strings (which may hold spaces).
        key = _split_unescaped(line, " ")[0]
        sections = [key] + _split_unescaped(line[len(key) + 1:], " ", quotes=True)
        if len(sections) not in (2, 3):
            raise ValueError(f"{len(sections)} space-separated sections")
        key = _split_unescaped(sections[0], ",")
        measurement = _unescape(key[0], ", ")
        if not measurement:
            raise ValueError("empty measurement")
        tags = {}
        for tag in key[1:]:
            kv = _split_unescaped(tag, "=")
            if len(kv) != 2 or not kv[0] or not kv[1]:
                raise ValueError(f"bad tag {tag!r}")
            name, value = _unescape(kv[0], ",= "), _unescape(kv[1], ",= ")
            if name in tags:
                raise ValueError(f"duplicate tag {name!r}")
            tags[name] = value
        fields = {}
        for field in _split_unescaped(sections[1], ",", quotes=True):
            kv = _split_unescaped(field, "=", quotes=True)
            if len(kv) != 2 or not kv[0]:
                raise ValueError(f"bad field {field!r}")
            fields[_unescape(kv[0], ",= ")] = _field_value(kv[1])
        timestamp = None
        if len(sections) == 3:
            if not _TIMESTAMP.fullmatch(sections[2]):
                raise ValueError(f"bad timestamp {sections[2]!r}")
            timestamp = int(sections[2])
        point = Point(measurement, tags, fields, timestamp, line)
    except ValueError as e:
        raise ValueError(f"invalid line protocol ({e}): {line!r}") from None
    line_rules.check_line(point.fields, tags=point.tags, raw=line, whole=measurement == line_rules.MEASUREMENT,
                          totals=totals)
    return point


def group_batches(points, totals=False):
    """Group points into batches by timestamp, in order of appearance.

    Every line of a batch carries the batch's timestamp, and batches are
    written whole, so distinct timestamps are distinct batches. Every line
    is checked against line_rules with its interval: the time since the
    batch before (points of one run, in the order printed); in total
    mode (totals), on the differences of its totals (line_rules.Totals).
    """
    batches = {}
    for p in points:
        if p.timestamp is None:
            raise AssertionError(f"line without a timestamp: {p.raw!r}")
        batches.setdefault(p.timestamp, []).append(p)
    return line_rules.check_batches(list(batches.items()), totals=totals)


def target_line(batch_points, target):
    """The total line of a batch tagged target=TARGET (not a breakdown
    group's, tagged process=, title=, thread= or cgroup=NAME too), or None."""
    found = [p for p in batch_points
             if p.tags.get("target") == target and not any(k in p.tags for k in line_rules.GROUP_TAGS)]
    if len(found) > 1:
        raise AssertionError(f"{len(found)} lines for target {target!r} in one batch")
    return found[0] if found else None


def global_line(batch_points):
    """The untagged line of a batch, which carries the global_* fields."""
    found = [p for p in batch_points if not p.tags]
    if len(found) != 1:
        raise AssertionError(f"expected one global line per batch, got {len(found)}: "
                             f"{[p.raw for p in batch_points]}")
    return found[0]


# ---------------------------------------------------------------- proctree-execd

class InfluxTestCase(unittest.TestCase):
    """A test case with one influxd for the whole class, as cls.influx."""

    @classmethod
    def setUpClass(cls):
        cls.influx = InfluxDB().start()

    @classmethod
    def tearDownClass(cls):
        cls.influx.stop()


def forced_source(args, wrapper=(), env=None):
    """The --source the suite "sources" forces on every proctree-execd
    (PROCTREE_TEST_SOURCE: procfs or bpf), as arguments to put first; none
    where the test chooses its own, or where BPF cannot serve by design (a
    proc root of the test's choosing, a namespace of its own)."""
    source = os.environ.get("PROCTREE_TEST_SOURCE")
    if not source or "--source" in args:
        return []
    if source == "bpf" and ("--proc-root" in args or wrapper or (env or os.environ).get("HOST_PROC")):
        return []
    return ["--source", source]


def counters_total(args):
    """Whether proctree-execd's args ask for total mode (--counters total;
    the last --counters wins, as it does there)."""
    mode = "delta"
    for i, a in enumerate(args):
        if a == "--counters" and i + 1 < len(args):
            mode = args[i + 1]
        elif a.startswith("--counters="):
            mode = a.split("=", 1)[1]
        elif a == "--":
            break
    return mode == "total"


class Execd:
    """proctree-execd run as Telegraf's inputs.execd runs it.

    stdin, stdout and stderr are pipes. Threads drain stdout and stderr
    (Telegraf does too: an undrained pipe would block the program and hide
    bugs) and record every complete line with its arrival time, so tests can
    wait for batches with a deadline and count them afterwards.
    """

    def __init__(self, args, stdin=subprocess.PIPE, wrapper=(), program=None, **popen_kw):
        """wrapper: a command line that runs proctree-execd (e.g. unshare ...
        sh -c '"$@"' sh), put before it. program: another copy of the binary."""
        args = [str(a) for a in args]
        self.args = ([str(a) for a in wrapper] + [program or execd_path()] +
                     forced_source(args, wrapper, popen_kw.get("env")) + args)
        self.totals = counters_total(args)
        self.proc = subprocess.Popen(self.args, stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, **popen_kw)
        self.pid = self.proc.pid
        self._cond = threading.Condition()
        self.out = []          # (arrival monotonic time, line text without '\n')
        self.err = []          # stderr lines
        self.out_partial = b""  # bytes after the last '\n' (must stay empty)
        self._detached = threading.Event()
        self._threads = [
            threading.Thread(target=self._drain, args=(self.proc.stdout, True), daemon=True),
            threading.Thread(target=self._drain, args=(self.proc.stderr, False), daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _drain(self, pipe, is_stdout):
        """Read a pipe until EOF, or until detach_stdout() asks to drop stdout.

        select() with a short timeout lets the thread notice a detach: the
        read end must be closed by the thread that reads it, or a blocked
        read would keep the pipe open.
        """
        pending = b""
        fd = pipe.fileno()
        while not (is_stdout and self._detached.is_set()):
            if not select.select([fd], [], [], 0.05)[0]:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            now = time.monotonic()
            with self._cond:
                for raw in lines:
                    text = raw.decode("utf-8", "replace")
                    if is_stdout:
                        self.out.append((now, text))
                    else:
                        self.err.append(text)
                self._cond.notify_all()
        with self._cond:
            if is_stdout:
                self.out_partial = pending
            elif pending:
                self.err.append(pending.decode("utf-8", "replace"))
            self._cond.notify_all()
        pipe.close()

    def detach_stdout(self):
        """Stop reading stdout and close its read end: the reader is gone (EPIPE)."""
        self._detached.set()
        self._threads[0].join(BATCH_TIMEOUT)

    # -- driving it

    def wait_started(self, timeout=START_TIMEOUT):
        """Until its first tick has said which source serves: requests on
        stdin before then (a BPF load, a loaded host) make one batch."""
        self._wait(lambda: any("source: " in l for l in self.err), timeout, "its first tick's source line")

    def send(self, data=b"\n"):
        """Write to its stdin, as Telegraf's signal = "STDIN" does each tick."""
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def close_stdin(self):
        self.proc.stdin.close()

    def signal(self, sig):
        self.proc.send_signal(sig)

    def running(self):
        return self.proc.poll() is None

    def worker_pid(self):
        """Launch mode: the process started is a supervisor whose one child,
        the worker, follows the command and is its parent
        (execd-bin/supervise.h); on a systemd host it also has a keeper of the
        command's scope (common/include/proctree/launch.h), which is not it."""
        def workers():
            return [k for k in children(self.pid) if comm(k) not in ("proctree-keeper", None)]
        kids = wait_until(workers, START_TIMEOUT, "proctree-execd's worker")
        if len(kids) != 1:
            raise AssertionError(f"proctree-execd {self.pid} has {len(kids)} children, not one worker")
        return kids[0]

    def wait_exit(self, timeout=BATCH_TIMEOUT):
        """Exit status once it exits by itself; fail (and kill it) at the deadline."""
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError(f"proctree-execd did not exit within {timeout}s\n{self.describe()}")
        self.join()
        assert_no_sanitizer_report(self.stderr_lines(), "proctree-execd")
        return status

    def join(self):
        for t in self._threads:
            t.join(BATCH_TIMEOUT)

    def stop(self):
        """Stop it by its pid (if still running) and collect the rest of its output."""
        if self.proc.stdin and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        stop_process(self.proc, timeout=5.0)
        self.join()
        assert_no_sanitizer_report(self.stderr_lines(), "proctree-execd")
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- its output

    def lines(self):
        with self._cond:
            return [text for _, text in self.out]

    def stdout_bytes(self):
        """Exactly what it printed (complete lines), for POSTing to InfluxDB."""
        return "".join(line + "\n" for line in self.lines()).encode("utf-8")

    def stderr_lines(self):
        with self._cond:
            return list(self.err)

    def points(self):
        """Its lines parsed (parse_line), each written as a person reads it
        (line_rules.check_written: no float in exponent form)."""
        return [parse_line(line_rules.check_written(line), self.totals) for line in self.lines()]

    def batches(self):
        return group_batches(self.points(), self.totals)

    def batch_count(self):
        with self._cond:
            return len({_timestamp_of(text) for _, text in self.out})

    def wait_batches(self, count, timeout=BATCH_TIMEOUT):
        """Wait until at least count batches were printed; returns all batches."""
        self._wait(lambda: self.batch_count() >= count, timeout, f"{count} batches")
        return self.batches()

    def wait_for(self, predicate, timeout, what):
        """Wait until predicate(self) holds, re-checked whenever output arrives."""
        self._wait(lambda: predicate(self), timeout, what)

    def _wait(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                # Output wakes us up; the short cap re-checks predicates that
                # depend on the process state rather than on output.
                self._cond.wait(min(left, 0.1))
            else:
                return
        raise AssertionError(f"timed out after {timeout:.1f}s waiting for {what}\n{self.describe()}")

    def describe(self):
        """What it did so far, for failure messages."""
        out = self.lines()
        shown = "\n".join(out[-12:])
        err = "\n".join(self.stderr_lines()[-12:])
        return (f"command: {self.args}\nexit status: {self.proc.poll()}\n"
                f"stdout ({len(out)} lines, last 12):\n{shown}\nstderr (last 12):\n{err}")


def _timestamp_of(text):
    """Timestamp field of a line, cheaply (the last space-separated word)."""
    return text.rsplit(" ", 1)[-1]


def run_execd(args, timeout=BATCH_TIMEOUT):
    """Run proctree-execd to completion with stdin at EOF; returns CompletedProcess (text).

    For command-line checks only: at stdin EOF a running proctree-execd
    exits, so anything that must produce batches uses Execd instead.
    """
    result = subprocess.run([execd_path()] + [str(a) for a in args], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=timeout)
    assert_no_sanitizer_report(result.stderr.splitlines(), "proctree-execd")
    return result


_METRIC_NAMES = None


def metric_names():
    """The catalog's metric names (cached)."""
    global _METRIC_NAMES
    if _METRIC_NAMES is None:
        _METRIC_NAMES = frozenset(catalog())
    return _METRIC_NAMES


def catalog():
    """Metric name -> (scope, unit) from common/include/proctree/catalog.h, the single source of names."""
    with open(os.path.join(SOURCE_ROOT, "common", "include", "proctree", "catalog.h")) as f:
        text = f.read()
    rows = re.findall(r'X\(\s*\w+\s*,\s*"(\w+)"\s*,\s*(\w+)\s*,\s*\w+\s*,\s*(\w+)\s*,', text)
    if not rows:
        raise AssertionError("no metric found in common/include/proctree/catalog.h")
    return {name: (scope, unit) for name, scope, unit in rows}


def catalog_kinds():
    """Metric name -> kind (GAUGE_MIN, GAUGE_MAX, DELTA, COUNT, RATIO) from common/include/proctree/catalog.h."""
    with open(os.path.join(SOURCE_ROOT, "common", "include", "proctree", "catalog.h")) as f:
        text = f.read()
    rows = re.findall(r'X\(\s*\w+\s*,\s*"(\w+)"\s*,\s*\w+\s*,\s*(\w+)\s*,', text)
    if not rows:
        raise AssertionError("no metric found in common/include/proctree/catalog.h")
    return dict(rows)


def store_and_read_back(influx, db, body, points):
    """POST what proctree printed to InfluxDB and check it reads back unchanged.

    Requires HTTP 204 (every point stored), then finds each printed point by
    its timestamp and target tag and compares every field value, and checks
    that fields printed as integers are stored as integers (InfluxDB fixes a
    field's type at its first write, so a type slip would break later writes).
    """
    influx.create_database(db)
    influx.write_ok(db, body)
    rows = influx.rows(db, 'SELECT * FROM "proctree" GROUP BY *')
    if len(rows) != len(points):
        raise AssertionError(f"{len(points)} points printed, {len(rows)} read back")
    for p in points:
        target = p.tags.get("target", "")
        match = [r for r in rows if r["time"] == p.timestamp and r.get("target", "") == target]
        if len(match) != 1:
            raise AssertionError(f"printed point not read back once: {p.raw!r}")
        for name, value in p.fields.items():
            if match[0].get(name) != value:
                raise AssertionError(f"{name}: printed {value!r}, read back {match[0].get(name)!r}")
    types = {}
    for row in influx.rows(db, 'SHOW FIELD KEYS FROM "proctree"'):
        types[row["fieldKey"]] = row["fieldType"]
    for p in points:
        for name, value in p.fields.items():
            if isinstance(value, int) and not isinstance(value, bool) and types.get(name) != "integer":
                raise AssertionError(f"{name} printed as integer, stored as {types.get(name)}")
    return rows


# ---------------------------------------------------------------- /proc truth

def comm(pid):
    """/proc/PID/comm without its newline, or None once pid is gone."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().rstrip("\n")
    except (FileNotFoundError, ProcessLookupError):
        return None


def children(pid):
    """Direct children of pid, from every thread's children file."""
    kids = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids += [int(k) for k in f.read().split()]
    except (FileNotFoundError, ProcessLookupError):  # gone meanwhile (ESRCH on a reaped thread)
        pass
    return kids


def descendants_and_self(pid):
    """pid and all its live descendants, root first."""
    tree, todo = [], [pid]
    while todo:
        p = todo.pop(0)
        tree.append(p)
        todo += children(p)
    return tree


def statm(pid):
    """/proc/PID/statm as bytes: size, resident, shared."""
    with open(f"/proc/{pid}/statm") as f:
        size, resident, shared = (int(x) * PAGE_SIZE for x in f.read().split()[:3])
    return size, resident, shared


def pss_bytes(pid):
    """/proc/PID/smaps_rollup's Pss in bytes: what a member adds to proc_pss_*."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no Pss in /proc/{pid}/smaps_rollup")


def tree_resident_bytes(pids):
    """Sum of statm resident over pids: what proc_rss_* must report."""
    return sum(statm(p)[1] for p in pids)


def meminfo():
    """/proc/meminfo in bytes."""
    info = {}
    with open("/proc/meminfo") as f:
        for line in f:
            name, rest = line.split(":", 1)
            value = rest.split()
            info[name] = int(value[0]) * (1024 if len(value) > 1 else 1)
    return info


def mem_used_bytes():
    """MemTotal - MemAvailable, the definition of global_mem_used."""
    info = meminfo()
    return info["MemTotal"] - info["MemAvailable"]


def write_pidfile(path, pid):
    """Replace the pidfile atomically, as a service manager does (no half-written pid)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{pid}\n")
    os.rename(tmp, path)


# ---------------------------------------------------------------- workloads

class Workload:
    """A workload program that prints "ready PID" lines when set up.

    Its stdin is a pipe: closing it stops the program (memtree's root and
    iopump exit at EOF), so a test never depends on signal timing to clean up.
    """

    def __init__(self, argv, ready_count=1, timeout=START_TIMEOUT):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.pid = self.proc.pid
        self._buf = b""
        self.ready_pids = [int(w.split()[1]) for w in self.read_lines(ready_count, timeout, "ready")]

    def read_lines(self, count, timeout, what):
        """Read count lines from its stdout, with a deadline."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        lines = []
        while len(lines) < count:
            if b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                lines.append(line.decode())
                continue
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                self.stop()
                raise AssertionError(f"{what}: got {lines} of {count} lines within {timeout}s")
            chunk = os.read(fd, 4096)
            if not chunk:
                raise AssertionError(f"{what}: workload exited after {lines}")
            self._buf += chunk
        return lines

    def send(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def stop(self):
        """Close stdin (its way to stop), then make sure it is gone."""
        if not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            self.proc.wait(BATCH_TIMEOUT)
        except subprocess.TimeoutExpired:
            stop_process(self.proc)
        self.proc.stdout.close()
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def memtree(nprocs, mib_each):
    """Start memtree NPROCS MIB_EACH and wait until every member is ready."""
    return Workload([memtree_path(), str(nprocs), str(mib_each)], ready_count=nprocs)


def iopump(nbytes):
    """Start iopump BYTES; send it b"go\\n" to move BYTES through read and write."""
    return Workload([iopump_path(), str(nbytes)], ready_count=1)


def assert_line_possible(testcase, point, seconds=None):
    """No impossible line (line_rules.py): every X_min at most its X_max, no
    negative or non-finite amount, and, given the interval's length, no
    time spent in it that it cannot hold."""
    try:
        line_rules.check_line(point.fields, seconds, tags=point.tags, raw=point.raw)
    except line_rules.ImpossibleLine as e:
        testcase.fail(str(e))
