"""cgroup_* metrics of a --cgroup target: the kernel's own accounting of its
cgroups, as proctree-execd reports it (issue 19).

Why: proctree's tree sums come from /proc (tick-split CPU, resident memory
at a poll), the cgroup's files are the kernel's exact counters: pressure
stall time, CPU run time, the OOM kills, the peak memory charged however
short the spike. Each test makes a cgroup of its own (cgroup_helpers:
the same relative path in v2 and in the v1 controllers it needs, on this
hybrid host) and checks proctree's numbers against the files themselves.

Exactness comes from the v2 freezer, not from timing: a frozen cgroup's
tasks accrue no CPU time and no pressure stall, so a test freezes the
cgroup, reads a file, starts proctree (its baseline read is then the
same value), thaws it for a few intervals, freezes it again, waits for
two batches (the second's read is after the freeze) and reads the file
again: the sum of proctree's deltas must be the file's growth, to the
microsecond of the printed values.
"""

import os
import tempfile
import time
import unittest

import accounting_helpers as ah
import cgroup_helpers as cgh
import harness as h

MIB = 1 << 20
UNIQ = f"pt-cgm-{os.getpid()}"
TARGET = "cg"


def memspike_path():
    return h.program("PROCTREE_MEMSPIKE", "tests/workload/memspike")


def points_with(execd, field):
    """TARGET's lines that carry field; every line after the first that
    does must carry it too (the cgroup was read at every interval)."""
    points = cgh.total_points(execd, TARGET)
    first = next((i for i, p in enumerate(points) if field in p.fields), None)
    if first is None:
        raise AssertionError(f"no line of {TARGET} has {field}\n{execd.describe()}")
    later = points[first:]
    lacking = [p.raw for p in later if field not in p.fields]
    if lacking:
        raise AssertionError(f"{field} missing from later lines: {lacking}")
    return later


def fsum(points, *fields):
    return sum(p.fields[f] for p in points for f in fields)


BLKIO_BYTES = "blkio.throttle.io_service_bytes"
IO_MIB = 8


def io_file_bytes(path):
    """(read, write) bytes summed over the devices of io.stat (rbytes=,
    wbytes=) or of v1's blkio.throttle.io_service_bytes ("MAJ:MIN Read N")."""
    r = w = 0
    with open(path) as f:
        for line in f:
            parts = line.split()
            if path.endswith("io.stat"):
                kv = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
                r += int(kv.get("rbytes", 0))
                w += int(kv.get("wbytes", 0))
            elif len(parts) == 3 and ":" in parts[0]:
                r += int(parts[2]) if parts[1] == "Read" else 0
                w += int(parts[2]) if parts[1] == "Write" else 0
    return r, w


def blkio_root_disks():
    """The disks ("MAJ:MIN") v1 blkio's root lists in its
    blkio.throttle.io_service_bytes: the kernel prints a disk there only
    where it counts that disk's I/O, since Linux 6.10 once a
    blkio.throttle limit was written for it."""
    with open(os.path.join(cgh.mounts()["blkio"], BLKIO_BYTES)) as f:
        return {line.split(" ", 1)[0] for line in f if ":" in line.split(" ", 1)[0]}


def disk_of(path):
    """The "MAJ:MIN" of the disk that holds path (a partition's disk)."""
    st = os.stat(path)
    dev = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    if os.path.exists(os.path.join(dev, "partition")):
        dev = os.path.join(dev, "..")
    with open(os.path.join(dev, "dev")) as f:
        return f.read().strip()


def direct_io_file(test):
    """A file of IO_MIB MiB under /var/tmp (on a disk, where /tmp may be
    a tmpfs) that O_DIRECT can read and write, made by the test itself
    (outside the cgroup) and removed at its cleanup; skipped where the
    filesystem refuses O_DIRECT."""
    fd, path = tempfile.mkstemp(prefix=f"{UNIQ}-io-", dir="/var/tmp")
    test.addCleanup(os.unlink, path)
    with os.fdopen(fd, "wb") as f:
        f.write(b"\xa5" * (IO_MIB * MIB))
        f.flush()
        os.fsync(f.fileno())
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_DIRECT))
    except OSError as e:
        test.skipTest(f"/var/tmp refuses O_DIRECT: {e}")
    return path


