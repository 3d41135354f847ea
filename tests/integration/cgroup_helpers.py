"""A cgroup of a test's own, for the cgroup_* metrics tests
(test_cgroup_metrics.py, test_collectd_cgroup_metrics.py), on top of
harness.py.

proctree pairs a cgroup v2 directory with the v1 controllers' directories
at the same relative path (a hybrid host: v2 at /sys/fs/cgroup/unified
with no controller, memory, cpu, cpuacct, pids and blkio on v1), so a
TestCgroup makes the same relative path in the v2 hierarchy and in each
v1 controller it is given, and starts its processes in all of them (a
shell that moves itself, then execs the workload: memory is charged to
the v1 memory cgroup a page was touched in, never moved later).

The path is made below the test's own v1 memory cgroup (the machine's
runner may keep the test's memory there), the same path in every
hierarchy; the directories it had to make are removed at the end, children
first, after its processes were killed by pid and reaped, even when the
test failed.

On a pure cgroup v2 host (systemd's layout: the vm suite, tests/vm/) the
one v2 directory stands for the v1 controllers asked for.

The v2 freezer (cgroup.freeze) holds the cgroup's tasks still: while they
are frozen no CPU time and no pressure stall accrue, so a test that
freezes the cgroup around proctree's first and last reads knows exactly
what proctree saw.
"""

import contextlib
import os
import signal
import time

import harness as h
import line_rules

def mounts():
    """{"v2": mount, CONTROLLER: its v1 mount} (harness.cgroup_mounts)."""
    return h.cgroup_mounts()


def pure_v2():
    """cgroup2 alone (a systemd host of today): every controller is in it."""
    return set(mounts()) == {"v2"}


def own_cgroup(controller):
    """This process's cgroup in a v1 controller's hierarchy ("/" if none)."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, names, path = line.rstrip("\n").split(":", 2)
            if controller in names.split(","):
                return path
    return "/"


def v2_controllers():
    m = mounts().get("v2")
    if not m:
        return set()
    with open(os.path.join(m, "cgroup.controllers")) as f:
        return set(f.read().split())


def read_keyed(path):
    """A flat keyed file ("key value" lines) as {key: int}."""
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                out[parts[0]] = int(parts[1])
    return out


def pressure_total(path, kind="some"):
    """total= (microseconds) of a *.pressure file's some or full line."""
    with open(path) as f:
        for line in f:
            if line.startswith(kind + " "):
                return int(line.rsplit("total=", 1)[1])
    raise AssertionError(f"{path} has no {kind} line")


_made_for_tests = 0


def cgroup_for(test, prefix, controllers):
    """A TestCgroup of its own for one unittest test ("PREFIX-N"), skipped
    where the host lacks a hierarchy it needs, removed at the test's cleanup."""
    global _made_for_tests
    missing = TestCgroup.missing(controllers)
    if missing:
        test.skipTest(f"no cgroup hierarchy for {missing}")
    _made_for_tests += 1
    cg = TestCgroup(f"{prefix}-{_made_for_tests}", controllers)
    cg.__enter__()
    test.addCleanup(cg.close)
    return cg


