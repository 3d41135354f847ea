"""--unit on cgroup trees no systemd made: a sys root (--sys-root) whose
fs/cgroup is a directory tree of the test's, with cgroup.procs files naming
real processes of the test (sleeps).

Why: what proctree says of the tree must not depend on timing or on a
systemd, and two cases cannot be had from a booted one cheaply: a glob over
more units than proctree takes (thousands of cgroups), and a host where no
systemd runs at all (no init.scope, no system.slice at the root). Asserted:
the glob's one warning naming the glob, the count and the limit, and its
processes all counted; without systemd one warning at the start that says
so, and a no-live-process line that does not call the unit inactive or
unknown (nothing there could know). This host itself runs no systemd: where
that holds, --unit with the default sys root says it too.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import harness as h

INTERVAL = ["--interval", "0.5s", "--discovery-interval", "0.2s"]
LIMIT = 4096  # PT_SDUNIT_MATCHES_MAX


def warnings(execd, text):
    return [l for l in execd.stderr_lines() if l.startswith("W! ") and text in l]


def target_counts(execd, target):
    return [p.fields["proc_processes"] for _, points in execd.batches() for p in points
            if p.tags.get("target") == target and "cgroup" not in p.tags]


class FakeTree(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="proctree-units-tree-")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.cg = os.path.join(self.root, "fs", "cgroup")
        self.put("", "")
        with open(os.path.join(self.cg, "cgroup.controllers"), "w") as f:
            f.write("cpu memory pids\n")

    def put(self, rel, pids):
        d = os.path.join(self.cg, rel)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "cgroup.procs"), "w") as f:
            f.write("".join(f"{p}\n" for p in pids))

    def sleeps(self, n):
        procs = [subprocess.Popen(["sleep", "3600"]) for _ in range(n)]
        for p in procs:
            self.addCleanup(p.wait)
            self.addCleanup(p.kill)
        return [p.pid for p in procs]

    def execd(self, *args):
        execd = h.Execd([*INTERVAL, "--sys-root", self.root, *args])
        self.addCleanup(execd.stop)
        return execd

    def test_glob_beyond_the_limit_is_said(self):
        # 4,100 units of one glob, each listing the same 3 sleeps: all 3
        # counted whatever units are taken; one line says 4100 > 4096.
        self.put("init.scope", [])
        pids = self.sleeps(3)
        for i in range(LIMIT + 4):
            self.put(f"system.slice/many-{i}.service", pids)
        # each discovery reads 4,100 cgroup.procs: once a second, no
        # cgroup_* (what is shown is the walk's limit, not the cgroups' files)
        execd = self.execd("--interval", "1s", "--discovery-interval", "1s", "--no-cgroup-metrics",
                           "--unit", "many-*.service")
        execd.wait_for(lambda e: 3 in target_counts(e, "many-*.service"), 4 * h.START_TIMEOUT, "3 processes counted")
        execd.wait_batches(len(execd.batches()) + 2, timeout=4 * h.START_TIMEOUT)
        said = warnings(execd, '"many-*.service"')
        limit = [l for l in said if "matches" in l]
        self.assertEqual(len(limit), 1, execd.describe())
        for text in (f"matches {LIMIT + 4} units", f"the {LIMIT} one glob takes", f"first {LIMIT}"):
            self.assertIn(text, limit[0])
        self.assertEqual(said, limit, "no other warning about the glob\n" + execd.describe())

    def test_no_systemd_is_said_once(self):
        # No init.scope nor system.slice: a tree no systemd manages.
        self.put("other", self.sleeps(1))
        execd = self.execd("--unit", "gone.service", "--unit", "gone-*")
        execd.wait_batches(4)
        for name in ("gone.service", "gone-*.service"):
            said = warnings(execd, f'unit "{name}"')
            self.assertEqual(len([l for l in said if "no systemd manages the cgroups read here" in l
                                  and "neither init.scope nor system.slice" in l and self.cg in l]), 1,
                             execd.describe())
            empty = [l for l in execd.stderr_lines() if "no live process" in l and f'"{name}"' in l]
            self.assertEqual(len(empty), 1, execd.describe())
            self.assertIn("no systemd manages the cgroups read here", empty[0])
            for word in ("inactive", "unknown"):
                self.assertNotIn(word, empty[0])
        self.assertEqual(set(target_counts(execd, "gone.service")), {0})

    def test_with_systemd_nothing_is_said(self):
        # init.scope at the root: a systemd's tree; the unit is unknown.
        self.put("init.scope", [])
        self.put("system.slice", [])
        execd = self.execd("--unit", "gone.service")
        execd.wait_batches(3)
        self.assertEqual([l for l in execd.stderr_lines() if "no systemd" in l], [], execd.describe())
        empty = [l for l in execd.stderr_lines() if "no live process" in l]
        self.assertEqual(len(empty), 1, execd.describe())
        self.assertIn('unit "gone.service" is unknown', empty[0])

    def cgroup_fds(self, execd):
        """The descriptors execd holds open on the tree's cgroup files."""
        fd_dir = f"/proc/{execd.pid}/fd"
        links = [os.readlink(os.path.join(fd_dir, fd)) for fd in os.listdir(fd_dir)]
        return sorted(l for l in links if l.startswith(self.cg + "/") and not l.endswith("cgroup.procs"))

    def test_glob_lines_share_the_units_descriptors(self):
        # A glob's --by cgroup lines are its units: each unit's files kept
        # open once (the target's), not once more for its line, and each
        # line still has its unit's numbers.
        self.put("init.scope", [])
        for name, pid in zip(("app-a.service", "app-b.service"), self.sleeps(2)):
            self.put(f"system.slice/{name}", [pid])
            d = os.path.join(self.cg, "system.slice", name)
            for file, text in (("cpu.stat", "usage_usec 1\nuser_usec 1\nsystem_usec 0\n"), ("pids.current", "1\n"),
                               ("memory.current", "4096\n")):
                with open(os.path.join(d, file), "w") as f:
                    f.write(text)
        held = {}
        for by in ((), ("--by", "cgroup")):
            execd = self.execd("--unit", "app-*", *by)
            execd.wait_batches(3)
            lines = [p for p in execd.batches()[-1][1] if "cgroup" in p.tags]
            if by:
                self.assertEqual(sorted(p.fields.get("cgroup_pids") for p in lines), [1, 1], execd.describe())
            held[by] = self.cgroup_fds(execd)
            execd.stop()
        self.assertEqual(len(held[()]), 2 * 3, held)  # three files of each unit
        self.assertEqual(held[("--by", "cgroup")], held[()])

    def test_this_host(self):
        # This build host runs no systemd (its init is another program):
        # checked from its own cgroup mounts, then said by proctree.
        roots = [d for d in (h.cgroup_mounts().get("v2"), "/sys/fs/cgroup/systemd") if d and os.path.isdir(d)]
        if not roots or any(os.path.isdir(os.path.join(d, s)) for d in roots for s in ("init.scope", "system.slice")):
            self.skipTest("this host's cgroups are a systemd's")
        execd = h.Execd([*INTERVAL, "--unit", "pt-nosuch.service"])
        self.addCleanup(execd.stop)
        execd.wait_batches(2)
        self.assertEqual(len(warnings(execd, "no systemd manages the cgroups read here")), 2, execd.describe())


if __name__ == "__main__":
    unittest.main(verbosity=2)
