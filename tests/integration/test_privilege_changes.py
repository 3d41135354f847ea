"""Members whose program or credentials change under a proctree that is not root.

Why: services change who they are as they start. A root process that drops to
a service user by exec (setpriv, su -c, runuser) becomes readable to an agent
of that user: its io, smaps_rollup and fd/ must be measured from then on, not
left out for life because they were denied once. The other way round, a
process that execs a setuid program becomes unreadable: what the agent could
read through descriptors opened before must not count any more (its fd/
listing, its io, the old program's memory map), and what it cannot read is
left out, never sent as 0. proctree-execd runs as nobody here, the agent's
user; the tests are root to make the other side.
"""

import os
import shutil
import subprocess
import unittest

import accounting_helpers as ah
import harness as h

# What io, smaps_rollup and fd/ feed; each is closed to another user.
GUARDED = ["proc_io_read_bytes", "proc_io_write_syscalls", "proc_pss_max", "proc_uss_max", "proc_fds"]


class PrivilegeChangeTest(unittest.TestCase):
    def setUp(self):
        self.assertEqual(os.getuid(), 0, "the test makes processes of root and of nobody")
        self.wrapper, self.program = ah.execd_as_nobody(self, "proctree-cred-")

    def start(self, wrapper, argv):
        """A shell (run by wrapper) that waits for a line on stdin, then execs argv."""
        proc = subprocess.Popen([*wrapper, "sh", "-c", 'read line; exec "$@"', "sh", *argv], stdin=subprocess.PIPE)
        self.addCleanup(h.stop_process, proc)
        return proc

    def watch(self, proc, args=()):
        execd = h.Execd([*args, "--pid", proc.pid, "--name", "cred", "--interval", "0.2s"], wrapper=self.wrapper,
                        program=self.program)
        self.addCleanup(execd.stop)
        return execd

    def lines_since(self, execd, since):
        return [p for _, points in execd.batches()[since:] for p in points if p.tags]

    def wait_comm(self, proc, comm):
        h.wait_until(lambda: open(f"/proc/{proc.pid}/comm").read().strip() == comm, h.START_TIMEOUT,
                     f"pid {proc.pid} to exec {comm}")

    def test_root_process_that_drops_to_the_agents_user(self):
        proc = self.start([], ah.AS_NOBODY + ["sleep", "600"])
        execd = self.watch(proc)
        execd.wait_batches(3)
        for line in self.lines_since(execd, 0):
            for field in GUARDED:
                self.assertNotIn(field, line.fields, f"root's sh is closed to nobody: {line.raw}")
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
        self.wait_comm(proc, "sleep")
        seen = execd.batch_count()
        # the exec event reopens its files at once; without events the
        # new name does, at its next read; either within a few batches
        execd.wait_for(lambda e: any(all(f in line.fields for f in GUARDED) for line in self.lines_since(e, seen)),
                       h.BATCH_TIMEOUT, "the dropped process's io, PSS and fds")
        for line in self.lines_since(execd, execd.batch_count() - 1):
            self.assertGreater(line.fields["proc_fds"], 0, line.raw)
            self.assertGreater(line.fields["proc_pss_max"], 0, line.raw)
            self.assertGreaterEqual(line.fields["proc_io_read_bytes"], 0, line.raw)

    def test_process_that_execs_a_setuid_program(self):
        self.check_setuid_exec()

    def test_setuid_exec_under_the_bpf_source(self):
        """The BPF program reads any task's counters, but a member's io and
        descriptors come from it only once its files gave them, again
        after each exec: what the files deny stays out with either
        source. The copy carries cap_bpf and cap_perfmon alone, raised
        only to load, so nothing else lends it a read."""
        subprocess.run(["setcap", "cap_bpf,cap_perfmon=p", self.program], check=True)
        execd = self.check_setuid_exec(["--source", "bpf"])
        self.assertTrue(any("source: bpf" in l for l in execd.stderr_lines()), execd.describe())

    def test_denied_stays_out_under_the_bpf_source(self):
        """Denials are forgotten every 30 interval ends (a process may
        change its credentials unseen) and the files tried again: with the
        BPF source too, where the snapshot would give root's io to nobody,
        what its file still denies stays out."""
        subprocess.run(["setcap", "cap_bpf,cap_perfmon=p", self.program], check=True)
        proc = self.start([], ["sleep", "600"])
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
        self.wait_comm(proc, "sleep")
        execd = self.watch(proc, ["--source", "bpf"])
        execd.wait_batches(36, timeout=60)
        self.assertTrue(any("source: bpf" in l for l in execd.stderr_lines()), execd.describe())
        lines = self.lines_since(execd, 0)
        self.assertGreaterEqual(len(lines), 36, execd.describe())
        for line in lines:
            self.assertEqual(line.fields["proc_processes"], 1, line.raw)
            for field in GUARDED:
                self.assertNotIn(field, line.fields, f"root's sleep is closed to nobody: {line.raw}")

    def check_setuid_exec(self, args=()):
        setuid_sleep = os.path.join(os.path.dirname(self.program), "sleep")
        shutil.copy(shutil.which("sleep"), setuid_sleep)
        os.chmod(setuid_sleep, 0o4755)  # root's, setuid
        proc = self.start(ah.AS_NOBODY, [setuid_sleep, "600"])
        self.wait_comm(proc, "sh")
        execd = self.watch(proc, args)
        execd.wait_for(lambda e: any(all(f in line.fields for f in GUARDED) for line in self.lines_since(e, 0)),
                       h.BATCH_TIMEOUT, "nobody's own process measured whole")
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
        self.wait_comm(proc, "sleep")
        h.wait_until(lambda: os.stat(f"/proc/{proc.pid}").st_uid == 0, h.START_TIMEOUT, "the setuid exec")
        seen = execd.batch_count()
        execd.wait_batches(seen + 4)
        # the batch that holds the exec may still count what came before it
        lines = self.lines_since(execd, seen + 1)
        self.assertGreaterEqual(len(lines), 2, execd.describe())
        for line in lines:
            self.assertEqual(line.fields["proc_processes"], 1, line.raw)
            for field in GUARDED:
                self.assertNotIn(field, line.fields, f"a setuid program is closed to nobody: {line.raw}")
        warned = [l for l in execd.stderr_lines() if "permission denied" in l]
        self.assertTrue(warned, f"the denial is said\n{execd.describe()}")
        return execd


if __name__ == "__main__":
    unittest.main(verbosity=2)