class TestCgroup:
    """The same relative path in v2 and the given v1 controllers.

    Use as a context manager; skip_unless() first tells a test whether
    the host has what it needs."""

    def __init__(self, name, controllers=("memory", "cpu", "cpuacct")):
        self.mounts = mounts()
        parent = own_cgroup("memory")
        self.rel = (parent.rstrip("/") + "/" + name) if parent != "/" else "/" + name
        # On pure v2 the one hierarchy holds what v1 controllers would.
        self.controllers = () if pure_v2() else tuple(controllers)
        self.made = []        # directories made, parents first
        self.workloads = []

    @staticmethod
    def missing(controllers):
        """What the host lacks of v2 and these v1 controllers ([] if nothing;
        none on pure v2, whose hierarchy stands for them)."""
        m = mounts()
        return [c for c in ("v2",) + (() if pure_v2() else tuple(controllers)) if c not in m]

    def dir(self, hierarchy="v2", sub=None):
        return self.mounts[hierarchy] + self.rel + (f"/{sub}" if sub else "")

    def hierarchies(self):
        return ("v2",) + self.controllers

    def path(self, name, hierarchy="v2", sub=None):
        return os.path.join(self.dir(hierarchy, sub), name)

    def read(self, name, hierarchy="v2", sub=None):
        with open(self.path(name, hierarchy, sub)) as f:
            return f.read()

    def write(self, name, text, hierarchy="v2"):
        with open(self.path(name, hierarchy), "w") as f:
            f.write(text)

    # -- life cycle

    def __enter__(self):
        try:
            for hier in self.hierarchies():
                mount = self.mounts[hier]
                parts = self.rel.strip("/").split("/")
                for i in range(1, len(parts) + 1):
                    d = os.path.join(mount, *parts[:i])
                    if not os.path.isdir(d):
                        os.mkdir(d)
                        self.made.append(d)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def make_sub(self, name):
        """A cgroup below this one, in every hierarchy (removed by close(), first)."""
        for hier in self.hierarchies():
            os.mkdir(self.dir(hier, name))
            self.made.append(self.dir(hier, name))

    def pids(self):
        """Every process in the cgroup, in any of its hierarchies."""
        pids = set()
        for d in self.made:
            try:
                with open(os.path.join(d, "cgroup.procs")) as f:
                    pids.update(int(p) for p in f.read().split())
            except FileNotFoundError:
                pass
        return pids

    def close(self):
        """Thaw, kill what is left by pid, reap the workloads, remove the
        directories made (children first, each once empty)."""
        errors = []
        if os.path.exists(self.path("cgroup.freeze")):
            try:
                self.write("cgroup.freeze", "0")
            except OSError as e:
                errors.append(e)
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for w in reversed(self.workloads):
            w.stop()
        self.workloads = []
        for d in reversed(self.made):
            try:
                h.wait_until(lambda: not self._procs_of(d), h.START_TIMEOUT, f"{d} to empty")
                os.rmdir(d)
            except (OSError, AssertionError) as e:
                # An intermediate directory someone else uses now stays.
                if self.rel in d or not isinstance(e, OSError):
                    errors.append(e)
        self.made = []
        if errors:
            raise AssertionError(f"cleaning up {self.rel}: {errors}")

    @staticmethod
    def _procs_of(d):
        try:
            with open(os.path.join(d, "cgroup.procs")) as f:
                return f.read().strip()
        except FileNotFoundError:
            return ""

    # -- its processes

    def spawn(self, argv, ready_count=1, sub=None):
        """argv started inside the cgroup (or its sub-cgroup sub) in every
        hierarchy (a shell moves itself, then execs argv), as a
        harness.Workload; killed and reaped by close()."""
        moves = "; ".join(f"echo $$ > '{self.path('cgroup.procs', hier, sub)}' || exit 99"
                          for hier in self.hierarchies())
        w = h.Workload(["sh", "-c", moves + '; exec "$@"', "sh", *argv], ready_count=ready_count)
        self.workloads.append(w)
        return w

    def spawn_in_subs(self, names):
        """A sleeper in each sub-cgroup of names (made here), all forked by
        one shell in this cgroup; returns once each is in its sub-cgroup in
        every hierarchy (a scan finds it there, never on its way)."""
        for name in names:
            self.make_sub(name)
        dirs = " ".join(f'"{self.dir(hier)}"' for hier in self.hierarchies())
        names_text = "".join(n + "\n" for n in names)
        script = ('while IFS= read -r sub; do sh -c \'for d in ' + dirs + '; do echo $$ > "$d/$1/cgroup.procs"; '
                  'done; exec sleep 1000000\' sh "$sub" & done <<\'PT_EOF\'\n' + names_text + 'PT_EOF\n'
                  'echo "ready $$"; wait')
        self.spawn(["sh", "-c", script])

        def settled():
            return all(self.read("cgroup.procs", hier, n).strip() for n in names for hier in self.hierarchies())
        h.wait_until(settled, h.START_TIMEOUT, "a sleeper in every sub-cgroup")

    # -- the v2 freezer

    def set_frozen(self, frozen):
        set_frozen(self.dir(), frozen)

    # -- the kernel's counters, as the test reads them

    def cpu_usage_usec(self, sub=None):
        return read_keyed(self.path("cpu.stat", sub=sub))["usage_usec"]

    def cpu_user_system_usec(self, sub=None):
        """user_usec + system_usec: the kernel's split of usage_usec, each
        kept from going back (cputime_adjust), so their sum may part from
        usage_usec's growth by more than rounding: what cgroup_cpu_user and
        _system_seconds are read from."""
        stat = read_keyed(self.path("cpu.stat", sub=sub))
        return stat["user_usec"] + stat["system_usec"]

    def pressure(self, resource="cpu", kind="some"):
        return pressure_total(self.path(f"{resource}.pressure"), kind)


