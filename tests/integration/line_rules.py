"""One rule every line obeys: what no interval of any process tree can hold.

The integration harnesses (harness.py's parse_line / Execd.points / batches,
telegraf_harness.py, collectd_harness.py's csv, Graphite and InfluxDB
readers) hand every line they read from either frontend to check_line(), so
that an impossible number fails whichever test happened to print it, not
only a test written to look for it. test_line_validator.py shows each rule
caught on a crafted line.

The rules, for a line of an interval of S seconds on a host of N CPUs:

* every line of proctree's says S (collector_interval_seconds), and S > 0;
  S is at most the time since the line before of its series where a
  reader knows it (the batches' timestamps: a breakdown group's line may
  skip batches, so S is not always all of it), and the rules below that
  need S take the line's own, but for the tree's CPU counters, which a
  line may carry for the intervals before it too: their span, known to a
  reader that follows the series (WithheldSpan), else the time since the
  line before;
* every number is finite (no NaN, no inf) and none is negative: amounts,
  counts, seconds and percentages alike;
* proctree-execd writes no float with a negative exponent (check_written):
  7.5e-05 is read as 7.5 by a person;
* every X_min is at most its X_max;
* a whole line's network namespace figures (netns_*) are all four or
  none, and never beside proc_net_tcp_*: they are given only where every
  live member is in another namespace than proctree's, where sock_diag
  cannot answer and the TCP figures are left out;
* the processes counted in a state are at most the live processes;
* a time spent in the interval fits in it:
  - CPU (proc_cpu_user_seconds + proc_cpu_system_seconds, cgroup_cpu_user +
    system, collector_cpu_seconds) at most S x N, and proc_cpu_percent at
    most 100 x N;
  - throttling (cgroup_cpu_throttled_seconds, counted per CPU's run queue)
    at most S x N;
  - a pressure stall's "some" (cgroup_pressure_*_some_seconds) at most S:
    it is the share of wall time in which at least one task stalled (the
    kernel's total is a mean over CPUs weighted by their busy time, so it
    cannot pass the wall time), and "full" at most "some";
  - delays summed over threads (proc_cpu_delay_seconds, run-queue waits;
    proc_blkio_delay_seconds) are amounts, never negative, and have no
    upper bound here: the kernel credits a wait at its end, and an exit
    record a whole life's (problems() says why).

The slack, and why (TICK = 1 / sysconf(_SC_CLK_TCK), 10 ms here):

* /proc/PID/stat gives utime and stime in clock ticks, each the exact run
  time cut down to a tick, so a counter read at an interval's two ends can
  grow by up to a tick more than what ran between them (two a process:
  utime, stime), and a zombie's fold brings its truncated ticks at the
  reap. proctree reports at most the interval's length x the CPUs online,
  rounded up to a tick (common/accounting/ledger.h), and leaves the rest for the next
  lines: no slack per process. But a line with no live process left (the
  tree's or a group's last) reports all that waited: at most two ticks
  for each process that exited in its interval.
* A cgroup's CPU (cpu.stat usage_usec, v1 cpuacct.usage_*) and throttling
  are charged by the scheduler at most a tick late per CPU: N ticks.
* Pressure and cgroup times are printed in microseconds: 1 us for the
  rounding of each of the interval's two reads.
* The interval S is the difference of the monotonic clock at the ends of
  two batches, each read by the frontend just before it stamps the batch
  (CLOCK_REALTIME) and reads its files, so the window the reads span can
  be longer than S by the time the reads take: READ_WINDOW, one tick, per
  CPU for what N CPUs can do in it. So too S against the difference of
  two timestamps: the two clocks are read a few instructions apart at each
  end (READ_WINDOW), the realtime one slewed by NTP at most 500 ppm
  (CLOCK_SLEW), and a csv epoch is rounded to the millisecond (within
  the window). These are the only allowances not from the kernel's
  accounting.

In total mode (--counters total, CounterMode "total": docs/METRICS.md,
"Delta or total") every amount (a metric of kind delta) is a total since
proctree started, so a line alone says nothing of its interval's amounts: a
reader that follows the series (Totals) checks that no total falls, and
hands the rules above the line of the interval's amounts, each total less
the series' total before (the first line's totals are its first amounts).
A line read alone in total mode (totals=True) is held only to the rules
that totals obey as they are: numbers, min <= max, the states, the CPU
percent (a ratio, the same in both modes).

Where a line breaks a rule because of a defect that is known and not mended
yet, KNOWN_DEFECTS names it and the exact metric, and nothing else is let
through (see its comment).
"""