class CgroupMetrics(unittest.TestCase):
    def cgroup(self, controllers, v1_files=False):
        """A TestCgroup; v1_files: the test writes or reads files only v1
        controllers have (the hybrid case), skipped on pure v2."""
        if v1_files and cgh.pure_v2():
            self.skipTest("reads v1 controllers' files: the hybrid case (pure v2 has none)")
        return cgh.cgroup_for(self, UNIQ, controllers)

    def execd(self, cg, *extra):
        execd = h.Execd(["--cgroup", cg.rel, "--name", TARGET, *extra])
        self.addCleanup(execd.stop)
        return execd

    def run_frozen_around(self, cg, execd, field, thawed):
        """Baseline while frozen; thaw; thawed(); freeze; two batches; stop."""
        cgh.wait_cgroup_batch(execd, TARGET, field)
        cg.set_frozen(False)
        t0 = time.monotonic()
        thawed()
        cg.set_frozen(True)
        t1 = time.monotonic()
        cgh.wait_more_batches(execd, 2)
        execd.stop()
        return t1 - t0

    # ------------------------------------------------------------ 1. PSI

    def test_cpu_pressure_is_the_files_growth(self):
        """More busy loops than cores: cgroup_pressure_cpu_some_seconds
        summed over the run is cpu.pressure's some total growth, exactly."""
        cg = self.cgroup(("cpu", "cpuacct"))
        ncpus = len(os.sched_getaffinity(0))
        nloops = ncpus + 2
        for _ in range(nloops):
            cg.spawn(cgh.busy_argv())
        cg.set_frozen(True)
        before = cg.pressure("cpu", "some")
        before_full = cg.pressure("cpu", "full")
        execd = self.execd(cg, "--interval", "1s")
        thawed = self.run_frozen_around(cg, execd, "cgroup_pressure_cpu_some_seconds",
                                        lambda: cgh.wait_more_batches(execd, 4))
        after = cg.pressure("cpu", "some")
        after_full = cg.pressure("cpu", "full")
        points = points_with(execd, "cgroup_pressure_cpu_some_seconds")
        got = fsum(points, "cgroup_pressure_cpu_some_seconds")
        got_full = fsum(points, "cgroup_pressure_cpu_full_seconds")
        msg = (f"proctree some {got:.6f} s full {got_full:.6f} s; cpu.pressure some grew "
               f"{(after - before) / 1e6:.6f} s, full {(after_full - before_full) / 1e6:.6f} s, "
               f"thawed {thawed:.2f} s\n{execd.describe()}")
        # Printed values are rounded at most to the microsecond each.
        slack = 1e-6 * len(points) + 1e-9
        self.assertLessEqual(abs(got - (after - before) / 1e6), slack, msg)
        self.assertLessEqual(abs(got_full - (after_full - before_full) / 1e6), slack, msg)
        # Meaningful: with more runnable loops than cores, some CPU always
        # holds two of them (a stall there), and PSI weighs each CPU by the
        # time it ran the cgroup's tasks: at least 1/ncpus of the thawed time
        # (half of it on two cores); half that leaves room for the thaw.
        self.assertGreaterEqual(after - before, 0.5 / ncpus * thawed * 1e6, msg)
        # The batch wholly in the frozen time: no stall, reported as 0.
        self.assertEqual(points[-1].fields["cgroup_pressure_cpu_some_seconds"], 0, msg)
        self.assertEqual(ah.negative_deltas(points), [])

    # ------------------------------------------------------------ 2. CPU

    def test_cpu_matches_the_trees_sum(self):
        """The tree's proc_cpu_* (tick-split /proc stat, exact in sum to a
        clock tick per field) against cgroup_cpu_* (cpu.stat, exact) over
        a run of >= 8 s of CPU: within 1%."""
        cg = self.cgroup(("cpu", "cpuacct"))
        burn = ah.cpuburn_path()
        cg.spawn(["sh", "-c", f'{burn} 100000 & {burn} 100000 & echo "ready $$"; wait'])
        cg.set_frozen(True)
        before = cg.cpu_usage_usec()
        execd = self.execd(cg, "--interval", "1s")
        want = 8.0
        thawed = self.run_frozen_around(
            cg, execd, "cgroup_cpu_user_seconds",
            lambda: h.wait_until(lambda: cg.cpu_usage_usec() - before >= want * 1e6, 120,
                                 f"{want} s of CPU in {cg.rel}", interval=0.1))
        after = cg.cpu_usage_usec()
        points = points_with(execd, "cgroup_cpu_user_seconds")
        self.assertEqual([p.fields["proc_processes"] for p in points], [3] * len(points), execd.describe())
        cgroup = fsum(points, "cgroup_cpu_user_seconds", "cgroup_cpu_system_seconds")
        tree = fsum(points, "proc_cpu_user_seconds", "proc_cpu_system_seconds")
        msg = (f"tree {tree:.6f} s, cgroup {cgroup:.6f} s, cpu.stat usage grew {(after - before) / 1e6:.6f} s "
               f"in {thawed:.1f} s\n{execd.describe()}")
        # cgroup_cpu_*: the file's growth (user + system = usage_usec).
        self.assertLessEqual(abs(cgroup - (after - before) / 1e6), 2e-6 * len(points) + 1e-9, msg)
        self.assertGreaterEqual(cgroup, want, msg)
        # /proc/PID/stat: utime + stime is the exact run time, each field cut
        # to a clock tick (10 ms), so each burner's growth is off by < 20 ms
        # (the shell does not run): < 40 ms over >= 8 s, which is < 1%.
        self.assertLess(abs(tree - cgroup), 0.04 + 1e-6 * len(points), msg)
        self.assertLessEqual(abs(tree - cgroup), 0.01 * cgroup, msg)
        # Frozen at the end: the last interval has no CPU on either side.
        self.assertEqual(points[-1].fields["cgroup_cpu_user_seconds"], 0, msg)

    def test_cpu_throttling_is_the_files_growth(self):
        """A CFS quota of 20% (v1 cpu controller) on a busy loop:
        cgroup_cpu_throttled_periods and _seconds summed over the run are
        the growth of v1 cpu.stat nr_throttled and throttled_time (ns)."""
        cg = self.cgroup(("cpu", "cpuacct"), v1_files=True)
        cg.write("cpu.cfs_period_us", "100000", "cpu")
        cg.write("cpu.cfs_quota_us", "20000", "cpu")
        cg.spawn(cgh.busy_argv())
        cg.set_frozen(True)
        before = cgh.read_keyed(cg.path("cpu.stat", "cpu"))
        execd = self.execd(cg, "--interval", "1s")

        def throttled():
            return cgh.read_keyed(cg.path("cpu.stat", "cpu"))["nr_throttled"] - before["nr_throttled"]

        def run():
            # More than 5 periods throttled: the loop has to get its 20 ms
            # of a period first, which a busy host delays (other tests).
            cgh.wait_more_batches(execd, 3)
            h.wait_until(lambda: throttled() > 5, 120, f"more than 5 throttled periods of {cg.rel}", interval=0.1)
        self.run_frozen_around(cg, execd, "cgroup_cpu_throttled_periods", run)
        after = cgh.read_keyed(cg.path("cpu.stat", "cpu"))
        points = points_with(execd, "cgroup_cpu_throttled_periods")
        periods = fsum(points, "cgroup_cpu_throttled_periods")
        seconds = fsum(points, "cgroup_cpu_throttled_seconds")
        want_periods = after["nr_throttled"] - before["nr_throttled"]
        want_seconds = (after["throttled_time"] - before["throttled_time"]) / 1e9
        msg = f"proctree {periods} periods {seconds:.6f} s; cpu.stat {want_periods}, {want_seconds:.9f} s\n" + \
            execd.describe()
        self.assertEqual(periods, want_periods, msg)
        # ns cut to microseconds at each read: < 1 us, and printed to 1 us a line
        self.assertLessEqual(abs(seconds - want_seconds), 1e-6 * (len(points) + 1), msg)

    # ------------------------------------------------------------ --by cgroup

    def test_by_cgroup_lines_carry_their_own_cgroups(self):
        """--by cgroup: cgroup=a and cgroup=b carry their own cgroup's
        cgroup_* (cpu.stat growth of a, of b, exact through the freezer),
        the target's line its whole cgroup's, and cgroup=. (the processes
        in the target's own directory) none: no file holds them alone."""
        cg = self.cgroup(("cpu", "cpuacct", "memory"))
        cg.make_sub("a")
        cg.make_sub("b")
        cg.spawn(cgh.busy_argv(), sub="a")
        cg.spawn(cgh.sleeper_argv(), sub="b")
        cg.spawn(cgh.busy_argv())
        cg.set_frozen(True)
        before = {g: cg.cpu_user_system_usec(sub) for g, sub in (("a", "a"), ("b", "b"), (TARGET, None))}
        execd = self.execd(cg, "--by", "cgroup", "--interval", "1s")
        self.run_frozen_around(cg, execd, "cgroup_cpu_user_seconds", lambda: cgh.wait_more_batches(execd, 3))
        grew = {g: (cg.cpu_user_system_usec(None if g == TARGET else g) - u) / 1e6 for g, u in before.items()}
        lines = ah.breakdown_lines(execd, TARGET, "cgroup")
        self.assertEqual({p.tags["cgroup"] for p in lines}, {"a", "b", "."}, execd.describe())
        got = {TARGET: fsum(points_with(execd, "cgroup_cpu_user_seconds"),
                            "cgroup_cpu_user_seconds", "cgroup_cpu_system_seconds")}
        for group in ("a", "b"):
            mine = [p for p in lines if p.tags["cgroup"] == group]
            got[group] = fsum(mine, "cgroup_cpu_user_seconds", "cgroup_cpu_system_seconds")
            self.assertNotIn("cgroup_pids", mine[-1].fields)
        msg = f"proctree {got}, cpu.stat {grew}\n{execd.describe()}"
        for group, value in got.items():
            self.assertLessEqual(abs(value - grew[group]), 2e-6 * execd.batch_count() + 1e-9, msg)
        # Both busy loops ran (how much CPU each got over the window is the
        # scheduler's: on a loaded host a loop may get well under a core)
        self.assertGreater(grew["a"], 0.05, msg)
        self.assertGreater(grew[TARGET], grew["a"] + 0.05, msg)  # a's and its own busy loop
        for p in lines:
            if p.tags["cgroup"] == ".":
                self.assertEqual(cgh.cgroup_fields(p), {}, p.raw)

    # ------------------------------------------------------------ 3. OOM

    def test_oom_kill_counted_once(self):
        cg = self.cgroup(("memory",), v1_files=True)
        cg.write("memory.limit_in_bytes", str(64 * MIB), "memory")
        try:
            cg.write("memory.swappiness", "0", "memory")  # a host with swap: no swapping instead
        except OSError:
            pass
        tree = cg.spawn([memspike_path(), "200"])
        self.assertEqual(cgh.read_keyed(cg.path("memory.oom_control", "memory"))["oom_kill"], 0)
        execd = self.execd(cg, "--interval", "0.5s")
        cgh.wait_cgroup_batch(execd, TARGET, "cgroup_memory_oom_kills")
        tree.send(b"\n")
        answer = tree.read_lines(1, 60, "memspike's child")[0]
        self.assertEqual(answer.split()[:2], ["exited", "137"], answer)  # SIGKILL
        self.assertEqual(cgh.read_keyed(cg.path("memory.oom_control", "memory"))["oom_kill"], 1)
        cgh.wait_more_batches(execd, 2)
        execd.stop()
        points = points_with(execd, "cgroup_memory_oom_kills")
        self.assertEqual(fsum(points, "cgroup_memory_oom_kills"), 1, execd.describe())
        self.assertEqual(max(p.fields["cgroup_memory_oom_kills"] for p in points), 1)
        killed = [p.fields["proc_processes_killed"] for p in ah.target_points(execd, TARGET)
                  if "proc_processes_killed" in p.fields]
        if os.geteuid() == 0:
            # root: exit records are in use, the child's SIGKILL is in its record
            self.assertTrue(killed, f"no proc_processes_killed as root\n{execd.describe()}")
        if killed:
            self.assertEqual(sum(killed), 1, execd.describe())

    # ------------------------------------------------------------ 4. spike

    def test_spike_shorter_than_a_poll(self):
        cg = self.cgroup(("memory",), v1_files=True)
        tree = cg.spawn([memspike_path(), "200"])
        execd = self.execd(cg, "--interval", "1s", "--poll-interval", "100ms")
        cgh.wait_cgroup_batch(execd, TARGET, "cgroup_memory_peak_lifetime")
        before = int(cg.read("memory.max_usage_in_bytes", "memory"))
        self.assertLess(before, 200 * MIB)
        tree.send(b"\n")
        answer = tree.read_lines(1, 60, "memspike's child")[0]
        self.assertEqual(answer.split()[:2], ["exited", "0"], answer)
        cgh.wait_more_batches(execd, 2)
        execd.stop()
        after = int(cg.read("memory.max_usage_in_bytes", "memory"))
        peaks = [p.fields["cgroup_memory_peak_lifetime"] for p in points_with(execd, "cgroup_memory_peak_lifetime")]
        msg = f"spike: {answer}; max_usage_in_bytes {before} -> {after}\n{execd.describe()}"
        self.assertGreaterEqual(after, 200 * MIB, msg)
        self.assertGreaterEqual(max(peaks), 200 * MIB, msg)
        # The lifetime peak only grows, and nothing came near it since.
        self.assertEqual(peaks[-1], after, msg)
        if "memory" not in cgh.v2_controllers():
            # no v2 memory.peak here: the interval's peak is absent, never 0
            self.assertEqual([p.raw for p in cgh.total_points(execd, TARGET) if "cgroup_memory_peak" in p.fields],
                             [], msg)

    # ------------------------------------------------------------ 6. start line

    def test_start_line_names_what_is_missing(self):
        """Hybrid host: v1 memory, cpu, cpuacct, no v2 memory controller, no
        pids or blkio cgroup made: memory.events, pids.current and io.stat
        are named once on stderr, and their metrics are absent (not 0)."""
        if "memory" in cgh.v2_controllers():
            self.skipTest("v2 has the memory controller: not the hybrid case")
        cg = self.cgroup(("memory", "cpu", "cpuacct"))
        cg.spawn(cgh.sleeper_argv())
        execd = self.execd(cg, "--interval", "0.5s")
        cgh.wait_cgroup_batch(execd, TARGET)
        cgh.wait_more_batches(execd, 2)
        execd.stop()
        said = [l for l in execd.stderr_lines() if "cgroup_*" in l]
        self.assertEqual(len(said), 1, execd.describe())
        self.assertTrue(said[0].startswith("I! "), said)
        for name in ("memory.events", "pids.current", "io.stat"):
            self.assertIn(name, said[0])
        for offered in ("cpu.pressure", "memory.current", "memory.peak", "oom_kill", "user_usec"):
            self.assertNotIn(offered, said[0])
        absent = ("cgroup_memory_peak", "cgroup_memory_ooms", "cgroup_memory_high_events",
                  "cgroup_memory_max_events", "cgroup_pids", "cgroup_io_read_bytes", "cgroup_io_write_bytes")
        present = ("cgroup_cpu_user_seconds", "cgroup_cpu_system_seconds",
                   "cgroup_cpu_throttled_seconds", "cgroup_cpu_throttled_periods",
                   "cgroup_pressure_cpu_some_seconds", "cgroup_pressure_cpu_full_seconds",
                   "cgroup_pressure_memory_some_seconds", "cgroup_pressure_memory_full_seconds",
                   "cgroup_pressure_io_some_seconds", "cgroup_pressure_io_full_seconds",
                   "cgroup_memory_current_min", "cgroup_memory_current_max",
                   "cgroup_memory_peak_lifetime", "cgroup_memory_oom_kills")
        points = points_with(execd, "cgroup_cpu_user_seconds")
        for p in points:
            fields = cgh.cgroup_fields(p)
            self.assertEqual([a for a in absent if a in fields], [], p.raw)
            self.assertEqual([a for a in present if a not in fields], [], p.raw)
            self.assertEqual(sorted(set(fields) - set(present)), [], p.raw)
        # memory in use, polled: what the v1 file says, within the interval's range
        usage = int(cg.read("memory.usage_in_bytes", "memory"))
        last = points[-1].fields
        self.assertGreater(last["cgroup_memory_current_max"], 0)
        self.assertLessEqual(last["cgroup_memory_current_min"], last["cgroup_memory_current_max"])
        self.assertLessEqual(last["cgroup_memory_peak_lifetime"],
                             int(cg.read("memory.max_usage_in_bytes", "memory")))
        self.assertGreater(usage, 0)

    # ------------------------------------------------------------ 7. block I/O

    def test_io_bytes_where_counted_absent_where_not(self):
        """IO_MIB MiB read and then overwritten with O_DIRECT from the cgroup
        (so every byte is a bio of the cgroup's own, done when dd returns).
        Where the kernel counts them (v2 io.stat; v1 blkio whose root lists a
        disk) cgroup_io_* are on every line and sum to at least those bytes
        and at most the file's growth around the run. Where v1 blkio counts
        nothing (no disk has a blkio.throttle limit: Linux >= 6.10's default,
        this test host's after boot) the file stays where it was, the two are
        on no line, the other cgroup_* are on every one, and one I! line,
        once, says why, naming the root's file."""
        cg = self.cgroup(("memory", "cpu", "cpuacct", "blkio"))
        path = direct_io_file(self)
        if os.path.exists(cg.path("io.stat")):
            kernel_file, counted, counted_here = cg.path("io.stat"), True, True
        elif "blkio" in cg.controllers and os.path.exists(cg.path(BLKIO_BYTES, "blkio")):
            disks = blkio_root_disks()
            # where v1 counts some disks, the one under /var/tmp may not be one
            kernel_file, counted, counted_here = cg.path(BLKIO_BYTES, "blkio"), bool(disks), disk_of(path) in disks
        else:
            self.skipTest("no io.stat nor v1 blkio.throttle.io_service_bytes for the cgroup")
        script = (f'echo "ready $$"; read go || exit 1; '
                  f'dd if="$1" of=/dev/null bs=1M count={IO_MIB} iflag=direct status=none || exit 1; '
                  f'dd if=/dev/zero of="$1" bs=1M count={IO_MIB} oflag=direct conv=notrunc status=none || exit 1; '
                  'echo "done $$"; read stop')
        w = cg.spawn(["sh", "-c", script, "sh", path])
        before = io_file_bytes(kernel_file)
        execd = self.execd(cg, "--interval", "0.5s")
        cgh.wait_cgroup_batch(execd, TARGET)
        w.send(b"go\n")
        w.read_lines(1, h.START_TIMEOUT, "the direct I/O done")
        cgh.wait_more_batches(execd, 2)
        execd.stop()
        after = io_file_bytes(kernel_file)
        said = [l for l in execd.stderr_lines() if BLKIO_BYTES in l]
        msg = f"{kernel_file}: {before} -> {after}\n{execd.describe()}"
        if counted:
            self.assertEqual(said, [], msg)
            points = points_with(execd, "cgroup_io_read_bytes")
            got = (fsum(points, "cgroup_io_read_bytes"), fsum(points, "cgroup_io_write_bytes"))
            for k in (0, 1):
                self.assertGreaterEqual(got[k], IO_MIB * MIB if counted_here else 0, f"{got}; {msg}")
                self.assertLessEqual(got[k], after[k] - before[k], f"{got}; {msg}")
            self.assertEqual(ah.negative_deltas(points), [])
            return
        # the kernel counted nothing: a 0 would have been a lie
        self.assertEqual(after, before, msg)
        points = points_with(execd, "cgroup_cpu_user_seconds")
        for p in points:
            fields = cgh.cgroup_fields(p)
            self.assertEqual([f for f in fields if f.startswith("cgroup_io_")], [], p.raw)
            for present in ("cgroup_cpu_system_seconds", "cgroup_memory_current_max",
                            "cgroup_memory_oom_kills", "cgroup_pressure_io_some_seconds"):
                self.assertIn(present, fields, p.raw)
        self.assertEqual(len(said), 1, msg)
        self.assertTrue(said[0].startswith("I! "), said)
        self.assertIn(f'"{cgh.mounts()["blkio"]}/{BLKIO_BYTES}" lists no disk', said[0])
        self.assertIn("cgroup_io_read_bytes and cgroup_io_write_bytes are left out", said[0])
        self.assertEqual([l for l in execd.stderr_lines() if "io.stat" in l], [], msg)


