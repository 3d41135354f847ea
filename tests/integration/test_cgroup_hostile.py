"""cgroup targets against a hostile user (issue 24): what proctree-execd
does with a --cgroup that is no cgroup, a cgroup.procs that is a FIFO, a
symbolic link, a path longer than proctree keeps, a tree deeper than it
scans, and --by cgroup over more sub-cgroups than it may keep descriptors
for. Each case ends in numbers that are right or one line that says what
is left out, never a hang or a silent gap.

Each test makes its cgroups (cgroup_helpers: the same relative path in v2
and v1 memory on this hybrid host) and removes them at the end.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import accounting_helpers as ah
import cgroup_helpers as cgh
import harness as h

UNIQ = f"pt-cgh-{os.getpid()}"
TARGET = "cg"


def warnings(execd, needle):
    return [l for l in execd.stderr_lines() if needle in l]


class CgroupHostile(unittest.TestCase):
    def cgroup(self, controllers=("memory",)):
        return cgh.cgroup_for(self, UNIQ, controllers)

    def execd(self, args, **kw):
        execd = h.Execd(["--interval", "0.5s", *args, "--name", TARGET], **kw)
        self.addCleanup(execd.stop)
        return execd

    def tmpdir(self):
        d = tempfile.mkdtemp(prefix="pt-cgh-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    # ------------------------------------------------ a directory that is no cgroup

    def test_fake_cgroup_directory_is_refused(self):
        """A directory on tmpfs whose cgroup.procs names pid 1 would be the
        whole host: refused at the start, in one line naming it, directly
        and through a symbolic link."""
        d = self.tmpdir()
        fake = os.path.join(d, "fake")
        os.mkdir(fake)
        with open(os.path.join(fake, "cgroup.procs"), "w") as f:
            f.write("1\n")
        link = os.path.join(d, "link")
        os.symlink(fake, link)
        for given in (fake, link):
            run = subprocess.run([h.execd_path(), "--cgroup", given, "--name", TARGET],
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                 timeout=h.START_TIMEOUT)
            self.assertEqual(run.returncode, 2, run)
            lines = run.stderr.splitlines()
            said = [l for l in lines if "no cgroup filesystem" in l]
            self.assertEqual(len(said), 1, lines)
            self.assertIn(given, said[0])
            self.assertTrue(said[0].startswith("E! "), said)
            self.assertEqual(run.stdout, "")

    def test_symlink_to_a_cgroup_is_resolved(self):
        """A symbolic link to a real cgroup: followed once, into the cgroup
        filesystem, and its cgroup_* metrics are there (they were dropped
        without a word: the link is below no cgroup mount)."""
        cg = self.cgroup(("memory", "cpu", "cpuacct"))
        w = cg.spawn(cgh.sleeper_argv())
        link = os.path.join(self.tmpdir(), "link")
        os.symlink(cg.dir(), link)
        execd = self.execd(["--cgroup", link])
        cgh.wait_cgroup_batch(execd, TARGET, "cgroup_cpu_user_seconds")
        points = cgh.total_points(execd, TARGET)
        self.assertIn(w.pid, cg.pids())
        self.assertEqual(points[-1].fields["proc_processes"], 1, execd.describe())

    # ------------------------------------------------ a FIFO for cgroup.procs

    def test_fifo_cgroup_procs_never_blocks(self):
        """A FIFO bound over a cgroup's cgroup.procs (in a mount namespace of
        the test's own): proctree-execd keeps printing its intervals, says
        once that the file is no regular file, and stops at SIGTERM."""
        if not shutil.which("unshare"):
            self.skipTest("no unshare")
        cg = self.cgroup(("memory",))
        fifo = os.path.join(self.tmpdir(), "fifo")
        os.mkfifo(fifo)
        procs = cg.path("cgroup.procs")
        wrapper = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                   f'mount --bind "{fifo}" "{procs}" && exec "$@"', "sh"]
        execd = self.execd(["--cgroup", cg.dir()], wrapper=wrapper)
        execd.wait_batches(3)
        said = warnings(execd, "is no regular file")
        self.assertEqual(len(said), 1, execd.describe())
        self.assertIn(procs, said[0])
        self.assertTrue(said[0].startswith("W! "), said)
        execd.stop()
        self.assertEqual(execd.proc.returncode, 0, execd.describe())

    # ------------------------------------------------ paths proctree cannot keep

    def test_path_over_the_limit_is_said(self):
        """A cgroup whose path is over 511 bytes: its processes are followed,
        cgroup_* is left out, and one line says why (it was silent)."""
        cg = self.cgroup(("memory",))
        subs = ["a" * 200, "a" * 200 + "/" + "b" * 200, "a" * 200 + "/" + "b" * 200 + "/" + "c" * 200]
        for sub in subs:
            cg.make_sub(sub)
        w = cg.spawn(cgh.sleeper_argv(), sub=subs[-1])
        deep = cg.dir(sub=subs[-1])
        self.assertGreater(len(deep), 511)
        execd = self.execd(["--cgroup", deep])
        execd.wait_for(lambda e: any(p.fields.get("proc_processes") == 1
                                     for p in cgh.total_points(e, TARGET)), h.START_TIMEOUT, "the sleeper")
        execd.wait_batches(execd.batch_count() + 1)
        said = warnings(execd, "cgroup_* metrics of the target")
        self.assertEqual(len(said), 1, execd.describe())
        self.assertIn("over 511 bytes", said[0])
        for p in cgh.total_points(execd, TARGET):
            self.assertEqual(cgh.cgroup_fields(p), {}, p.raw)
        self.assertIn(w.pid, cg.pids())

    def test_deeper_than_scanned_is_said(self):
        """Sub-cgroups 33 levels down: the process there is not found by the
        scan, and one line names the cgroup below which nothing is scanned
        and the limit (it was silent)."""
        cg = self.cgroup(("memory",))
        rel = "/".join(["d"] * 33)
        for i in range(1, 34):
            cg.make_sub("/".join(["d"] * i))
        cg.spawn(cgh.sleeper_argv(), sub=rel)
        execd = self.execd(["--cgroup", cg.dir()])
        execd.wait_batches(3)
        said = warnings(execd, "below the depth scanned")
        self.assertEqual(len(said), 1, execd.describe())
        self.assertIn(cg.dir() + "/" + "/".join(["d"] * 32), said[0])
        self.assertIn("32 levels", said[0])
        self.assertEqual(cgh.total_points(execd, TARGET)[-1].fields["proc_processes"], 0)

    # ------------------------------------------------ files that appear later

    def test_v1_directory_made_later_is_picked_up(self):
        """The v1 memory directory of the cgroup made after proctree opened
        it (on this hybrid host, where v2 has no memory controller): the
        start line says memory.current is not offered *yet*, a look again
        (every 60 discoveries, 6 s here) finds it, one line says so, and
        cgroup_memory_current_* is reported from then on (it never was)."""
        if "memory" in cgh.v2_controllers():
            self.skipTest("v2 has the memory controller: not the hybrid case")
        cg = self.cgroup(("cpu", "cpuacct"))
        w = cg.spawn(cgh.sleeper_argv())
        memory = cg.dir("memory")
        execd = self.execd(["--cgroup", cg.dir(), "--discovery-interval", "0.1s"])
        cgh.wait_cgroup_batch(execd, TARGET)
        start = warnings(execd, "offers no")
        self.assertEqual(len(start), 1, execd.describe())
        self.assertIn("memory.current", start[0])
        self.assertIn(" yet ", start[0])
        os.mkdir(memory)
        cg.made.append(memory)
        with open(os.path.join(memory, "cgroup.procs"), "w") as f:
            f.write(str(w.pid))
        execd.wait_for(lambda e: any("cgroup_memory_current_max" in p.fields for p in cgh.total_points(e, TARGET)),
                       h.START_TIMEOUT, "cgroup_memory_current_max")
        now = warnings(execd, "for its cgroup now")
        self.assertEqual(len(now), 1, execd.describe())
        self.assertIn("memory.current", now[0])

    # ------------------------------------------------ names written alike

    def test_by_cgroup_names_written_alike_stay_apart(self):
        """Sub-cgroups "tab<TAB>x" and "tab_x" are both written cgroup=tab_x:
        one line overwrote the other. Now "tab_x" keeps its name, the other
        gets a suffix, the same at every interval, and each line is its own
        process's."""
        cg = self.cgroup(("memory",))
        cg.spawn_in_subs(["tab\tx", "tab_x"])
        execd = self.execd(["--cgroup", cg.dir(), "--by", "cgroup"])
        execd.wait_batches(4)
        batches = [[p for p in points if p.tags.get("target") == TARGET and "cgroup" in p.tags]
                   for _, points in execd.batches()][2:]
        for lines in batches:
            tags = sorted(p.tags["cgroup"] for p in lines if p.tags["cgroup"].startswith("tab"))
            self.assertEqual(len(tags), 2, execd.describe())
            self.assertEqual(tags[0], "tab_x")
            self.assertRegex(tags[1], r"^tab_x~[0-9a-f]{8}$")
            self.assertEqual(tags, sorted(p.tags["cgroup"] for p in batches[0]
                                          if p.tags["cgroup"].startswith("tab")))
            for p in lines:
                if p.tags["cgroup"].startswith("tab"):
                    self.assertEqual(p.fields["proc_processes"], 1, p.raw)

    # ------------------------------------------------ descriptors

    def test_by_cgroup_within_the_descriptor_budget(self):
        """300 sub-cgroups, a process in each, --by cgroup over all of them,
        under an open-files limit of 200: each cgroup's kept descriptor is
        taken from the budget (it was kept outside it, and proctree ran out:
        every proc_* field was left out). The tree's proc_* fields stay, one
        line says the budget is reached, none says descriptors ran out, and
        every line of a cgroup carries its memory in use."""
        if not shutil.which("prlimit"):
            self.skipTest("no prlimit")
        cg = self.cgroup(("memory",))
        count = 300
        cg.spawn_in_subs([f"s{i}" for i in range(count)])
        execd = self.execd(["--cgroup", cg.dir(), "--by", "cgroup", "--by-limit", "1000"],
                           wrapper=["prlimit", "--nofile=200:200", "--"])
        execd.wait_for(lambda e: any(p.fields.get("proc_processes", 0) >= count
                                     for p in cgh.total_points(e, TARGET)), h.START_TIMEOUT, "the sleepers joined")
        execd.wait_batches(execd.batch_count() + 2)
        execd.stop()
        self.assertEqual(warnings(execd, "out of file descriptors"), [], execd.describe())
        self.assertEqual(len(warnings(execd, "descriptor budget reached")), 1, execd.describe())
        last = cgh.total_points(execd, TARGET)[-1]
        for field in ("proc_cpu_user_seconds", "proc_rss_max", "proc_processes"):
            self.assertIn(field, last.fields, last.raw)
        lines = [p for p in ah.breakdown_lines(execd, TARGET, "cgroup") if p.tags["cgroup"].startswith("s")]
        last_batch = {p.tags["cgroup"]: p for p in lines}
        self.assertEqual(len(last_batch), count, sorted(last_batch))
        for p in last_batch.values():
            self.assertIn("cgroup_memory_current_max", p.fields, p.raw)


if __name__ == "__main__":
    unittest.main()
