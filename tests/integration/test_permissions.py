"""Another user's processes: proctree without ptrace access.

Why: Telegraf runs as user `telegraf`. /proc/PID/io, smaps_rollup and fd/ of
another user's process need ptrace access, while stat, statm and the
children files do not. proctree must then report what it can (memory,
processes, CPU), leave the unreadable metrics out rather than send zeros
that look like measurements, and say so once per kind of file on stderr as
a Telegraf warning, not at every batch.
"""

import os
import shutil
import tempfile
import unittest

import harness as h

NOBODY = 65534  # Debian's nobody/nogroup
NPROCS, MIB_EACH = 3, 8
DENIED = {"io": ["proc_io_read_bytes", "proc_io_write_bytes", "proc_io_read_syscalls"],
          "smaps_rollup": ["proc_pss_max", "proc_uss_max", "proc_swap_max"],
          "fd/": ["proc_fds"]}


class PermissionsTest(unittest.TestCase):
    def setUp(self):
        # The build tree may sit below a directory nobody cannot enter.
        self.tmp = tempfile.mkdtemp(prefix="proctree-perm-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        os.chmod(self.tmp, 0o755)
        self.program = shutil.copy(h.execd_path(), self.tmp)
        os.chmod(self.program, 0o755)

    def test_other_users_tree_reports_what_it_can(self):
        self.assertEqual(os.getuid(), 0, "the tree must belong to another user than proctree")
        with h.memtree(NPROCS, MIB_EACH) as tree:
            pids = h.descendants_and_self(tree.pid)
            resident = h.tree_resident_bytes(pids)
            wrapper = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
            with h.Execd(["--pid", tree.pid, "--interval", "0.3s"], wrapper=wrapper,
                         program=self.program) as execd:
                execd.wait_batches(4)
            lines = [p for _, points in execd.batches() for p in points if p.tags]
        self.assertGreaterEqual(len(lines), 4, execd.describe())
        for line in lines:
            self.assertEqual(line.fields["proc_processes"], NPROCS, line.raw)
            self.assertLess(abs(line.fields["proc_rss_max"] - resident), 0.02 * resident, line.raw)
            self.assertIn("proc_cpu_user_seconds", line.fields, line.raw)
            for fields in DENIED.values():
                for field in fields:
                    self.assertNotIn(field, line.fields, "unreadable, so left out, not 0")
        warnings = [l for l in execd.stderr_lines() if l.startswith("W! ")]
        for kind in DENIED:
            about = [l for l in warnings if f"/{kind}" in l and "permission denied" in l]
            self.assertEqual(len(about), 1, f"one warning about {kind}:\n{execd.describe()}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
