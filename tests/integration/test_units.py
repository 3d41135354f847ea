"""--unit: a systemd unit's processes, found by its cgroup, in a real systemd.

Why: on a systemd host a service is known by its unit name, and what belongs
to it is its cgroup and every cgroup below (a delegated service moves its
workers into sub-cgroups; a daemon that double-forks is still in them).
Each test boots Debian's systemd as PID 1 of namespaces of its own
(systemd_harness.py: nothing of the host is started or touched), starts
units there, and runs proctree-execd inside, where it sees that systemd's
/proc and cgroup2. What is asserted is what the kernel guarantees: the
processes in the unit's cgroups (read back from cgroup.procs), that the old
ones are gone after a restart, the sum of their VmRSS, and that a breakdown's
lines add up to the target's.

The interface: `--unit NAME` (service, scope, slice, template instance, or a
glob whose matching units make one target), target named after NAME as given;
an inactive or unknown unit keeps its line with proc_processes=0 and is
said once on stderr (W!, its name quoted, "inactive" or "unknown");
`--by cgroup` adds one line per cgroup directly under the target's
(cgroup=CHILD), per matched unit for a glob, and cgroup=. for the processes
in the target's own cgroup. A glob takes every unit it matches (300 here;
4,096 at most: test_units_tree.py). A name is the system manager's unit
before a user manager's (a user's is faked: a cgroup where user@1000.service
puts its units, a process moved there), which it replaces when it starts;
a glob over both has two lines, the user's keyed user@1000.service:NAME,
each with its own cgroup's CPU. Descendants that moved to another cgroup
stay in proc_* and are said once (I!, how many, where).
"""

import os
import unittest

import harness as h
import systemd_harness as sh

INTERVAL = ["--interval", "0.5s", "--discovery-interval", "0.2s"]
SCRIPTS = "/run/proctree-test"   # inside: its tmpfs /run
READY = "/run/proctree-ready"    # inside: one file per process that holds its memory


# python3 HOLD MIB: makes MIB MiB resident, says so (a file named after its
# pid in READY), then sleeps: a member whose memory does not move.
HOLD = f"{SCRIPTS}/hold.py"
HOLD_TEXT = f"""import os, sys, time
b = bytes(range(256)) * (int(sys.argv[1]) << 12)
open('{READY}/%d' % os.getpid(), 'w').close()
time.sleep(3600)
"""


def total_points(execd, target):
    """The target's own line in every batch that has one (not a breakdown
    line, which has a cgroup or process tag too), in order."""
    found = []
    for _, points in execd.batches():
        h.global_line(points)
        lines = [p for p in points if p.tags.get("target") == target
                 and "cgroup" not in p.tags and "process" not in p.tags]
        if len(lines) > 1:
            raise AssertionError(f"{len(lines)} lines for target {target!r} in one batch")
        found += lines
    return found


def cgroup_lines(points, target):
    """{cgroup tag: point} of one batch's --by cgroup lines of target."""
    lines = {}
    for p in points:
        if p.tags.get("target") == target and "cgroup" in p.tags:
            if p.tags["cgroup"] in lines:
                raise AssertionError(f"two lines cgroup={p.tags['cgroup']} in one batch: {p.raw}")
            lines[p.tags["cgroup"]] = p
    return lines


def counts(execd, target):
    return [p.fields["proc_processes"] for p in total_points(execd, target)]


def warnings_about(execd, name):
    return [l for l in execd.stderr_lines() if l.startswith("W! ") and f'"{name}"' in l]


class ExecdThrough(h.Execd):
    """proctree-execd run inside through a command line of the test's,
    which execs it (its program and args appended); stopped by its pid."""

    def __init__(self, sd, through, args):
        super().__init__(args, wrapper=sd.nsenter(through), program=sd.execd_program())
        self.inner_pid = sh._inner_child(self.proc, "proctree-execd", "proctree-execd")

    def stop(self):
        sh._stop_inner(self.proc, self.inner_pid, 5.0)
        return super().stop()


