"""Run the real Telegraf (inputs.execd) around proctree-execd.

Telegraf comes from tests/telegraf/get-telegraf (the one on PATH, else the
custom build it made, which run-tests makes on a fresh machine). When there
is none, a test module calls telegraf_or_skip() first: it prints one line and
exits 77, which meson counts as skipped, never as passed.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import harness as h

HOSTNAME = "proctree-telegraf-test"
SKIP = 77


def telegraf_or_skip():
    """Path of a Telegraf binary, or exit 77 (skip) with one line why."""
    path = os.environ.get("PROCTREE_TELEGRAF")
    if not path:
        script = os.environ.get("PROCTREE_GET_TELEGRAF") or os.path.join(
            h.SOURCE_ROOT, "tests", "telegraf", "get-telegraf")
        found = subprocess.run([script, "--no-build"], capture_output=True, text=True)
        path = found.stdout.strip()
    if not path or not os.access(path, os.X_OK):
        print("SKIP: no Telegraf: run tests/telegraf/get-telegraf (needs Go >= 1.26 and the Go module proxy) "
              "or put telegraf on PATH", flush=True)
        sys.exit(SKIP)
    return path


def toml_list(items):
    return "[" + ", ".join(toml_string(i) for i in items) + "]"


def toml_string(text):
    """A TOML basic string: JSON's escapes are valid TOML ones."""
    return json.dumps(text)


def process_alive(pid):
    """Exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def pids_with_cmdline(marker):
    """Live processes whose command line holds marker (a unique string),
    except proctree-execd, whose own command line holds the job's."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if (marker.encode() in f.read() and process_alive(int(entry))
                        and _comm(int(entry)) != "proctree-execd"):
                    found.append(int(entry))
        except OSError:
            pass
    return found


def prometheus_client_output(port, block=None):
    """[[outputs.prometheus_client]] serving /metrics on 127.0.0.1:port:
    block (the doc's, its "127.0.0.1:9273" with port put in) or one of
    its own."""
    if block is not None:
        if '"127.0.0.1:9273"' not in block:
            raise AssertionError(f'outputs.prometheus_client block without "127.0.0.1:9273": {block}')
        return "\n" + block.replace('"127.0.0.1:9273"', f'"127.0.0.1:{port}"')
    return f"""
[[outputs.prometheus_client]]
  listen = "127.0.0.1:{port}"
  metric_version = 2
  export_timestamp = true
"""


def config_text(execd_command, metrics_file, signal_name="STDIN", influx=None, database="telegraf",
                extra_outputs="", interval="1s"):
    """A telegraf.conf with one [[inputs.execd]] running execd_command (a
    list), outputs.file to metrics_file (as Telegraf sees it), and
    outputs.influxdb when an InfluxDB is given, then extra_outputs (config
    text, e.g. prometheus_client_output()). The agent's interval is 1 s
    unless given, so a gather (a newline or signal to proctree-execd)
    happens every second; outputs flush every second."""
    config = f"""
[agent]
  interval = "{interval}"
  round_interval = true  # the first tick waits for a whole second: see docs/TELEGRAF.md on signal modes
  flush_interval = "1s"
  flush_jitter = "0s"
  collection_jitter = "0s"
  hostname = "{HOSTNAME}"
  omit_hostname = false

[[inputs.execd]]
  command = {toml_list([str(a) for a in execd_command])}
  signal = "{signal_name}"
  restart_delay = "10s"
  data_format = "influx"

[[outputs.file]]
  files = [{toml_string(metrics_file)}]
  data_format = "influx"
"""
    if influx:
        config += f"""
[[outputs.influxdb]]
  urls = ["http://127.0.0.1:{influx.http_port}"]
  database = "{database}"
"""
    return config + extra_outputs


class TelegrafRun:
    """What a running Telegraf leaves in a temp dir: its config, its
    outputs.file and its log. How it is started and stopped is the
    subclass's (its __init__ and stop_running())."""

    totals = False  # proctree-execd --counters total: the amounts are totals (line_rules.Totals)

    def __init__(self, prefix):
        self.tmp = tempfile.TemporaryDirectory(prefix=prefix)
        self.metrics_path = os.path.join(self.tmp.name, "metrics.out")
        self.log_path = os.path.join(self.tmp.name, "telegraf.log")
        self.config_path = os.path.join(self.tmp.name, "telegraf.conf")
        self.log = open(self.log_path, "wb")

    def write_config(self, text):
        with open(self.config_path, "w") as f:
            f.write(text)

    def stop(self):
        self.stop_running()
        self.log.close()
        self.tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def log_text(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def points(self):
        """What outputs.file holds, parsed strictly (complete lines only)."""
        try:
            with open(self.metrics_path, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            return []
        return [h.parse_line(line, self.totals) for line in text.split("\n")[:-1] if line]

    def batches(self):
        """(timestamp, points) per batch, in timestamp order."""
        return sorted(h.group_batches(self.points(), self.totals), key=lambda b: b[0])

    def wait_batches(self, count, timeout=30.0):
        try:
            return h.wait_until(lambda: len(self.batches()) >= count and self.batches(), timeout,
                                f"{count} batches in Telegraf's file output", interval=0.1)
        except AssertionError as e:
            raise AssertionError(f"{e}\n{self.describe()}") from None

    def describe(self):
        with open(self.config_path) as f:
            return f"config:\n{f.read()}\nlog:\n{self.log_text()[-4000:]}"


class Telegraf(TelegrafRun):
    """Telegraf on the host with one [[inputs.execd]] running
    proctree-execd ARGS (config_text). Stopped by its own pid."""

    def __init__(self, telegraf, execd_args, signal_name="STDIN", influx=None, database="telegraf",
                 extra_outputs="", interval="1s"):
        super().__init__("proctree-telegraf-")
        self.totals = h.counters_total([str(a) for a in execd_args])
        self.write_config(config_text([h.execd_path()] + list(execd_args), self.metrics_path, signal_name, influx,
                                      database, extra_outputs, interval))
        self.proc = subprocess.Popen([telegraf, "--config", self.config_path], stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def stop_running(self):
        h.stop_process(self.proc, timeout=15.0)

    def execd_pids(self):
        """proctree-execd processes Telegraf runs now."""
        return [p for p in h.children(self.proc.pid) if process_alive(p) and _comm(p) == "proctree-execd"]

    def wait_execd(self):
        return h.wait_until(lambda: self.execd_pids(), h.START_TIMEOUT,
                            "Telegraf to start proctree-execd\n" + self.log_text())[0]

    def signal(self, sig):
        self.proc.send_signal(sig)


def _comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def assert_clean_log(test, telegraf):
    """No parse error; proctree's own W!/I! lines at their level, never as stderr: errors."""
    log = telegraf.log_text()
    test.assertNotIn("parse error", log, telegraf.describe())
    for line in log.splitlines():
        # Telegraf's own race at a stop, not a line of ours: its execd calls
        # exec.Cmd.Wait, which closes the pipes, while its reader of our
        # stderr may still be reading (Go's os/exec: "incorrect to call Wait
        # before all reads from the pipe have completed"); seen once with
        # the host's two CPUs busy with a dozen other tests
        if line.endswith("read |0: file already closed"):
            continue
        test.assertFalse(" E! " in line and "stderr:" in line, f"unprefixed stderr line: {line}\n{log}")
        test.assertNotIn("error reading stderr", line, log)


def wait_gone(pid, timeout):
    """Wait until pid has exited; returns how long it took."""
    start = time.monotonic()
    h.wait_until(lambda: not process_alive(pid), timeout, f"pid {pid} to exit", interval=0.01)
    return time.monotonic() - start
