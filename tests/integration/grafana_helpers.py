"""What Grafana does to a dashboard's query before it sends it.

The tests run the dashboards' own queries (packaging/dashboards/) against a
real influxd, so they put the template variables in as Grafana's InfluxDB
data source does: dashboards (every panel, every variable) and
telegraf-doc (docs/TELEGRAF.md's configuration, read back with them).
"""

import re


def grafana_escape_regex(value):
    """What Grafana's InfluxDB data source does to a value put in a /regex/."""
    return re.sub(r"([\\^$*+?.()|\[\]{}/])", r"\\\1", value)


def interpolate(query, variables):
    """$name, ${name} and ${name:regex} replaced as Grafana does (the regex
    format: the value regex-escaped, several as (a|b)); a $ left over
    fails, and so does a variable inside an InfluxQL /regex/ without
    :regex (Grafana puts a single value there raw, or escaped, by version)."""
    for rx in re.findall(r"[=!]~ (/(?:[^/\\]|\\.)*/)", query):
        for m in re.finditer(r"\$\{(\w+)(:\w+)?\}|\$(\w+)", rx):
            if m.group(2) != ":regex":
                raise AssertionError(f"{m.group(0)} inside {rx} without :regex: {query}")

    def sub(m):
        name, fmt = m.group(1) or m.group(3), m.group(2)
        if name not in variables:
            raise AssertionError(f"variable ${name} has no value: {query}")
        value = variables[name]
        if fmt == "regex":
            if isinstance(value, list):
                return "(" + "|".join(grafana_escape_regex(v) for v in value) + ")"
            return grafana_escape_regex(value)
        if fmt:
            raise AssertionError(f"format {fmt} not rendered here: {query}")
        return value
    return re.sub(r"\$\{(\w+)(?::(\w+))?\}|\$(\w+)", sub, query)


def influx_vars(host, target, start_ns, end_ns, by=None, interval="1s"):
    """The variables of an InfluxQL panel over [start_ns, end_ns]: an
    absolute $timeFilter as Grafana writes it (epoch milliseconds), and
    $__interval, which the tests set to the batches' interval so that a
    time bucket holds one batch."""
    v = {"host": host, "target": target,
         "timeFilter": f"time >= {start_ns // 1_000_000}ms and time <= {-(-end_ns // 1_000_000)}ms",
         "__interval": interval}
    if by:
        v["by"] = by
    return v


def graphite_target(target, variables):
    """A Graphite target as Grafana's Graphite data source sends it: the
    variables put in, then a quoted interval in minutes, '5m', written
    '5min' (graphite-web reads a lone m as nothing it knows)."""
    return re.sub(r"'(\d+)m'", lambda m: f"'{m.group(1)}min'", interpolate(target, variables))
