"""Helpers shared by the accounting, breakdown and selector tests
(test_accounting_*.py, test_*breakdown*.py, test_selectors_execd.py), on
top of harness.py.

* paths of the workloads they use (tests/workload: iochild, cpuburn,
  selhold, threadfork, ignchild), and a script running named cpuburns;
* sums of delta fields over all batches, and the check that no delta field
  of any batch is negative; a breakdown's lines and their sums per group;
* proctree-execd run as nobody, and a workload driven step by step from
  its stdin while proctree-execd follows it (the exit-record tests);
* for the selector tests (execd and collectd): copies of selhold under
  other names, a system user, and cgroup v2 directories (cgroup2 is found
  in mountinfo: /sys/fs/cgroup on a v2 host, /sys/fs/cgroup/unified on a
  hybrid one).

Like the harness, nothing here sleeps a fixed time: every wait has a
deadline and polls a condition.
"""

import contextlib
import os
import pwd
import select
import shutil
import subprocess
import tempfile
import time

import harness as h
import line_rules

# Delta fields: amounts done in an interval, never negative.
DELTA_FIELDS = (
    "proc_io_read_bytes", "proc_io_write_bytes",
    "proc_io_storage_read_bytes", "proc_io_storage_write_bytes",
    "proc_io_cancelled_write_bytes", "proc_io_read_syscalls", "proc_io_write_syscalls",
    "proc_cpu_user_seconds", "proc_cpu_system_seconds", "proc_cpu_percent",
    "proc_minor_faults", "proc_major_faults",
    "proc_ctx_switches_voluntary", "proc_ctx_switches_involuntary",
    "proc_processes_started", "proc_processes_exited",
)


def iochild_path():
    return h.program("PROCTREE_IOCHILD", "tests/workload/iochild")


def cpuburn_path():
    return h.program("PROCTREE_CPUBURN", "tests/workload/cpuburn")


def selhold_path():
    return h.program("PROCTREE_SELHOLD", "tests/workload/selhold")


def threadfork_path():
    return h.program("PROCTREE_THREADFORK", "tests/workload/threadfork")


def ignchild_path():
    return h.program("PROCTREE_IGNCHILD", "tests/workload/ignchild")


def sh_tree(script, marker, ready):
    """`sh -c SCRIPT MARKER` ($0 = MARKER shows in the command line); the
    script gets the test's pipe as fd 3 for its background workloads."""
    return h.Workload(["sh", "-c", "exec 3<&0; " + script, marker], ready_count=ready)


def burn_script(directory, programs, in_kernel):
    """Shell commands that run, side by side, a copy of cpuburn per entry
    of programs {NAME: SECONDS} (made in directory, so its process is named
    NAME), each burning SECONDS of CPU, and wait for them all. The one named
    in_kernel burns in the kernel reading /dev/zero, so it also has I/O."""
    commands = []
    for name, seconds in programs.items():
        path = os.path.join(directory, name)
        shutil.copy(cpuburn_path(), path)
        commands.append(f"{path} {'-s ' if name == in_kernel else ''}{seconds} &")
    return " ".join(commands) + " wait"


RECORDS_LOST = "exit records were lost"


def check_program_cpu(test, got, programs, log, evidence):
    """Each program's CPU in got {NAME: seconds} against what burn_script
    made it burn (programs {NAME: SECONDS}): within 15 % and 30 ms. Where
    the log (the frontend's) says exit records were lost, as a host-wide
    burst of exits can make them, a program's last moments stay in its
    reaper's group (docs/METRICS.md, "Breakdown"): it then shows no more
    than it burned, never another's CPU."""
    lost = RECORDS_LOST in log
    for name, seconds in programs.items():
        slack = 0.15 * seconds + 0.03
        if lost:
            test.assertLessEqual(got.get(name, 0), seconds + slack, f"{name} (records lost): {evidence}")
        else:
            test.assertLessEqual(abs(got.get(name, 0) - seconds), slack, f"{name}: {evidence}")


def copy_selhold(directory, name):
    """A copy of selhold named name in directory, executable by everyone."""
    path = os.path.join(directory, name)
    shutil.copy(selhold_path(), path)
    os.chmod(path, 0o755)
    return path


def uids_held():
    """Every uid (real, effective, saved or filesystem) a process holds,
    zombies included."""
    held = set()
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/status") as f:
                held.update(int(u) for line in f if line.startswith("Uid:") for u in line.split()[1:])
        except (FileNotFoundError, NotADirectoryError, ProcessLookupError):
            pass
    return held


