"""--unit and --by cgroup on a systemd host: the machine's own systemd as
PID 1, on a pure cgroup v2 hierarchy (issue 24).

Why: most production hosts are that layout (Debian 12, Ubuntu 22.04+,
RHEL 9), where a unit's cgroup is made, moved and removed by the systemd
that runs the machine, not by one the tests boot in namespaces
(test_units.py). This test runs only there (the vm suite boots such a
machine: tests/vm/); anywhere else it says why in one line and exits 77.

Units under a slice of the test's own, each running cpuburn: one started
with systemd-run, the others instances of a template unit written to
/run/systemd/system. What is asserted is each unit's proctree CPU (the
sum of proc_cpu_user_seconds and proc_cpu_system_seconds over the batches
of one window), within 2% of its cgroup's cpu.stat usage_usec growth over
the same window, for `--unit UNIT` and for the UNIT line of `--unit SLICE
--by cgroup`. The window is frozen at both ends (systemctl freeze: frozen
tasks accrue no CPU), so proctree's first read after the freeze and its
last one see the same values as the test; the 2% is the tick-split
utime/stime of /proc (under 20 ms per field for a few seconds of CPU). A
`systemctl restart` replaces the unit's process and cgroup: the window
after it holds the new one exactly as well.
"""

import os
import subprocess
import sys
import unittest

import accounting_helpers as ah
import cgroup_helpers as cgh
import harness as h

UNIQ = f"pthost{os.getpid()}"  # no dash: a dash in a slice's name nests it
SLICE = f"{UNIQ}.slice"
TRANSIENT = f"{UNIQ}-run.service"
TEMPLATE = f"{UNIQ}-burn@.service"
UNIT_DIR = "/run/systemd/system"
CGROUP_ROOT = "/sys/fs/cgroup"
WANT_CPU = 3.0  # seconds of CPU each unit burns in a window
TOLERANCE = 0.02
CPU = ("proc_cpu_user_seconds", "proc_cpu_system_seconds")
SKIP = 77


def why_not_here():
    """One line saying why this is not a systemd host on pure cgroup v2, or None."""
    if os.geteuid() != 0:
        return "not root"
    pid1 = h.read_text("/proc/1/comm").strip()
    if pid1 != "systemd":
        return f"PID 1 is {pid1!r}, not systemd"
    with open("/proc/self/mountinfo") as f:
        types = {line.split(" - ", 1)[1].split()[0]: line.split()[4] for line in f}
    if "cgroup" in types:
        return "a cgroup v1 hierarchy is mounted (not pure cgroup v2)"
    if h.cgroup_mounts().get("v2") != CGROUP_ROOT:
        return f"no cgroup2 at {CGROUP_ROOT}"
    return None


def systemctl(*args):
    result = subprocess.run(["systemctl", *args], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"systemctl {' '.join(args)}: exit {result.returncode}: {result.stderr.strip()}")
    return result.stdout.strip()


def cgroup_of(unit):
    """The unit's cgroup directory, as systemd says."""
    return CGROUP_ROOT + h.wait_until(lambda: systemctl("show", "-P", "ControlGroup", unit), h.START_TIMEOUT,
                                      f"{unit}'s cgroup")


def usage_usec(unit):
    return cgh.read_keyed(os.path.join(cgroup_of(unit), "cpu.stat"))["usage_usec"]


def set_frozen(units, frozen):
    systemctl("freeze" if frozen else "thaw", *units)
    want = f"frozen {int(frozen)}"
    for unit in units:
        events = os.path.join(cgroup_of(unit), "cgroup.events")
        h.wait_until(lambda: want in h.read_text(events).splitlines(), h.START_TIMEOUT, f"{unit}: {want}")


def line_cpu(points, target, cgroup=None):
    """CPU seconds of target's total line (cgroup None) or its cgroup= line."""
    mine = [p for p in points if p.tags.get("target") == target and p.tags.get("cgroup") == cgroup
            and "process" not in p.tags and "thread" not in p.tags]
    return sum(p.fields.get(f, 0) for p in mine for f in CPU)