# ------------------------------------------------------------ 5. InfluxDB, and where there are none

class CgroupMetricsStored(h.InfluxTestCase):
    def test_stored_and_left_out(self):
        missing = cgh.TestCgroup.missing(("memory", "cpu", "cpuacct"))
        if missing:
            self.skipTest(f"no cgroup hierarchy for {missing}")
        with cgh.TestCgroup(f"{UNIQ}-store", ("memory", "cpu", "cpuacct")) as cg:
            w = cg.spawn(cgh.sleeper_argv())
            args = ["--cgroup", cg.rel, "--name", TARGET, "--pid", w.pid, "--name", "bypid",
                    "--interval", "0.5s"]
            with h.Execd(args) as execd:
                cgh.wait_cgroup_batch(execd, TARGET)
                cgh.wait_more_batches(execd, 2)
            points = execd.points()
            with h.Execd(["--no-cgroup-metrics"] + args) as off:  # before every target: all of them
                off.wait_batches(3)
        cg_points = [p for p in points if p.tags.get("target") == TARGET]
        self.assertTrue(any(cgh.cgroup_fields(p) for p in cg_points), execd.describe())
        for p in points:
            if p.tags.get("target") != TARGET:
                self.assertEqual(cgh.cgroup_fields(p), {}, p.raw)  # --pid, global: none
        for p in off.points():
            self.assertEqual(cgh.cgroup_fields(p), {}, p.raw)
        self.assertFalse([l for l in off.stderr_lines() if "cgroup_*" in l], off.describe())
        self.assertEqual(len(ah.target_points(off, TARGET)), off.batch_count())

        h.store_and_read_back(self.influx, "cgm", execd.stdout_bytes(), points)
        rows = self.influx.rows("cgm", "SELECT cgroup_pressure_cpu_some_seconds, cgroup_memory_peak_lifetime "
                                f"FROM proctree WHERE target = '{TARGET}' AND cgroup_memory_peak_lifetime > 0")
        self.assertEqual(len(rows), len([p for p in cg_points if "cgroup_memory_peak_lifetime" in p.fields]),
                         rows)
        none = self.influx.rows("cgm", "SELECT cgroup_memory_peak_lifetime FROM proctree WHERE target = 'bypid'")
        self.assertEqual(none, [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