import math
import os
import re

TICK = 1.0 / os.sysconf("SC_CLK_TCK")
# The reads of a batch follow its timestamp (common/collector/collectortick.c stamps
# the batch, then reads every target): the window they span is longer than
# the timestamps' difference by the difference in those delays.
READ_WINDOW = TICK
# adjtimex(2) slews CLOCK_REALTIME by at most 500 ppm (MAXFREQ): what the
# timestamps' difference may fall short of the monotonic clock's
CLOCK_SLEW = 500e-6
USEC = 1e-6
INTERVAL = "collector_interval_seconds"
MEASUREMENT = "proctree"

PRESSURES = ("cpu", "memory", "io")
STATES = ("proc_processes_running", "proc_processes_blocked", "proc_processes_stopped", "proc_processes_zombie")
GLOB_CHARS = "*?["
EXIT_COUNTS = ("proc_processes_exited", "collector_exit_records")
GROUP_TAGS = ("process", "title", "thread", "cgroup")
NETNS = ("netns_received_bytes", "netns_sent_bytes", "netns_received_packets", "netns_sent_packets")

# Known defects the validator finds and that are not mended at their cause
# yet: {metric: why}. Keep it empty where it can be; each entry lets only
# that metric's own rule through, never the others of the line.
KNOWN_DEFECTS = {}


class ImpossibleLine(AssertionError):
    """A line that no interval of any process tree can produce."""


