"""Selectors of proctree-execd: --match, --exe, --user, --cgroup.

Why: services are rarely known by a pid. Operators pick them by command line
(a JVM's main class), by executable (postgres), by the user they run as, or
by their systemd cgroup. Every process a selector matches is a root, their
trees form one target, and a process that does not match and is not a
descendant of a match must never be counted: a selector that picks up
unrelated processes (or proctree-execd itself, whose command line contains
the pattern) gives wrong numbers that look right. Each test starts known
trees, some matching and some not, and requires proc_processes to be exactly
the number of processes that should be in the target, in every batch.
Default target names are the regex, name or user as given, and the cgroup's
base name.
"""

import os
import shutil
import sys
import tempfile
import unittest

import accounting_helpers as ah
import harness as h

UNIQ = str(os.getpid())


def execd_targets(*args, batches=3):
    """Run proctree-execd with these target options until it printed batches."""
    execd = h.Execd(["--interval", "0.5s", "--discovery-interval", "0.2s", *args])
    try:
        execd.wait_batches(batches)
    finally:
        execd.stop()
    return execd


class Selectors(unittest.TestCase):
    def setUp(self):
        self.workloads = []
        self.tmp = tempfile.mkdtemp(prefix="proctree-sel-")
        os.chmod(self.tmp, 0o755)  # the --user test runs a copy as another user
        self.selhold = self.copy_selhold("selhold")

    def tearDown(self):
        for w in reversed(self.workloads):
            w.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, workload):
        self.workloads.append(workload)
        return workload

    def copy_selhold(self, name):
        return ah.copy_selhold(self.tmp, name)

    def assert_count(self, execd, target, expected):
        """TARGET's line is in every batch and always counts exactly expected."""
        points = ah.target_points(execd, target)
        counts = [p.fields["proc_processes"] for p in points]
        self.assertEqual(len(points), execd.batch_count(), f"target {target!r} missing from a batch\n"
                         + execd.describe())
        self.assertEqual(counts, [expected] * len(points), f"target {target!r}\n{execd.describe()}")

    def assert_nothing_counted(self, execd, target):
        counts = [p.fields["proc_processes"] for p in ah.target_points(execd, target)]
        self.assertEqual([c for c in counts if c != 0], [], f"target {target!r} matched something\n"
                         + execd.describe())

    # ------------------------------------------------------------ --match

    def test_match(self):
        s = self.selhold
        # A: sh -> (sh "...-root-inner" -> selhold), selhold: 4 processes, the
        #    inner sh matches too (inside A's tree: counted once).
        self.start(ah.sh_tree(f'sh -c "{s} 0 <&3 & wait" pt-sel-{UNIQ}-root-inner & {s} 0 <&3 & wait',
                           f"pt-sel-{UNIQ}-root-a", ready=2))
        # B: sh -> selhold -> its child: 3 processes; the selholds do not match.
        self.start(ah.sh_tree(f"{s} 1 <&3 & wait", f"pt-sel-{UNIQ}-root-b", ready=2))
        # Not matching either regex.
        self.start(ah.sh_tree(f"{s} 1 <&3 & wait", f"pt-sel-{UNIQ}-other", ready=2))

        regex = f"pt-sel-{UNIQ}-root"          # also in proctree-execd's own command line
        spanning = f"wait pt-sel-{UNIQ}-root-b$"  # spans argv[2] NUL argv[3], trailing NUL dropped
        execd = execd_targets("--match", regex, "--match", spanning, "--name", "nul")
        self.assert_count(execd, regex, 4 + 3)
        self.assert_count(execd, "nul", 3)

    # ------------------------------------------------------------ --exe

    def test_exe(self):
        long_name = f"ptx{UNIQ}-long-binary-name"   # longer than comm's 15 bytes
        renamed = f"ptx{UNIQ}b"                     # renames itself with prctl
        comm = f"ptc{UNIQ}"
        argv0 = f"ptx{UNIQ}c"                       # started with another argv[0]
        fake = f"pta{UNIQ}"
        long_path = self.copy_selhold(long_name)
        renamed_path = self.copy_selhold(renamed)
        argv0_path = self.copy_selhold(argv0)
        self.start(h.Workload([long_path, "2"], ready_count=3))
        self.start(h.Workload([renamed_path, "--comm", comm, "1"], ready_count=2))
        # exec with argv[0] = fake (what `exec -a fake` does in bash)
        self.start(h.Workload([sys.executable, "-c", "import os, sys; os.execv(sys.argv[1], sys.argv[2:])",
                               argv0_path, fake, "1"], ready_count=2))
        with open(f"/proc/{self.workloads[1].pid}/comm") as f:
            self.assertEqual(f.read().strip(), comm)

        execd = execd_targets("--exe", long_name, "--exe", comm, "--exe", renamed,
                              "--exe", argv0, "--exe", fake)
        self.assert_count(execd, long_name, 3)   # by the executable's base name
        self.assert_count(execd, comm, 2)        # by comm
        self.assert_count(execd, renamed, 2)     # by executable although comm differs
        self.assert_count(execd, argv0, 2)       # argv[0] does not hide the executable
        self.assert_nothing_counted(execd, fake)  # argv[0] is neither comm nor executable

    def test_target_without_a_process_keeps_its_line(self):
        """proctree-execd(1): a target with no live process gets one W! line on stderr and
        keeps its line with proc_processes=0, so an alert can fire on it; no
        memory or I/O fields, which would look like a measurement."""
        name = f"ptnone{UNIQ}"
        pattern = f"^pt-sel-{UNIQ}-nothing$"
        execd = execd_targets("--exe", name, "--match", pattern)
        for target in (name, pattern):
            points = ah.target_points(execd, target)
            self.assertTrue(points, execd.describe())
            for p in points:
                self.assertEqual(p.fields["proc_processes"], 0, p.raw)
                self.assertNotIn("proc_rss_max", p.fields, p.raw)
                self.assertNotIn("proc_io_read_bytes", p.fields, p.raw)
        warnings = [l for l in execd.stderr_lines() if l.startswith("W! ") and name in l]
        self.assertEqual(len(warnings), 1, execd.describe())

    # ------------------------------------------------------------ --user

    def test_user(self):
        user = f"ptsel{UNIQ}"
        with ah.system_user(user) as pw:
            self.run_user_test(user, pw)

    def run_user_test(self, user, pw):
        try:
            work = self.start(h.Workload(ah.as_user(pw, [self.selhold, "2"]), ready_count=3))
            # The same program as root: not counted.
            self.start(h.Workload([self.selhold, "1"], ready_count=2))
            with open(f"/proc/{work.pid}/status") as f:
                uids = [l.split()[1:] for l in f if l.startswith("Uid:")][0]
            self.assertEqual(uids[1], str(pw.pw_uid))

            execd = execd_targets("--user", user, "--user", str(pw.pw_uid), "--name", "byuid")
            self.assert_count(execd, user, 3)
            self.assert_count(execd, "byuid", 3)
        finally:
            for w in reversed(self.workloads):
                w.stop()
            self.workloads = []

    # ------------------------------------------------------------ --cgroup

    def test_cgroup(self):
        mount = ah.cgroup2_mount()
        rel = f"/pt-sel-{UNIQ}"
        with ah.cgroup_dirs(mount + rel, mount + rel + "/sub") as (top, sub):
            try:
                self.run_cgroup_test(mount, rel, top, sub)
            finally:
                for w in reversed(self.workloads):
                    w.stop()
                self.workloads = []

    def run_cgroup_test(self, mount, rel, top, sub):
        s = self.selhold
        # Each shell moves itself into the cgroup, then becomes selhold, whose
        # children are born there.
        t1 = self.start(h.Workload(["sh", "-c", f"echo $$ > {top}/cgroup.procs && exec {s} 2"], ready_count=3))
        t2 = self.start(h.Workload(["sh", "-c", f"echo $$ > {sub}/cgroup.procs && exec {s} 1"], ready_count=2))
        self.start(h.Workload([s, "1"], ready_count=2))  # outside: not counted
        self.assertEqual(ah.cgroup_v2_path(t1.pid), rel)
        self.assertEqual(ah.cgroup_v2_path(t2.pid), rel + "/sub")
        # A descendant that moved to another cgroup is still a descendant.
        moved = [p for p in t1.ready_pids if p != t1.pid][0]
        with open(os.path.join(mount, "cgroup.procs"), "w") as f:
            f.write(str(moved))
        self.assertEqual(ah.cgroup_v2_path(moved), "/")

        execd = execd_targets("--cgroup", rel, "--cgroup", top, "--name", "abs",
                              "--cgroup", rel + "/sub", "--cgroup", sub, "--name", "abssub")
        self.assert_count(execd, os.path.basename(rel), 3 + 2)
        self.assert_count(execd, "abs", 3 + 2)
        self.assert_count(execd, "sub", 2)
        self.assert_count(execd, "abssub", 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
