"""Selectors of the collectd plugin: Pid, PidFile, Match, Exe, User, Cgroup.

Why: the plugin must pick exactly the processes proctree-execd picks with the
same selectors (test_selectors_execd.py). One real collectd runs with one
<Process> block per case, while trees of selhold that match and decoy trees
of the same program that do not are running; every csv row of each block's
count-proc_processes must be exactly the number of processes of the matching
trees. collectd's own command line matches the Match block's regex but is
never counted; a block that matches nothing reports 0. The user and the
cgroups (cgroup v2, wherever it is mounted: /sys/fs/cgroup/unified on a
hybrid host) are created here and removed at the end.
"""

import contextlib
import glob
import os
import re
import tempfile
import unittest

import accounting_helpers as ah
import collectd_harness as ch
import harness as h

UNIQ = str(os.getpid())
ROWS = 3  # csv rows read per block: every one must be exact


class CollectdSelectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)  # reverse order: collectd, trees, cgroups, user, temp dir
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-csel-"))
        os.chmod(tmp, 0o755)  # the user's tree runs a copy from here
        pw = stack.enter_context(ah.system_user(f"ptcsel{UNIQ}"))
        mount, rel = ah.cgroup2_mount(), f"/pt-csel-{UNIQ}"
        top, sub = stack.enter_context(ah.cgroup_dirs(mount + rel, mount + rel + "/sub"))

        def tree(argv, ready):
            return stack.enter_context(h.Workload(argv, ready_count=ready))

        s = ah.copy_selhold(tmp, "selhold")
        exe = ah.copy_selhold(tmp, f"ptx{UNIQ}")
        comm = f"ptc{UNIQ}"
        # Decoys: the same program, in no block.
        tree([s, "1"], 2)
        tree([s, "--comm", f"ptd{UNIQ}", "1"], 2)
        stack.enter_context(ah.sh_tree(f"{s} 1 <&3 & wait", f"pt-csel-{UNIQ}-other", 2))
        # Match: two sh trees whose $0 matches (sh, selhold, children).
        stack.enter_context(ah.sh_tree(f"{s} 1 <&3 & wait", f"pt-csel-{UNIQ}-root-a", 2))
        stack.enter_context(ah.sh_tree(f"{s} 2 <&3 & wait", f"pt-csel-{UNIQ}-root-b", 3))
        # Exe: by executable base name, also when comm was renamed; by comm.
        tree([exe, "1"], 2)
        renamed = tree([exe, "--comm", f"ptr{UNIQ}", "1"], 2)
        by_comm = tree([s, "--comm", comm, "2"], 3)
        # User: a tree running as the new user.
        user_tree = tree(ah.as_user(pw, [s, "2"]), 3)
        # Cgroup: each shell moves itself in, then becomes selhold.
        in_top = tree(["sh", "-c", f"echo $$ > {top}/cgroup.procs && exec {s} 2"], 3)
        in_sub = tree(["sh", "-c", f"echo $$ > {sub}/cgroup.procs && exec {s} 1"], 2)
        # Pid and PidFile.
        by_pid = tree([s, "2"], 3)
        by_pidfile = tree([s, "1"], 2)
        pidfile = os.path.join(tmp, "service.pid")
        with open(pidfile, "w") as f:
            f.write(f"{by_pidfile.pid}\n")

        cls.truth = {  # the setup the expectations rest on
            "renamed comm": (read(f"/proc/{renamed.pid}/comm"), f"ptr{UNIQ}"),
            "comm": (read(f"/proc/{by_comm.pid}/comm"), comm),
            "user's euid": (read(f"/proc/{user_tree.pid}/status").split("Uid:")[1].split()[1], str(pw.pw_uid)),
            "top cgroup": (ah.cgroup_v2_path(in_top.pid), rel),
            "sub cgroup": (ah.cgroup_v2_path(in_sub.pid), rel + "/sub"),
        }
        # collectd's command line (-C tmp/collectd.conf) matches this regex too.
        cls.regex = f"pt-csel-{UNIQ}-root|{os.path.basename(tmp)}/collectd\\.conf"
        cls.expected = {
            "match": 3 + 4,
            "nothing": 0,
            "exe": 2 + 2,
            "comm": 3,
            "user": 3,
            "uid": 3,
            "cgroup": 3 + 2,
            "cgroup-dir": 3 + 2,
            "subcgroup": 2,
            "subcgroup-dir": 2,
            "pid": 3,
            "pidfile": 2,
        }
        blocks = [
            ch.process_block("match", f'Match "{cls.regex}"'),
            ch.process_block("nothing", f'Match "^pt-csel-{UNIQ}-nothing$"'),
            ch.process_block("exe", f'Exe "ptx{UNIQ}"'),
            ch.process_block("comm", f'Exe "{comm}"'),
            ch.process_block("user", f'User "{pw.pw_name}"'),
            ch.process_block("uid", f'User "{pw.pw_uid}"'),
            ch.process_block("cgroup", f'Cgroup "{rel}"'),
            ch.process_block("cgroup-dir", f'Cgroup "{top}"'),
            ch.process_block("subcgroup", f'Cgroup "{rel}/sub"'),
            ch.process_block("subcgroup-dir", f'Cgroup "{sub}"'),
            ch.process_block("pid", f"Pid {by_pid.pid}"),
            ch.process_block("pidfile", f'PidFile "{pidfile}"'),
        ]
        cls.collectd = stack.enter_context(ch.Collectd(tmp, "  DiscoveryInterval 0.2\n" + "".join(blocks)))
        cls.rows = {}

    def counts(self, block):
        """proc_processes of every csv row of block (type count), once there are ROWS."""
        if block not in self.rows:
            rows = self.collectd.wait_csv(block, "proc_processes", count=ROWS)
            files = glob.glob(self.collectd.csv_path_glob(block, "proc_processes"))
            self.assertTrue(files and all(os.path.basename(f).startswith("count-") for f in files), files)
            self.rows[block] = [value for _, value in rows]
        return self.rows[block]

    def assert_counts(self, *blocks):
        for block in blocks:
            with self.subTest(block=block):
                counts = self.counts(block)
                self.assertEqual(counts, [self.expected[block]] * len(counts),
                                 f"<Process {block!r}>\ncollectd log:\n{self.collectd.log()[-2000:]}")

    def test_setup(self):
        for what, (actual, expected) in self.truth.items():
            with self.subTest(what):
                self.assertEqual(actual, expected)
        self.assertTrue(self.collectd.running(), self.collectd.log())

    def test_match_counts_neither_decoys_nor_collectd(self):
        with open(f"/proc/{self.collectd.proc.pid}/cmdline") as f:
            cmdline = f.read().rstrip("\0").replace("\0", " ")
        self.assertRegex(cmdline, re.compile(self.regex))
        self.assert_counts("match")

    def test_nothing_matched_reports_zero(self):
        self.assert_counts("nothing")

    def test_exe_by_executable_and_by_comm(self):
        self.assert_counts("exe", "comm")

    def test_user_by_name_and_uid(self):
        self.assert_counts("user", "uid")

    def test_cgroup_path_and_directory(self):
        self.assert_counts("cgroup", "cgroup-dir", "subcgroup", "subcgroup-dir")

    def test_pid_and_pidfile(self):
        self.assert_counts("pid", "pidfile")


def read(path):
    with open(path) as f:
        return f.read().strip()


if __name__ == "__main__":
    unittest.main(verbosity=2)