def _catalog_deltas():
    """The catalog's metrics of kind DELTA (common/include/proctree/catalog.h): what
    total mode reports as totals."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "common", "include", "proctree", "catalog.h")) as f:
        found = re.findall(r'X\(\s*\w+\s*,\s*"(\w+)"\s*,\s*\w+\s*,\s*(\w+)\s*,', f.read())
    if not found:
        raise AssertionError("no metric found in common/include/proctree/catalog.h")
    return frozenset(name for name, kind in found if kind == "DELTA")


DELTAS = _catalog_deltas()
# what a line may carry for intervals before its own (WithheldSpan)
CPU_COUNTERS = ("proc_cpu_user_seconds", "proc_cpu_system_seconds")


def host_cpus():
    """The CPUs the host has online: what any tree can run on at once."""
    return os.cpu_count() or 1


def _num(fields, name):
    v = fields.get(name)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _is_glob_target(tags):
    """A target of several cgroups (a glob of units): its cgroup_* times are
    sums over cgroups, each of which may stall for the whole interval."""
    return any(c in (tags or {}).get("target", "") for c in GLOB_CHARS)


def problems(fields, seconds=None, cpus=None, tags=None, exits=None, whole=False, counted=None, totals=False):
    """What is impossible in one line's fields ({metric: value}): a list of
    sentences, empty when the line is possible. seconds: the time since the
    line before of its series (None: unknown); the time rules take the
    line's own interval (collector_interval_seconds), else seconds, and are
    skipped when neither is known; cpus: the CPUs the tree can use (the
    host's by default); exits: for a breakdown group's line, which carries
    no count of what exited, its target's line of the same interval (its
    proc_processes_exited, collector_exit_records), which bound the group's;
    whole: the fields are a whole line of proctree's (not a query's columns
    or one stored series), which must say its interval; counted: the time
    the line's CPU counters span, from a reader that follows its series
    (WithheldSpan; None: unknown, then seconds bounds them where given);
    totals: the amounts are totals (total mode, read alone), held only to
    the rules that need no interval's amount."""
    cpus = cpus or host_cpus()
    found = []

    def bad(name, text):
        if name not in KNOWN_DEFECTS:
            found.append(f"{name}: {text}")

    for name, value in fields.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if isinstance(value, float) and not math.isfinite(value):
            bad(name, f"{value} is not a number")
        elif value < 0:
            bad(name, f"{value} < 0")
        if name.endswith("_min"):
            peer = _num(fields, name[:-4] + "_max")
            if peer is not None and math.isfinite(value) and value > peer:
                bad(name, f"{value} > its max {peer}")

    # of a whole line: a query's columns, or a bucket's of several lines, hold what they chose
    netns = [n for n in NETNS if n in fields] if whole else []
    if netns and len(netns) < len(NETNS):
        bad(netns[0], f"without {', '.join(n for n in NETNS if n not in fields)}")
    tcp = [n for n in fields if n.startswith("proc_net_tcp_")]
    if netns and tcp:
        bad(netns[0], f"beside {tcp[0]}: a tree's namespace is another than proctree's, or its TCP is sock_diag's")

    processes = _num(fields, "proc_processes")
    if processes is not None:
        in_states = sum(_num(fields, s) or 0 for s in STATES)
        if in_states > processes:
            bad("proc_processes", f"{in_states} in a state of the {processes} live")

    percent = _num(fields, "proc_cpu_percent")
    if percent is not None and percent > 100.0 * cpus + 1e-6:
        bad("proc_cpu_percent", f"{percent} > 100 x {cpus} CPUs")

    for some in PRESSURES:
        s, f = (_num(fields, f"cgroup_pressure_{some}_{k}_seconds") for k in ("some", "full"))
        if s is not None and f is not None and f > s + 2 * USEC and not totals:
            bad(f"cgroup_pressure_{some}_full_seconds", f"{f} > some {s}")

    interval = _num(fields, INTERVAL)
    if interval is None and whole:
        bad(INTERVAL, "absent: every line of proctree's says the wall time it covers")
    elif interval is not None and math.isfinite(interval) and interval <= 0:
        bad(INTERVAL, f"{interval}: an interval that covers no time has no line")
    if totals:
        return found
    elif interval is not None and seconds is not None and seconds > 0 and \
            interval > seconds * (1 + CLOCK_SLEW) + READ_WINDOW:
        bad(INTERVAL, f"{interval} s > the {seconds:.6f} s since the line before "
                      f"(+ {CLOCK_SLEW * 1e6:.0f} ppm, + {READ_WINDOW} s read window)")
    # the CPU counters' span: what a reader that follows the series says,
    # else the time since the line before; the line's interval alone is no
    # bound of them, which may carry withheld intervals' (WithheldSpan)
    span = counted if counted is not None else seconds
    if interval is not None and math.isfinite(interval) and interval > 0:
        seconds = interval
    if seconds is None or not seconds > 0:
        return found
    window = seconds + READ_WINDOW

    user, system = _num(fields, "proc_cpu_user_seconds"), _num(fields, "proc_cpu_system_seconds")
    if user is not None and system is not None and span is not None and span > 0:
        # the last line of a tree or group (no live process) gives all that
        # waited: its exits' lag (a group's line counts no exits: its
        # target's line of the interval bounds them)
        told = fields if _num(fields, "proc_processes_exited") is not None else (exits or {})
        moved = (_num(told, "proc_processes_exited") or 0) if processes == 0 else 0
        limit = cpus * (span + READ_WINDOW) + 2 * TICK * moved
        if user + system > limit + 1e-9:
            bad("proc_cpu_user_seconds",
                f"user {user} + system {system} = {user + system:.6f} s > {limit:.6f} s: "
                f"{span:.6f} s x {cpus} CPUs (+ {READ_WINDOW} s read window per CPU"
                + (f", + 2 ticks for each of {moved} processes exited with the last" if moved else "") + ")")

    cg_user, cg_system = _num(fields, "cgroup_cpu_user_seconds"), _num(fields, "cgroup_cpu_system_seconds")
    cg_limit = cpus * (window + TICK) + 2 * USEC
    if cg_user is not None and cg_system is not None and cg_user + cg_system > cg_limit + 2 * USEC:
        bad("cgroup_cpu_user_seconds",
            f"user {cg_user} + system {cg_system} > {cg_limit:.6f} s ({seconds:.6f} s x {cpus} CPUs)")

    collector = _num(fields, "collector_cpu_seconds")
    if collector is not None and collector > cpus * window:
        bad("collector_cpu_seconds", f"{collector} > {seconds:.6f} s x {cpus} CPUs")

    glob = _is_glob_target(tags)
    throttled = _num(fields, "cgroup_cpu_throttled_seconds")
    if throttled is not None and not glob and throttled > cg_limit:
        bad("cgroup_cpu_throttled_seconds", f"{throttled} > {seconds:.6f} s x {cpus} CPUs")

    for some in PRESSURES:
        name = f"cgroup_pressure_{some}_some_seconds"
        s = _num(fields, name)
        if s is not None and not glob and s > window + 2 * USEC:
            bad(name, f"{s} > the interval's {seconds:.6f} s (+ {READ_WINDOW} s read window)")

    # No upper bound on the delays (proc_cpu_delay_seconds,
    # proc_blkio_delay_seconds) beyond their being amounts: the kernel
    # credits a wait when it ends (schedstat's run_delay at
    # sched_info_arrive, the block-I/O delay at the I/O's end) and an exit
    # record the whole life's, so a wait of seconds on a loaded host, or a
    # thread that lived several intervals unread, lands in one interval
    # whole: seen in execd-zombies, 300 children each runnable for seconds
    # on two busy CPUs, 90.7 s of run-queue delay credited in a 0.046 s
    # interval. Only the thread's whole life bounds it, and a line does not
    # say that.
    return found