USERADD_UID_TAKEN = 4  # useradd's status for a uid not unique


@contextlib.contextmanager
def system_user(name):
    """A system user (no home, no login shell) for the block; yields its pwd
    entry. userdel fails while the user has processes: stop them first.

    Its uid is one no process holds: a uid userdel freed (another test's
    user, the tests run in parallel) may still be held by that user's last
    processes or zombies, which a selector by user would count as this
    one's; useradd -r alone takes the highest free uid, that one again. A
    uid another useradd takes meanwhile makes this one try the next."""
    taken = {p.pw_uid for p in pwd.getpwall()} | uids_held()
    for uid in range(999, 99, -1):  # Debian's SYS_UID_MIN..SYS_UID_MAX
        if uid in taken:
            continue
        made = subprocess.run(["useradd", "-r", "-M", "-u", str(uid), "-d", "/nonexistent", "-s", "/usr/sbin/nologin",
                               name], capture_output=True, text=True)
        if made.returncode != USERADD_UID_TAKEN:
            break
    if made.returncode != 0:
        raise AssertionError(f"useradd {name}: status {made.returncode}: {made.stderr}")
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], check=True, capture_output=True)


def as_user(pw, argv):
    """argv run as the user of pwd entry pw (setpriv: real and effective ids)."""
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    return [setpriv, f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups", *argv]


def cgroup2_mount():
    mount = h.cgroup_mounts().get("v2")
    if mount is None:
        raise AssertionError("no cgroup2 filesystem is mounted")
    return mount


def cgroup_v2_path(pid):
    with open(f"/proc/{pid}/cgroup") as f:
        for line in f:
            if line.startswith("0::"):
                return line[3:].strip()
    raise AssertionError(f"/proc/{pid}/cgroup has no 0:: line")


def cgroup_empty(path):
    with open(os.path.join(path, "cgroup.procs")) as f:
        return f.read().strip() == ""


@contextlib.contextmanager
def cgroup_dirs(*paths):
    """Create these cgroup directories, parents first; on leaving, remove
    them, children first, each once it is empty: stop their processes first."""
    made = []
    try:
        for path in paths:
            os.mkdir(path)
            made.append(path)
        yield paths
    finally:
        for path in reversed(made):
            h.wait_until(lambda: cgroup_empty(path), h.START_TIMEOUT, f"{path} to empty")
            os.rmdir(path)


def target_points(execd, target):
    """The line of TARGET in every batch that has one, in order; checks that
    every batch has its global line and no line of another target."""
    found = []
    for _, points in execd.batches():
        h.global_line(points)
        p = h.target_line(points, target)
        if p is not None:
            found.append(p)
    return found


def target_points_with_time(execd, target):
    """(arrival time, point) of TARGET's line in each batch, in order."""
    with execd._cond:
        out = list(execd.out)
    result = []
    for when, text in out:
        p = h.parse_line(text)
        if p.tags.get("target") == target:
            result.append((when, p))
    return result


def field_sum(points, name):
    """Sum of a delta field over points; a point without the field fails."""
    total = 0
    for p in points:
        if name not in p.fields:
            raise AssertionError(f"{name} missing from {p.raw!r}")
        total += p.fields[name]
    return total


def breakdown_lines(execd, target, key):
    """TARGET's breakdown lines over every batch: those tagged KEY=NAME
    (key "process" for --by process, "thread" for --by thread)."""
    return [p for _, points in execd.batches() for p in points
            if p.tags.get("target") == target and key in p.tags]


def breakdown_sums(execd, target, key, *fields):
    """{NAME: sum of the fields over every batch} of TARGET's lines tagged
    KEY=NAME; a field a line lacks adds 0 (a group can miss a field in an
    interval: no member read, io denied)."""
    sums = {}
    for p in breakdown_lines(execd, target, key):
        name = p.tags[key]
        sums[name] = sums.get(name, 0) + sum(p.fields.get(f, 0) for f in fields)
    return sums


def negative_deltas(points):
    """Every (field, value, line) of a delta field that is negative."""
    bad = []
    for p in points:
        for name in DELTA_FIELDS:
            v = p.fields.get(name)
            if v is not None and v < 0:
                bad.append((name, v, p.raw))
    return bad


def wait_file(path, timeout, what):
    """Contents of path once it exists and ends with a newline."""
    def ready():
        try:
            with open(path) as f:
                text = f.read()
        except FileNotFoundError:
            return None
        return text if text.endswith("\n") else None
    return h.wait_until(ready, timeout, what)


def write_fifo(path, data=b"", timeout=h.START_TIMEOUT):
    """Open a FIFO for writing once its reader has it open, write data, close.

    O_NONBLOCK fails with ENXIO while nobody reads, so a missing reader is a
    timeout, never a hang.
    """
    def try_open():
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK) + 1
        except OSError:
            return None
    fd = h.wait_until(try_open, timeout, f"a reader on {path}") - 1
    try:
        if data:
            os.write(fd, data)
    finally:
        os.close(fd)