def set_frozen(v2_dir, frozen):
    """Freeze or thaw the v2 cgroup v2_dir and its children. Frozen,
    return only once every thread is off its CPU: the kernel says "frozen
    1" when the last one enters the freezer's trap, before it calls
    schedule(), and its run time since the scheduler last counted it is
    charged to cpu.stat at that switch. Measured on this host: read at
    once, the cgroup's usage grew 6 to 13 us later in 155 rounds of 200;
    read once every thread was off its CPU, in none of 500."""
    with open(os.path.join(v2_dir, "cgroup.freeze"), "w") as f:
        f.write("1" if frozen else "0")
    want = f"frozen {int(frozen)}"

    def said():
        with open(os.path.join(v2_dir, "cgroup.events")) as f:
            return want in f.read().splitlines()
    h.wait_until(said, h.START_TIMEOUT, f"{v2_dir}: {want}")
    if frozen:
        h.wait_until(lambda: not threads_on_cpu(v2_dir), h.START_TIMEOUT,
                     f"{v2_dir}: every frozen thread off its CPU")


def threads_on_cpu(v2_dir):
    """The threads of the cgroup v2_dir and its children that are running
    or runnable. /proc/TID/wchan is "0" for those: the kernel names where a
    thread waits only once it is off the run queue (get_wchan), so a name
    means its run time is charged."""
    found = []
    for d, _, _ in os.walk(v2_dir):
        try:
            with open(os.path.join(d, "cgroup.threads")) as f:
                tids = f.read().split()
        except FileNotFoundError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{tid}/wchan") as f:
                    if f.read() == "0":
                        found.append(tid)
            except FileNotFoundError:
                pass  # exited: charged at its exit
    return found


def sleeper_argv(seconds="1000000"):
    """A process that waits, printing "ready PID" (sleep does not)."""
    return ["sh", "-c", f'echo "ready $$"; exec sleep {seconds}']


def busy_argv():
    """A busy loop printing "ready PID" first."""
    return ["sh", "-c", 'echo "ready $$"; while :; do :; done']


def cgroup_fields(point):
    return {k: v for k, v in point.fields.items() if k.startswith("cgroup_")}


def total_points(execd, target):
    """TARGET's total line of every batch that has one (not its --by
    lines, tagged process=, title=, thread= or cgroup=), in order."""
    found = []
    for _, points in execd.batches():
        mine = [p for p in points if p.tags.get("target") == target
                and not set(line_rules.GROUP_TAGS) & set(p.tags)]
        if len(mine) > 1:
            raise AssertionError(f"{len(mine)} total lines of {target} in a batch: {[p.raw for p in mine]}")
        found += mine
    return found


def wait_cgroup_batch(execd, target, field="cgroup_cpu_user_seconds", timeout=h.START_TIMEOUT):
    """Wait for a batch whose TARGET line has field (the target's cgroup
    was read: proctree's baseline is taken); returns the number of batches."""
    def has():
        return any(field in p.fields for p in total_points(execd, target))
    execd.wait_for(lambda e: has(), timeout, f"a line of {target} with {field}")
    return execd.batch_count()


def wait_more_batches(execd, count):
    """Wait until count batches more than now were printed."""
    return execd.wait_batches(execd.batch_count() + count, timeout=h.BATCH_TIMEOUT + 5 * count)


def monotonic_wait(seconds):
    """Let the workload run: a wait whose length does not decide a result."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(min(0.1, end - time.monotonic()) if end > time.monotonic() else 0)


def rmdirs(top, deepest):
    """Remove deepest and each parent up to top, children first (a test's
    cleanup of the sub-cgroups a command made)."""
    path = deepest
    while len(path) >= len(top):
        with contextlib.suppress(FileNotFoundError):
            os.rmdir(path)
        path = os.path.dirname(path)