class UnitTestCase(unittest.TestCase):
    """One systemd per test, stopped (by its pid) whatever happens."""

    def setUp(self):
        self.sd = sh.Systemd().boot()
        self.addCleanup(self.sd.stop)
        self.sd.run(["mkdir", "-p", SCRIPTS, READY])
        self.sd.write_file(HOLD, HOLD_TEXT)

    def execd(self, *args):
        execd = self.sd.execd([*INTERVAL, *args])
        self.addCleanup(execd.stop)
        return execd

    def script(self, name, text):
        path = f"{SCRIPTS}/{name}"
        self.sd.write_file(path, "#!/bin/sh\n" + text, 0o755)
        return path

    def ready_count(self):
        return len(os.listdir(self.sd.root_path(READY)))

    def wait_ready(self, count):
        h.wait_until(lambda: self.ready_count() >= count, h.START_TIMEOUT, f"{count} processes holding memory")

    def wait_count(self, execd, target, count, after=0, timeout=h.START_TIMEOUT):
        """Wait for a batch, later than the first `after` batches, whose line
        of target counts `count` processes; returns how many batches there were."""
        def seen(e):
            if not e.running():
                raise AssertionError(f"proctree-execd exited\n{e.describe()}")
            c = counts(e, target)
            return len(c) > after and c[-1] == count
        execd.wait_for(seen, timeout, f"target {target!r} to count {count} processes (after batch {after})")
        return len(counts(execd, target))

    def assert_counts_hold(self, execd, target, count, batches=2):
        """The next `batches` batches count exactly `count` too."""
        start = len(counts(execd, target))
        execd.wait_for(lambda e: len(counts(e, target)) >= start + batches, h.BATCH_TIMEOUT,
                       f"{batches} more batches")
        # One reading: a batch may arrive between two.
        seen = counts(execd, target)[start - 1:]
        self.assertEqual(seen, [count] * len(seen), execd.describe())