def is_gone_or_zombie(pid):
    """True when pid no longer runs (gone, or a zombie waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return text[text.rindex(")") + 2] in "ZX"


def pid_gone(pid):
    return not os.path.exists(f"/proc/{pid}")


def read_lines_from(pipe, count, timeout, what):
    """Read count lines from a pipe with a deadline (for ad-hoc processes)."""
    deadline = time.monotonic() + timeout
    fd = pipe.fileno()
    buf = b""
    lines = []
    while len(lines) < count:
        if b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            lines.append(line.decode())
            continue
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError(f"{what}: got {lines} of {count} lines within {timeout}s")
        chunk = os.read(fd, 4096)
        if not chunk:
            raise AssertionError(f"{what}: EOF after {lines}")
        buf += chunk
    return lines


NOBODY = 65534  # Debian's nobody/nogroup
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def execd_as_nobody(testcase, prefix):
    """(wrapper, program): proctree-execd run as nobody with no capability,
    from a copy in a temp dir removed at the test's end (the build tree may
    sit below a directory nobody cannot enter)."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    testcase.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
    os.chmod(tmp, 0o755)
    program = shutil.copy(h.execd_path(), tmp)
    os.chmod(program, 0o755)
    return AS_NOBODY, program


CPU_FIELDS = ("proc_cpu_user_seconds", "proc_cpu_system_seconds")


def settle_cpu(execd, most=10):
    """Wait, up to most more batches, for one whose target lines show no CPU
    (the tree's line has the fields, at 0; a group's has them at 0 or not at
    all): after it no CPU waits past the lines printed. A line reports at
    most the CPU its interval's length can hold, the tree's and each
    group's on its own (common/accounting/ledger.h); an interval cut short
    (a timer late under load, the next one on the grid) leaves the rest to
    the next line, so a test that stopped there would find the groups and
    the tree apart by what waits. A 0 means nothing waited: what waits is
    reported by the first line whose interval can hold it."""
    def idle(points):
        for p in (p for p in points if "target" in p.tags):
            cpu = [p.fields.get(f) for f in CPU_FIELDS]
            grouped = any(g in p.tags for g in line_rules.GROUP_TAGS)
            if any(v not in (None, 0) for v in cpu) or (not grouped and None in cpu):
                return False
        return True
    for _ in range(most):
        if idle(execd.wait_batches(execd.batch_count() + 1)[-1][1]):
            return True
    return False


def drive(testcase, argv, execd_args, steps, wrapper=(), program=None):
    """Run argv, a workload that waits for lines on stdin, under
    `proctree-execd --pid ITS_PID EXECD_ARGS`. Once the first batch is out,
    for each (line, count) of steps: write line to its stdin, read count
    lines of its stdout, and wait two more batches (an interval that ended
    after them). After the last, wait for a batch with no CPU (settle_cpu:
    none waits past the lines). Then close its stdin, which ends it (status
    0 wanted). Returns (the lines each step read, the batches there were
    after each step, execd)."""
    parent = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    results, batches = [], []
    try:
        with h.Execd(["--pid", parent.pid, *execd_args], wrapper=wrapper, program=program) as execd:
            execd.wait_batches(1)
            for line, count in steps:
                parent.stdin.write(line)
                parent.stdin.flush()
                results.append(read_lines_from(parent.stdout, count, 120, f"the answer to {line!r}"))
                batches.append(execd.wait_batches(execd.batch_count() + 2))
            settle_cpu(execd)
            parent.stdin.close()
            testcase.assertEqual(parent.wait(h.BATCH_TIMEOUT), 0)
            execd.stop()
    finally:
        h.stop_process(parent)
        parent.stdout.close()
    return results, batches, execd


def namedthreads_path():
    return h.program("PROCTREE_NAMEDTHREADS", "tests/workload/namedthreads")