# A float field's value with a negative exponent: 7.5e-05 is 75 us, which a
# person reading the line (and a regular expression) takes for 7.5.
# proctree-execd writes every float below 1e-4 in fixed point
# (common/report/lines.c); only a value of 1e15 or more, which no
# metric of the catalog reaches, keeps "%.15g"'s exponent (1e+15).
_EXPONENT_FIELD = re.compile(r"[ ,](?P<field>[a-z0-9_]+=(?P<mantissa>-?[0-9.]+)e-[0-9]+)(?=[, ]|$)")


def check_written(raw):
    """raw, a line proctree-execd wrote, when no field of it has a negative
    exponent; else raise ImpossibleLine naming it. Telegraf's and collectd's own
    output are theirs to write, and not checked so."""
    found = _EXPONENT_FIELD.search(raw)
    if found:
        raise ImpossibleLine(f"a float in exponent form, read as {found['mantissa']} by a person: "
                             f"{found['field']}\n  line: {raw}")
    return raw


def check_line(fields, seconds=None, cpus=None, tags=None, raw=None, exits=None, whole=False, counted=None,
               totals=False):
    """Raise ImpossibleLine naming every rule the line breaks."""
    found = problems(fields, seconds, cpus, tags, exits, whole, counted, totals)
    if found:
        what = f" (interval {seconds:.6f} s, {cpus or host_cpus()} CPUs)" if seconds else ""
        raise ImpossibleLine(f"impossible line{what}:\n  " + "\n  ".join(found) +
                             f"\n  line: {raw if raw is not None else fields}")


class WithheldSpan:
    """The time a series' next line's CPU counters span. An interval short
    of file descriptors leaves the tree's counters out (never a partial
    sum: common/accounting/interval.h, pt_interval_lasted), and the next line
    that has them carries their deltas since the last that had them, over
    the intervals between, though it says its own interval. A line may lack
    them for another reason (unreadable stat files), whose interval then
    counts too: that can only widen the bound, never fail a right line."""

    def __init__(self):
        self.since = {}  # series -> seconds of its lines since the last with the counters

    def counted(self, series, fields):
        """The time this line's CPU counters span (None: it says no
        interval), and note the line."""
        interval = _num(fields, INTERVAL)
        if interval is None or not math.isfinite(interval):
            return None
        before = self.since.get(series, 0)
        self.since[series] = 0 if _num(fields, "proc_cpu_user_seconds") is not None else before + interval
        return interval + before