class SystemdHost(unittest.TestCase):

    def setUp(self):
        with open(os.path.join(UNIT_DIR, TEMPLATE), "w") as f:
            f.write(f"[Unit]\nDescription=proctree test burner %i\n\n"
                    f"[Service]\nSlice={SLICE}\nExecStart={ah.cpuburn_path()} 100000\n")
        self.addCleanup(self.remove_units)
        systemctl("daemon-reload")
        self.units = []

    def remove_units(self):
        subprocess.run(["systemctl", "stop", *self.units, SLICE], capture_output=True, timeout=120)
        subprocess.run(["systemctl", "reset-failed", *self.units], capture_output=True, timeout=60)
        os.unlink(os.path.join(UNIT_DIR, TEMPLATE))
        systemctl("daemon-reload")

    def start(self, unit):
        self.units.append(unit)
        if unit == TRANSIENT:
            subprocess.run(["systemd-run", f"--unit={unit}", f"--slice={SLICE}", "--property=Type=exec", "--quiet",
                            ah.cpuburn_path(), "100000"], check=True, timeout=60)
        else:
            systemctl("start", unit)
        h.wait_until(lambda: systemctl("show", "-P", "ActiveState", unit) == "active", h.START_TIMEOUT,
                     f"{unit} to be active")

    def execd(self, *targets):
        execd = h.Execd(["--interval", "1s", *targets])
        self.addCleanup(execd.stop)
        return execd

    def frozen_window(self, execd, units):
        """Freeze the units; proctree's read after that is the window's start;
        thaw until each burned WANT_CPU s; freeze; wait for proctree's read
        after that. Returns (the batches of the window, {unit: usage growth s})."""
        set_frozen(units, True)
        before = {u: usage_usec(u) for u in units}
        # The next batch may have read before the freeze, the one after it did not:
        # the window's deltas are those of the batches after that one.
        start = execd.batch_count() + 2
        cgh.wait_more_batches(execd, 2)
        set_frozen(units, False)
        h.wait_until(lambda: all(usage_usec(u) - before[u] >= WANT_CPU * 1e6 for u in units), 300,
                     f"{WANT_CPU} s of CPU in each of {units}", interval=0.1)
        set_frozen(units, True)
        cgh.wait_more_batches(execd, 2)
        grown = {u: (usage_usec(u) - before[u]) / 1e6 for u in units}
        return [points for _, points in execd.batches()[start:]], grown

    def assert_within(self, got, want, what, execd):
        print(f"{what}: proctree {got:.3f} s, cpu.stat {want:.3f} s ({(got - want) / want:+.2%})", flush=True)
        self.assertLessEqual(abs(got - want), TOLERANCE * want,
                             f"{what}: proctree {got:.3f} s, cpu.stat grew {want:.6f} s\n{execd.describe()}")

    def test_units_under_a_slice_as_their_cpu_stat(self):
        """A transient unit and a template instance under one slice: each
        unit's --unit line and its --by cgroup line of the slice."""
        units = [TRANSIENT, f"{UNIQ}-burn@one.service"]
        for unit in units:
            self.start(unit)
        targets = ["--unit", SLICE, "--by", "cgroup"]
        for unit in units:
            targets += ["--unit", unit]
        execd = self.execd(*targets)
        execd.wait_for(lambda e: e.batches() and all(line_cpu(e.batches()[-1][1], SLICE, u) > 0 for u in units),
                       60, "a batch where both units burn")
        window, grown = self.frozen_window(execd, units)
        for unit in units:
            self.assert_within(sum(line_cpu(p, unit) for p in window), grown[unit], f"--unit {unit}", execd)
            self.assert_within(sum(line_cpu(p, SLICE, unit) for p in window), grown[unit],
                               f"--unit {SLICE} --by cgroup, cgroup={unit}", execd)
        self.assertEqual(ah.negative_deltas(p for batch in window for p in batch), [])

    def test_restart_is_followed(self):
        """After systemctl restart (a new process in a new cgroup) the unit's
        lines hold the new one as exactly as the old one."""
        unit = f"{UNIQ}-burn@restarted.service"
        self.start(unit)
        execd = self.execd("--unit", unit, "--unit", SLICE, "--by", "cgroup")
        cgh.wait_cgroup_batch(execd, unit, "proc_cpu_user_seconds")
        old_pid = systemctl("show", "-P", "MainPID", unit)
        for when in ("before", "after"):
            window, grown = self.frozen_window(execd, [unit])
            self.assert_within(sum(line_cpu(p, unit) for p in window), grown[unit], f"--unit {unit} {when}", execd)
            self.assert_within(sum(line_cpu(p, SLICE, unit) for p in window), grown[unit],
                               f"--by cgroup {unit} {when}", execd)
            if when == "before":
                set_frozen([unit], False)
                systemctl("restart", unit)
                self.assertNotEqual(systemctl("show", "-P", "MainPID", unit), old_pid, "a new process")
                self.assertFalse(os.path.exists(f"/proc/{old_pid}"), "the old process is gone")


if __name__ == "__main__":
    reason = why_not_here()
    if reason:
        print(f"SKIP: not a systemd host on pure cgroup v2: {reason}", flush=True)
        sys.exit(SKIP)
    unittest.main(verbosity=2)
