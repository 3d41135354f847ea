"""The shipped Grafana dashboards (packaging/dashboards/) pass Grafana's own
dashboard schema, as its Apache-2.0 foundation SDK publishes it (Go types
generated from Grafana's CUE, a strict decoder and Validate()), with 0
errors.

Why: Grafana's import is lenient, so a dashboard that drifts from the
schema still loads today, and then breaks on a stricter Grafana or in a
tool that reads dashboards by the schema. The checker is main.go here,
built with the Go toolchain the Telegraf tests use (tests/telegraf/
get-telegraf: the go on PATH, else /usr/local/go/bin; GOTOOLCHAIN=local,
CGO_ENABLED=0, GOPROXY as the environment sets it, the module cache first
so that it runs offline once the SDK is there). Without Go, or where the SDK
can be had from neither the module cache nor the proxy, one line says why
and the test is skipped (77), not passed.

The checker is held to failing as well: broken copies of a shipped
dashboard, one fault each, must each give exactly the one error line
that names the file and the JSON path of the fault, and exit 1.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DASHBOARDS = os.path.join(ROOT, "packaging", "dashboards")
SHIPPED = ["proctree-telegraf-influxdb.json", "proctree-collectd-influxdb.json",
           "proctree-collectd-graphite.json", "proctree-telegraf-prometheus.json",
           "proctree-collectd-prometheus.json"]


def skip(why):
    print(f"SKIP: {why}", flush=True)
    sys.exit(SKIP)


def fail(why):
    print(f"FAIL: {why}", flush=True)
    sys.exit(1)


def go_binary():
    found = shutil.which("go")
    if not found and os.access("/usr/local/go/bin/go", os.X_OK):
        found = "/usr/local/go/bin/go"
    return found


def go_env():
    env = dict(os.environ)
    # Never let go fetch a newer toolchain by itself (as get-telegraf);
    # -mod=mod lets go.sum be used as it is without a vendor folder.
    env.update(GOTOOLCHAIN="local", CGO_ENABLED="0", GOFLAGS="-mod=mod")
    return env


def version_tuple(text):
    return tuple(int(n) for n in re.findall(r"\d+", text)[:3])


def build(go, work):
    """Build the checker from a copy of this folder (go may touch go.mod
    and go.sum: never in the source tree); its path."""
    src = os.path.join(work, "src")
    os.mkdir(src)
    for name in ("go.mod", "go.sum", "main.go"):
        shutil.copy(os.path.join(HERE, name), src)
    with open(os.path.join(src, "go.mod"), encoding="utf-8") as f:
        mod = f.read()
    need = re.search(r"^go (\S+)$", mod, re.M).group(1)
    sdk = re.search(r"^require (\S+ \S+)$", mod, re.M).group(1)
    have = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, env=go_env()).stdout.strip()
    if version_tuple(have) < version_tuple(need):
        skip(f"tests/grafana-schema needs Go >= {need}, found {have or 'none'} ({go}): install a newer Go "
             "(https://go.dev/dl)")
    got = subprocess.run([go, "mod", "download"], cwd=src, capture_output=True, text=True, env=go_env())
    if got.returncode != 0:
        proxy = subprocess.run([go, "env", "GOPROXY"], capture_output=True, text=True, env=go_env()).stdout.strip()
        last = (got.stderr.strip().splitlines() or ["?"])[-1]
        skip(f"cannot get {sdk} from the module cache or the Go module proxy ({proxy}): {last}")
    binary = os.path.join(work, "grafana-schema")
    made = subprocess.run([go, "build", "-trimpath", "-o", binary, "."], cwd=src, capture_output=True, text=True,
                          env=go_env())
    if made.returncode != 0:
        fail(f"building tests/grafana-schema failed:\n{made.stderr}")
    return binary


def check(binary, paths):
    res = subprocess.run([binary] + paths, capture_output=True, text=True)
    if res.returncode not in (0, 1) or res.stderr:
        fail(f"grafana-schema exited {res.returncode}: {res.stderr.strip()}")
    return res.returncode, res.stdout.splitlines()


def timeseries_index(d):
    return next(i for i, p in enumerate(d["panels"]) if p["type"] == "timeseries")


def variable_index(d, kind):
    return next(i for i, v in enumerate(d["templating"]["list"]) if v["type"] == kind)


def faults(d):
    """(what, change the dashboard d in place, the one error line expected
    after the file name) of each deliberate fault."""
    p, q = timeseries_index(d), variable_index(d, "query")

    def drop_calcs(d):
        del d["panels"][p]["options"]["legend"]["calcs"]

    def stray_legend_key(d):
        d["panels"][p]["options"]["legend"]["colour"] = "red"

    def stray_custom_key(d):
        d["panels"][p]["fieldConfig"]["defaults"]["custom"]["lineWidht"] = 2

    def drop_current_value(d):
        del d["templating"]["list"][q]["current"]["value"]

    def too_wide(d):
        d["panels"][p]["gridPos"]["w"] = 25

    def stray_top_key(d):
        d["__exported"] = True

    def unknown_panel_type(d):
        d["panels"][p]["type"] = "proctree-own-panel"

    def collapsed_row_panel_without_calcs(d):
        row = next(x for x in d["panels"] if x["type"] == "row")
        row["collapsed"] = True
        inner = json.loads(json.dumps(d["panels"][p]))
        del inner["options"]["legend"]["calcs"]
        row["panels"] = [inner]

    def stray_prometheus_query_key(d):
        d["panels"][p]["targets"][0]["exprr"] = "up"

    row = next(i for i, x in enumerate(d["panels"]) if x["type"] == "row")
    # the SDK has the Prometheus data source's query type: its targets are
    # decoded strictly too (InfluxDB's and Graphite's are not)
    prometheus = [("an unknown key in a Prometheus query", stray_prometheus_query_key,
                   f"panels[{p}].targets[0].exprr: unexpected field")] \
        if d["panels"][p]["datasource"]["type"] == "prometheus" else []
    return prometheus + [
        ("a panel's legend calcs removed", drop_calcs,
         f"panels[{p}].options.legend.calcs: required field is missing from input"),
        # the options are decoded as timeseries.Options, key by key
        ("an unknown key in a panel's legend", stray_legend_key,
         f"panels[{p}].options.legend.colour: unexpected field"),
        ("an unknown key in a panel's custom field config", stray_custom_key,
         f"panels[{p}].fieldConfig.defaults.custom.lineWidht: unexpected field"),
        ("a variable's current.value removed", drop_current_value,
         f"templating.list[{q}].current.value: required field is missing from input"),
        # Validate(): the grid is 24 columns wide
        ("a panel 25 columns wide", too_wide, f"panels[{p}].gridPos.w: must be <= 24"),
        # only the export envelope is set aside
        ("a key beside the export envelope", stray_top_key, "__exported: unexpected field"),
        ("a panel type the SDK has no schema for", unknown_panel_type,
         f'panels[{p}].type: no schema for panel type "proctree-own-panel" in the SDK: its options cannot be checked'),
        ("a collapsed row's panel without legend calcs", collapsed_row_panel_without_calcs,
         f"panels[{row}].panels[0].options.legend.calcs: required field is missing from input"),
    ]


def main():
    go = go_binary()
    if not go:
        skip("no Go toolchain to build tests/grafana-schema (the go on PATH or /usr/local/go/bin/go): "
             "install Go (https://go.dev/dl)")
    shipped = sorted(f for f in os.listdir(DASHBOARDS) if f.endswith(".json"))
    if shipped != sorted(SHIPPED):
        fail(f"packaging/dashboards/ holds {shipped}, this test knows {sorted(SHIPPED)}")
    with tempfile.TemporaryDirectory(prefix="proctree-grafana-schema-") as work:
        binary = build(go, work)

        paths = [os.path.join(DASHBOARDS, f) for f in SHIPPED]
        rc, lines = check(binary, paths)
        print(f"shipped dashboards: {len(lines)} errors", flush=True)
        if rc != 0 or lines:
            fail("the shipped dashboards do not pass Grafana's schema:\n" + "\n".join(lines))

        # each fault alone, in a copy of each shipped dashboard
        bad = 0
        for name in SHIPPED:
            with open(os.path.join(DASHBOARDS, name), encoding="utf-8") as f:
                original = json.load(f)
            for what, change, want in faults(json.loads(json.dumps(original))):
                d = json.loads(json.dumps(original))
                change(d)
                path = os.path.join(work, name)
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(d, f, indent=2)
                rc, lines = check(binary, [path])
                if rc != 1 or lines != [f"{path}: {want}"]:
                    print(f"{name} with {what}: exit {rc}, want 1 and only '{path}: {want}', got:\n  "
                          + "\n  ".join(lines or ["(nothing)"]), flush=True)
                    bad += 1
                else:
                    print(f"{name} with {what}: found ({want})", flush=True)
        if bad:
            fail(f"{bad} deliberate faults not reported as they should be")
    print("PASS: 0 errors in the shipped dashboards; every deliberate fault reported", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