class Totals:
    """A reader of total mode: each line of totals as the line of its
    interval's amounts, the rules' to judge, and no total may fall.

    A total's difference from the series' line before is that interval's
    amount. A metric the line before lacked (unknown there) is carried on
    from the last line that had it, so its difference spans those lines
    too: kept for the CPU counters, whose span WithheldSpan follows as in
    delta mode, left out for the others, which no interval here bounds
    (their totals are still held never to fall)."""

    def __init__(self):
        self.last = {}    # series -> {metric: its latest total}
        self.before = {}  # series -> the metrics of its line before

    def amounts(self, series, fields, raw=None):
        """fields with every total as the interval's amount; raises
        ImpossibleLine where a total fell."""
        last = self.last.setdefault(series, {})
        before = self.before.get(series)
        out = {}
        for name, value in fields.items():
            number = _num(fields, name)
            if name not in DELTAS or number is None or not math.isfinite(number):
                out[name] = value
                continue
            old = last.get(name)
            if old is not None and number < old:
                raise ImpossibleLine(f"total mode: {name} fell from {old} to {number}\n  line: {raw or fields}")
            if old is None or before is None or name in before or name in CPU_COUNTERS:
                out[name] = number - (old or 0)
            last[name] = number
        self.before[series] = set(fields)
        return out


def check_batches(batches, interval=None, cpus=None, totals=False):
    """Check every line of [(timestamp_ns, [Point])] (in the order printed).
    A line's own interval (collector_interval_seconds) judges what it holds,
    and is at most the time since the last line of its series (the same
    tags: one target's, or one breakdown group's, of one run; two programs
    writing to one output never shorten each other's); the first line's
    time since is unknown (interval=None) or the configured one, given as
    interval. totals: the lines are of total mode (Totals)."""
    last, withheld, running = {}, WithheldSpan(), Totals()
    for ts, points in batches:
        def series_of(p):
            return (p.measurement, tuple(sorted(p.tags.items())))
        fields = {id(p): running.amounts(series_of(p), p.fields, p.raw) if totals else p.fields for p in points}
        targets = {p.tags.get("target"): fields[id(p)] for p in points
                   if "target" in p.tags and not any(g in p.tags for g in GROUP_TAGS)}
        for p in points:
            series = series_of(p)
            before = last.get(series)
            seconds = (ts - before) / 1e9 if before is not None and ts is not None else interval
            check_line(fields[id(p)], seconds, cpus, p.tags, p.raw, targets.get(p.tags.get("target")),
                       whole=p.measurement == MEASUREMENT, counted=withheld.counted(series, fields[id(p)]))
            if ts is not None:
                last[series] = ts
    return batches


def check_series(metric, rows, cpus=None, tags=None, where=""):
    """Rows [(epoch seconds, value)] of one metric, as a store keeps them
    apart from the line they came in (a whisper file): each value checked
    alone, by the rules that need no interval and no other field."""
    for epoch, value in rows:
        try:
            check_line({metric: value}, None, cpus, tags)
        except ImpossibleLine as e:
            raise ImpossibleLine(f"{where}{metric} at {epoch}: {e}") from None
    return rows


def check_joined(by_epoch, interval=None, cpus=None, tags=None, where="", target=None, totals=False):
    """{epoch: {metric: value}} of one collectd plugin instance (a target's
    or a breakdown group's line, split into one identifier per metric):
    each epoch's values checked together as one line, whole but for the
    newest, whose values collectd may still be writing; target: a group's
    target's own {epoch: {metric: value}} (see problems' exits); totals:
    the values are of total mode (Totals), the target's too."""
    previous, withheld = None, WithheldSpan()
    epochs = sorted(by_epoch)
    if totals:
        running, theirs = Totals(), Totals()
        by_epoch = {epoch: running.amounts(None, by_epoch[epoch]) for epoch in epochs}
        target = target and {epoch: theirs.amounts(None, target[epoch]) for epoch in sorted(target)}
    for epoch in epochs:
        seconds = epoch - previous if previous is not None else interval
        try:
            check_line(by_epoch[epoch], seconds, cpus, tags, exits=(target or {}).get(epoch),
                       whole=epoch != epochs[-1], counted=withheld.counted(None, by_epoch[epoch]))
        except ImpossibleLine as e:
            raise ImpossibleLine(f"{where}at {epoch}: {e}") from None
        previous = epoch