class Units(UnitTestCase):
    def test_service_with_children_in_sub_cgroups_counted_whole(self):
        # A delegated service: its shell moves itself to main/, starts one
        # holder in w1/, one in w2/, and one in w2/deep/ that it orphans
        # (systemd reaps it): not a descendant of the service's process, in
        # its cgroups all the same. 4 processes.
        script = self.script("delegated.sh", f"""
cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
mkdir "$cg/main" "$cg/w1" "$cg/w2" "$cg/w2/deep"
echo $$ > "$cg/main/cgroup.procs"
run() {{ exec sh -c 'echo $$ > "$1/cgroup.procs" && exec python3 {HOLD} 8' sh "$1"; }}
run "$cg/w1" &
run "$cg/w2" &
( run "$cg/w2/deep" & )
wait
""")
        unit = self.sd.start_service("pt-deleg", [script], properties=["Delegate=yes"])
        self.wait_ready(3)
        pids = self.sd.wait_pids(unit, 4)
        cg = self.sd.control_group(unit)
        self.assertEqual(cg, "/system.slice/pt-deleg.service")
        for sub, n in (("/main", 1), ("/w1", 1), ("/w2", 2), ("/w2/deep", 1), ("", 4)):
            self.assertEqual(len(self.sd.cgroup_pids(cg + sub)), n, sub)  # (and below)

        execd = self.execd("--unit", unit)
        self.wait_count(execd, unit, 4)
        before = self.sd.rss_bytes(pids)
        self.assert_counts_hold(execd, unit, 4)
        after = self.sd.rss_bytes(pids)
        self.assertEqual(self.sd.unit_pids(unit), pids, "the service's processes changed")
        last = total_points(execd, unit)[-1]
        truth = (before + after) / 2
        for field in ("proc_rss_min", "proc_rss_max"):
            self.assertLessEqual(abs(last.fields[field] - truth), 0.03 * truth + abs(after - before),
                                 f"{field} {last.fields[field]} vs VmRSS sum {before}..{after}\n{execd.describe()}")
        self.assertGreater(truth, 3 * 8 * h.MIB)

    def test_restart_is_followed(self):
        self.sd.write_unit("pt-restart.service",
                           "[Service]\nExecStart=/bin/sh -c 'sleep 3600 & sleep 3600 & wait'\n")
        self.sd.systemctl("start", "pt-restart.service")
        old = self.sd.wait_pids("pt-restart.service", 3)
        old_main = self.sd.main_pid("pt-restart.service")
        execd = self.execd("--unit", "pt-restart.service", "--name", "restarted")
        self.wait_count(execd, "restarted", 3)
        self.sd.systemctl("restart", "pt-restart.service")
        new = self.sd.wait_pids("pt-restart.service", 3)
        self.assertNotEqual(self.sd.main_pid("pt-restart.service"), old_main)
        self.assertEqual(set(old) & set(new), set(), "restart kept a process")
        gone = self.sd.run(["sh", "-c", 'for p; do [ -e /proc/$p ] && echo $p; done; true', "sh", *map(str, old)])
        self.assertEqual(gone.stdout.split(), [], "an old process still runs")
        # A batch begun after the restart (two batches later) counts the
        # new ones: the old processes are gone, so they are the new ones.
        seen = len(counts(execd, "restarted"))
        self.wait_count(execd, "restarted", 3, after=seen + 1)
        self.assert_counts_hold(execd, "restarted", 3)
        self.assertTrue(execd.running(), execd.describe())

    def test_stopped_then_started_and_unknown(self):
        self.sd.write_unit("pt-later.service", "[Service]\nExecStart=/bin/sh -c 'sleep 3600 & wait'\n")
        unknown = "pt-nosuch.service"
        execd = self.execd("--unit", "pt-later.service", "--unit", unknown)
        execd.wait_batches(4)
        self.assertEqual(set(counts(execd, "pt-later.service")), {0}, execd.describe())
        self.assertEqual(set(counts(execd, unknown)), {0}, execd.describe())
        for p in total_points(execd, "pt-later.service"):
            self.assertNotIn("proc_rss_max", p.fields, p.raw)
        inactive = warnings_about(execd, "pt-later.service")
        self.assertEqual(len(inactive), 1, execd.describe())
        self.assertIn("inactive", inactive[0])
        missing = warnings_about(execd, unknown)
        self.assertEqual(len(missing), 1, execd.describe())
        self.assertIn("unknown", missing[0])

        self.sd.systemctl("start", "pt-later.service")
        first = self.sd.wait_pids("pt-later.service", 2)
        self.wait_count(execd, "pt-later.service", 2)
        self.sd.systemctl("stop", "pt-later.service")
        self.assertEqual(self.sd.unit_state("pt-later.service"), "inactive")
        self.wait_count(execd, "pt-later.service", 0)
        self.sd.systemctl("start", "pt-later.service")
        second = self.sd.wait_pids("pt-later.service", 2)
        self.assertEqual(set(first) & set(second), set())
        self.wait_count(execd, "pt-later.service", 2)
        self.assert_counts_hold(execd, "pt-later.service", 2)

        self.assertTrue(execd.running(), execd.describe())
        self.assertEqual(set(counts(execd, unknown)), {0})
        self.assertEqual(len(warnings_about(execd, unknown)), 1, "the unknown unit's warning was repeated\n"
                         + execd.describe())

    def test_template_instance(self):
        self.sd.write_unit("pt-tmpl@.service", "[Service]\nExecStart=/bin/sh -c 'sleep 3600 & sleep 3600 & wait' %i\n")
        self.sd.systemctl("start", "pt-tmpl@one.service", "pt-tmpl@two.service")
        self.assertEqual(self.sd.control_group("pt-tmpl@one.service"),
                         "/system.slice/system-pt\\x2dtmpl.slice/pt-tmpl@one.service")
        self.sd.wait_pids("pt-tmpl@one.service", 3)
        self.sd.wait_pids("pt-tmpl@two.service", 3)
        execd = self.execd("--unit", "pt-tmpl@one.service", "--unit", "pt-tmpl@two.service", "--name", "two")
        self.wait_count(execd, "pt-tmpl@one.service", 3)
        self.assert_counts_hold(execd, "pt-tmpl@one.service", 3)
        self.assert_counts_hold(execd, "two", 3)

    def test_glob_sums_the_matching_units(self):
        self.sd.start_service("pt-glob-a", ["sh", "-c", "sleep 3600 & wait"])                     # 2
        self.sd.start_service("pt-glob-b", ["sh", "-c", "sleep 3600 & sleep 3600 & wait"])        # 3
        self.sd.start_service("pt-other", ["sleep", "3600"])                                      # 1
        self.sd.wait_pids("pt-glob-a.service", 2)
        self.sd.wait_pids("pt-glob-b.service", 3)
        glob = "pt-glob-*.service"
        execd = self.execd("--unit", glob, "--by", "cgroup", "--unit", "pt-other.service")
        self.wait_count(execd, glob, 5)
        self.assert_counts_hold(execd, glob, 5)
        self.assert_counts_hold(execd, "pt-other.service", 1)
        last = execd.batches()[-1][1]
        lines = cgroup_lines(last, glob)
        self.assertEqual(sorted(lines), ["pt-glob-a.service", "pt-glob-b.service"], execd.describe())
        self.assertEqual(lines["pt-glob-a.service"].fields["proc_processes"], 2)
        self.assertEqual(lines["pt-glob-b.service"].fields["proc_processes"], 3)
        self.assert_breakdown_adds_up(execd, glob)

    def test_by_cgroup_under_a_slice(self):
        # test.slice: a.service (its shell and a sleep), b.service (a shell,
        # a sleep and python3 that burns 0.3 s of CPU then sleeps), and one
        # process in the slice's own cgroup: a shell's orphan (systemd's
        # child, no member's descendant) that moves itself there, where the
        # kernel lets it: not where the slice enables controllers for its
        # units (the no-internal-process rule: pure cgroup v2, the vm
        # suite), where the orphan stays in a.service. python3
        # burns once told to (a file "go"), after proctree's first read:
        # CPU used before that is no interval's (on a slow CPU its start
        # alone may outlast proctree's).
        burn = (f"import os, time\nwhile not os.path.exists('{READY}/go'): time.sleep(0.02)\n"
                "start = time.process_time()\nwhile time.process_time() < start + 0.3: pass\n"
                f"open('{READY}/burned', 'w').close()\ntime.sleep(3600)\n")
        self.sd.write_file(f"{SCRIPTS}/burn.py", burn)
        a = self.script("a.sh", "( sh -c 'echo $$ > /sys/fs/cgroup/test.slice/cgroup.procs; exec sleep 3600' & )\n"
                        "sleep 3600 & wait\n")
        self.sd.start_service("a", [a], slice="test.slice")
        self.sd.start_service("b", ["sh", "-c", f"sleep 3600 & python3 {SCRIPTS}/burn.py & wait"], slice="test.slice")
        with open(self.sd.cgroup_dir("/test.slice/cgroup.subtree_control")) as f:
            internal = f.read().strip() == ""
        self.sd.wait_pids("a.service", 2 if internal else 3)
        self.sd.wait_pids("b.service", 3)
        h.wait_until(lambda: len(self.sd.cgroup_pids("/test.slice")) == 6, h.START_TIMEOUT, "6 processes in test.slice")
        with open(self.sd.cgroup_dir("/test.slice/cgroup.procs")) as f:
            self.assertEqual(len(f.read().split()), 1 if internal else 0, "processes in the slice's own cgroup")

        execd = self.execd("--unit", "test.slice", "--by", "cgroup")
        self.wait_count(execd, "test.slice", 6)
        self.sd.write_file(f"{READY}/go", "")
        h.wait_until(lambda: os.path.exists(self.sd.root_path(f"{READY}/burned")), 60, "python3 to burn 0.3 s")
        self.assert_counts_hold(execd, "test.slice", 6, batches=3)
        lines = cgroup_lines(execd.batches()[-1][1], "test.slice")
        want = {"a.service": 2, "b.service": 3, ".": 1} if internal else {"a.service": 3, "b.service": 3}
        self.assertEqual({k: p.fields["proc_processes"] for k, p in lines.items()}, want, execd.describe())
        self.assert_breakdown_adds_up(execd, "test.slice")
        cpu = sum(p.fields.get("proc_cpu_user_seconds", 0) + p.fields.get("proc_cpu_system_seconds", 0)
                  for _, points in execd.batches() for p in points
                  if p.tags.get("target") == "test.slice" and p.tags.get("cgroup") == "b.service")
        # all of the 0.3 s is after proctree's first read of python3: its
        # utime + stime grow by it, to a clock tick per field
        self.assertGreaterEqual(cpu, 0.3 - 0.02, "b.service's line has python3's CPU\n" + execd.describe())

    def test_glob_over_300_units(self):
        # 300 instances of a template, one sleep each: all counted (the
        # limit was 256 units, silently), and nothing said of a limit.
        # all pulled in by one target, queued by one call (300 calls take a
        # slow machine longer than a command's timeout)
        self.sd.write_unit("pt-many@.service", "[Service]\nExecStart=/bin/sleep 3600\n", reload=False)
        wants = " ".join(f"pt-many@{i}.service" for i in range(300))
        self.sd.write_unit("pt-many.target", f"[Unit]\nDefaultDependencies=no\nWants={wants}\n")
        self.sd.run(["systemctl", "start", "--no-block", "pt-many.target"], timeout=4 * sh.CMD_TIMEOUT)
        h.wait_until(lambda: len(self.sd.cgroup_pids("/system.slice/system-pt\\x2dmany.slice")) == 300,
                     4 * h.START_TIMEOUT, "300 sleeps")
        glob = "pt-many@*.service"
        execd = self.execd("--unit", glob)
        self.wait_count(execd, glob, 300)
        self.assert_counts_hold(execd, glob, 300)
        self.assertEqual(warnings_about(execd, glob), [], execd.describe())

    def user_unit(self, name, argv):
        """A user manager's unit faked: a cgroup made where user@1000.service
        puts its units, and argv started inside and moved there."""
        rel = f"/user.slice/user-1000.slice/user@1000.service/app.slice/{name}"
        self.sd.run(["mkdir", "-p", f"/sys/fs/cgroup{rel}"])
        # started by a service of another name (its shell's child), so that
        # the move is within the namespace's cgroups (nsenter's process is
        # outside them, and with nsdelegate, as on a systemd host, could not
        # move in)
        # (a script: systemd would take $$ in a command line for its own)
        move = self.script("into.sh", 'cg="$1"; shift\n'
                           'sh -c \'echo $$ > "$1/cgroup.procs" && shift && exec "$@"\' sh "$cg" "$@" &\nwait\n')
        self.sd.start_service(f"pt-launch-{name.split('.')[0]}", [move, f"/sys/fs/cgroup{rel}", *argv])
        h.wait_until(lambda: len(self.sd.cgroup_pids(rel)) == 1, h.START_TIMEOUT, f"a process in {rel}")
        return rel

    def test_system_unit_replaces_a_users_of_its_name(self):
        # Only user@1000's pt-same.service runs (one sleep): it is followed,
        # and said. Then the system manager's starts (a shell and two
        # sleeps): it is followed from then on, the user's process leaves,
        # and that is said.
        user = self.user_unit("pt-same.service", ["sleep", "3600"])
        execd = self.execd("--unit", "pt-same.service")
        self.wait_count(execd, "pt-same.service", 1)
        first = [l for l in execd.stderr_lines() if l.startswith("I! ") and "is followed" in l]

        self.sd.start_service("pt-same", ["sh", "-c", "sleep 3600 & sleep 3600 & wait"])
        system = self.sd.wait_pids("pt-same.service", 3)
        seen = len(counts(execd, "pt-same.service"))
        self.wait_count(execd, "pt-same.service", 3, after=seen)
        self.assert_counts_hold(execd, "pt-same.service", 3)
        self.assertEqual(len(self.sd.cgroup_pids(user)), 1, "the user's unit still runs")
        self.assertEqual(len(system), 3)
        self.assertEqual(len(first), 1, execd.describe())
        self.assertIn('the user manager "user@1000.service"\'s is followed', first[0])
        self.assertIn(user, first[0])
        moved = [l for l in execd.stderr_lines() if "is followed now" in l]
        self.assertEqual(len(moved), 1, execd.describe())
        self.assertEqual(len([l for l in execd.stderr_lines() if "is followed" in l]), 2, execd.describe())
        for text in ("the system manager's is followed now", "/system.slice/pt-same.service", user,
                     "leave the target"):
            self.assertIn(text, moved[0])

    def test_glob_over_two_units_of_one_name(self):
        # The system manager's pt-twin.service (a shell and a sleep) and
        # user@1000's (python3 that burns 1 s of CPU when told, once
        # proctree has counted all 3): two lines, each of its own processes
        # and its own cgroup's CPU. The system one's cgroup CPU is its
        # sleepers' (next to none), the user's is its burner's second: a
        # line given the other's cgroup would show it.
        self.sd.start_service("pt-twin", ["sh", "-c", "sleep 3600 & wait"])
        self.sd.wait_pids("pt-twin.service", 2)
        burn = (f"import os, time\nwhile not os.path.exists('{READY}/go'): time.sleep(0.02)\n"
                "t0 = time.process_time()\nwhile time.process_time() - t0 < 1: pass\n"
                f"open('{READY}/burned', 'w').close()\ntime.sleep(3600)\n")
        self.user_unit("pt-twin.service", ["python3", "-c", burn])
        glob = "pt-twin*"
        execd = self.execd("--unit", glob, "--by", "cgroup")
        self.wait_count(execd, glob, 3)
        self.sd.write_file(f"{READY}/go", "")
        h.wait_until(lambda: os.path.exists(self.sd.root_path(f"{READY}/burned")), 60, "python3 to burn 1 s")
        self.assert_counts_hold(execd, glob, 3, batches=3)
        keys = ("pt-twin.service", "user@1000.service:pt-twin.service")
        lines = cgroup_lines(execd.batches()[-1][1], glob)
        self.assertEqual({k: p.fields["proc_processes"] for k, p in lines.items()}, {keys[0]: 2, keys[1]: 1},
                         execd.describe())
        self.assert_breakdown_adds_up(execd, glob)

        def cpu(key, prefix):
            return sum(p.fields.get(f"{prefix}_cpu_{m}_seconds", 0) for _, points in execd.batches() for p in points
                       if p.tags.get("target") == glob and p.tags.get("cgroup") == key for m in ("user", "system"))
        # all of the burn is after proctree's first read of the burner and
        # of its cgroup: at least 1 s in each, to a clock tick per field in
        # /proc; the sleepers' cgroup has next to none of it
        self.assertGreaterEqual(cpu(keys[1], "proc"), 1 - 0.02, execd.describe())
        self.assertGreaterEqual(cpu(keys[1], "cgroup"), 1, execd.describe())
        self.assertLess(cpu(keys[0], "cgroup"), 0.1, execd.describe())

    def test_members_outside_the_units_cgroups_are_said(self):
        # pt-moves.service: its shell, a sleep, and a child that moves
        # itself to another cgroup (as an sshd's session children move to
        # session-N.scope) and stays its descendant: 3 processes in
        # proc_*, 2 in the unit's cgroups; said once. pt-stays.service,
        # whose processes stay in its cgroups (one in a sub-cgroup), is
        # not said.
        script = self.script("moves.sh", """
mkdir -p /sys/fs/cgroup/pt-elsewhere
sh -c 'echo $$ > /sys/fs/cgroup/pt-elsewhere/cgroup.procs && exec sleep 3600' &
sleep 3600 & wait
""")
        self.sd.start_service("pt-moves", [script])
        stays = self.script("stays.sh", """
cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
mkdir "$cg/main" "$cg/sub"
echo $$ > "$cg/main/cgroup.procs"
sh -c 'echo $$ > "$1/cgroup.procs" && exec sleep 3600' sh "$cg/sub" &
wait
""")
        self.sd.start_service("pt-stays", [stays], properties=["Delegate=yes"])
        self.sd.wait_pids("pt-moves.service", 2)
        h.wait_until(lambda: len(self.sd.cgroup_pids("/pt-elsewhere")) == 1, h.START_TIMEOUT, "the moved child")
        self.sd.wait_pids("pt-stays.service", 2)
        execd = self.execd("--unit", "pt-moves.service", "--unit", "pt-stays.service")
        self.wait_count(execd, "pt-moves.service", 3)
        self.assert_counts_hold(execd, "pt-moves.service", 3, batches=3)
        self.assert_counts_hold(execd, "pt-stays.service", 2)
        said = [l for l in execd.stderr_lines() if "outside unit" in l]
        self.assertEqual(len(said), 1, execd.describe())
        self.assertTrue(said[0].startswith('I! proctree-execd: target "pt-moves.service": 1 of its 3 processes run '
                                           'outside unit "pt-moves.service"\'s cgroups (in "/pt-elsewhere")'),
                        said[0])
        self.assertIn("proc_* and not in cgroup_*", said[0])

    def test_no_systemd_in_a_containers_own_cgroups(self):
        # As in a container: a cgroup namespace of its own, rooted at the
        # cgroup of the process that runs proctree (outside this systemd's
        # tree), and cgroup2 mounted again on /sys/fs/cgroup, which then
        # shows only that: one warning says no systemd manages it, and the
        # unit is not called inactive or unknown. The same container with
        # this systemd's /sys mounted at /run/hs (--sys-root, as HOST_SYS
        # does): the unit is found, nothing is said. (Its own /run would
        # not tell: /run/systemd/system is absent from a container's /run
        # where systemd runs, and present in this systemd's.)
        self.sd.start_service("pt-x", ["sleep", "3600"])
        self.sd.wait_pids("pt-x.service", 1)
        container = self.script("container.sh", """
exec unshare --cgroup --mount sh -c 'mkdir -p /run/hs && mount --rbind /sys /run/hs &&
umount /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup && exec "$@"' sh "$@"
""")
        own = ExecdThrough(self.sd, [container], [*INTERVAL, "--unit", "pt-x.service"])
        self.addCleanup(own.stop)
        host = ExecdThrough(self.sd, [container], [*INTERVAL, "--sys-root", "/run/hs", "--unit", "pt-x.service"])
        self.addCleanup(host.stop)
        self.wait_count(host, "pt-x.service", 1)
        own.wait_batches(2)
        said = [l for l in own.stderr_lines() if "no systemd manages the cgroups read here" in l]
        self.assertEqual(len(said), 2, own.describe())  # at start, and why the line is empty
        self.assertIn('("/sys/fs/cgroup" has neither init.scope nor system.slice)', said[0])
        self.assertNotIn("inactive", said[1])
        self.assertNotIn("unknown", said[1])
        self.assertEqual(set(counts(own, "pt-x.service")), {0})
        self.assertEqual(h.load_free([l for l in host.stderr_lines() if l.startswith("W! ")]), [], host.describe())

    def assert_breakdown_adds_up(self, execd, target):
        """In every batch the cgroup lines' processes add up to the target's;
        memory gauges bound it (each group's max is the max of its own sum);
        over all batches their CPU adds up to the target's."""
        cpu_total = cpu_groups = 0.0
        cpu = ("proc_cpu_user_seconds", "proc_cpu_system_seconds")
        for _, points in execd.batches():
            total = [p for p in points if p.tags.get("target") == target and "cgroup" not in p.tags]
            if not total:
                continue
            total = total[0]
            groups = cgroup_lines(points, target)
            self.assertEqual(sum(p.fields["proc_processes"] for p in groups.values()), total.fields["proc_processes"],
                             f"{total.raw}\n{[p.raw for p in groups.values()]}")
            cpu_total += sum(total.fields.get(f, 0) for f in cpu)
            cpu_groups += sum(p.fields.get(f, 0) for p in groups.values() for f in cpu)
            with_rss = [p for p in groups.values() if "proc_rss_max" in p.fields]
            if "proc_rss_max" in total.fields and with_rss:
                self.assertGreaterEqual(sum(p.fields["proc_rss_max"] for p in with_rss), total.fields["proc_rss_max"])
                self.assertLessEqual(sum(p.fields["proc_rss_min"] for p in with_rss),
                                     total.fields["proc_rss_max"] * 1.03)
        self.assertLessEqual(abs(cpu_groups - cpu_total), 0.02, f"cpu groups {cpu_groups} total {cpu_total}")


if __name__ == "__main__":
    sh.systemd_or_skip()
    unittest.main(verbosity=2)
