"""Where the BPF task iterator cannot serve, procfs does, said in one line.

Why: --source auto (the default) takes the BPF source where it loads and
its pids are the proc root's. Everywhere else the same numbers must come
from procfs, with one start line that names the reason, and the run must
go on (exit 0): an agent that cannot start one input stops altogether.
Each case runs on the same tree as a run as root, which takes BPF, and
must report the same tree (processes, threads, memory) with no read served
by BPF (collector_bpf_reads=0). --source bpf where it cannot serve is a
one-line error (exit 2) instead.

The one place where the lent capabilities serve it: nobody with the =p
binary of the documented recipe (cap_bpf and cap_perfmon too) loads the
program, and has given both up for good once it is loaded.

The cases: nobody with a =p binary that carries no cap_bpf; a missing
and a malformed BTF file (PROCTREE_TEST_BTF); a container without the
capabilities (root whose bounding set lacks cap_bpf, cap_perfmon and
cap_sys_admin); a container's own pid namespace; a chosen proc root.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import harness as h

NOBODY = 65534
SETCAP = "cap_sys_ptrace,cap_dac_read_search,cap_net_admin=p"
SETCAP_BPF = "cap_sys_ptrace,cap_dac_read_search,cap_net_admin,cap_bpf,cap_perfmon=p"
CAP_PERFMON, CAP_BPF = 38, 39
ARGS = ["--once", "--interval", "0.5s", "--no-global"]
# what does not move on an idle tree, so that two runs may be compared
STILL = ["proc_processes", "proc_threads", "proc_vm_size_max", "proc_rss_max"]


class SourceFallbacks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        assert os.getuid() == 0, "the BPF source loads as root"
        cls.tree = h.memtree(4, 8)
        cls.root = str(cls.tree.pid)

    @classmethod
    def tearDownClass(cls):
        cls.tree.stop()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-sources-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        os.chmod(self.tmp, 0o755)

    def run_execd(self, argv, env=None):
        result = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=h.BATCH_TIMEOUT, env=env)
        h.assert_no_sanitizer_report(result.stderr.splitlines(), "proctree-execd")
        return result

    def line(self, result):
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = [l for l in result.stdout.splitlines() if l.startswith("proctree,")]
        self.assertEqual(len(lines), 1, result.stdout)
        point = h.parse_line(lines[0])
        h.group_batches([point])  # a run of one batch: its interval, from the start, judges it
        return point

    def source_lines(self, result):
        return [l for l in result.stderr.splitlines() if "source: " in l]

    def bpf_run(self):
        result = self.run_execd([h.execd_path(), *ARGS, "--pid", self.root])
        self.assertEqual(self.source_lines(result)[0].split("source: ")[1][:4], "bpf,", result.stderr)
        point = self.line(result)
        self.assertGreater(point.fields["collector_bpf_reads"], 0)
        return point

    def assert_fallback(self, result, reason):
        """One line names procfs and the reason; the numbers are procfs's,
        the tree's as the BPF run sees it."""
        said = self.source_lines(result)
        self.assertEqual(len(said), 1, result.stderr)
        self.assertIn("source: procfs, the BPF task iterator cannot serve: ", said[0])
        self.assertIn(reason, said[0])
        point = self.line(result)
        self.assertEqual(point.fields["collector_bpf_reads"], 0)
        reference = self.bpf_run()
        for name in STILL:
            self.assertEqual(point.fields[name], reference.fields[name], name)
        return point

    def test_nobody_with_the_p_binary(self):
        program = shutil.copy(h.execd_path(), self.tmp)
        os.chmod(program, 0o755)
        subprocess.run(["setcap", SETCAP, program], check=True)
        result = self.run_execd(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", program,
                                 *ARGS, "--pid", self.root])
        self.assert_fallback(result, "Operation not permitted (it needs CAP_BPF and CAP_PERFMON effective, or root)")

    def test_nobody_with_the_recipes_binary(self):
        program = shutil.copy(h.execd_path(), self.tmp)
        os.chmod(program, 0o755)
        subprocess.run(["setcap", SETCAP_BPF, program], check=True)
        execd = h.Execd(["--interval", "0.5s", "--no-global", "--pid", self.root, "--name", "t"],
                        wrapper=["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"],
                        program=program)
        self.addCleanup(execd.stop)
        batches = execd.wait_batches(1)
        said = [l for l in execd.stderr_lines() if "source: " in l]
        self.assertEqual(len(said), 1, execd.describe())
        self.assertIn("source: bpf,", said[0])
        line = h.target_line(batches[-1][1], "t")
        self.assertGreater(line.fields["collector_bpf_reads"], 0, line.raw)
        with open(f"/proc/{execd.pid}/status") as f:
            sets = {k: int(v, 16) for k, v in (l.split(":\t") for l in f.read().splitlines()
                                                if l.startswith(("CapPrm", "CapEff")))}
        for name, value in sets.items():
            for cap in (CAP_BPF, CAP_PERFMON):
                self.assertFalse(value >> cap & 1, f"{name} still holds capability {cap}: {value:x}")
        # the lent three stay: they read the members' files
        self.assertTrue(sets["CapPrm"] >> 19 & 1, "CAP_SYS_PTRACE given up too")

    def test_btf_missing(self):
        missing = os.path.join(self.tmp, "vmlinux")
        env = dict(os.environ, PROCTREE_TEST_BTF=missing)
        result = self.run_execd([h.execd_path(), *ARGS, "--pid", self.root], env=env)
        self.assert_fallback(result, f'its type information "{missing}": No such file or directory')

    def test_btf_malformed(self):
        bad = os.path.join(self.tmp, "vmlinux")
        with open(bad, "wb") as f:
            f.write(b"\x9f\xeb\x01\x00" + b"\xff" * 60)  # BTF's magic, then nothing of sense
        env = dict(os.environ, PROCTREE_TEST_BTF=bad)
        result = self.run_execd([h.execd_path(), *ARGS, "--pid", self.root], env=env)
        self.assert_fallback(result, "the kernel refused to load it: ")

    def test_container_without_the_capabilities(self):
        result = self.run_execd(["capsh", "--drop=cap_bpf,cap_perfmon,cap_sys_admin", "--", "-c",
                                 'exec "$0" "$@"', h.execd_path(), *ARGS, "--pid", self.root])
        self.assert_fallback(result, "Operation not permitted")

    def test_container_pid_namespace(self):
        # its own pid namespace and /proc: the tree is one it starts there
        result = self.run_execd(["unshare", "--pid", "--fork", "--mount-proc", "sh", "-c",
                                 'sleep 30 & exec "$0" "$@" --pid "$!"', h.execd_path(), *ARGS])
        said = self.source_lines(result)
        self.assertEqual(len(said), 1, result.stderr)
        self.assertIn("not in the host's pid and user namespaces", said[0])
        point = self.line(result)
        self.assertEqual(point.fields["collector_bpf_reads"], 0)
        self.assertEqual(point.fields["proc_processes"], 1)

    def test_chosen_proc_root(self):
        result = self.run_execd([h.execd_path(), *ARGS, "--proc-root", "/proc", "--pid", self.root])
        self.assert_fallback(result, "the proc root was chosen")

    def test_forced_bpf_where_it_cannot_serve(self):
        result = self.run_execd([h.execd_path(), *ARGS, "--source", "bpf", "--proc-root", "/proc",
                                 "--pid", self.root])
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stdout, "")
        errors = [l for l in result.stderr.splitlines() if l.startswith("E!")]
        self.assertEqual(len(errors), 1, result.stderr)
        self.assertIn("--source bpf: the BPF task iterator cannot serve: the proc root was chosen", errors[0])

    def test_procfs_as_asked(self):
        result = self.run_execd([h.execd_path(), *ARGS, "--source", "procfs", "--pid", self.root])
        said = self.source_lines(result)
        self.assertEqual(said and said[0].split("source: ")[1], "procfs, as asked (--source procfs)")
        point = self.line(result)
        self.assertEqual(point.fields["collector_bpf_reads"], 0)
        reference = self.bpf_run()
        for name in STILL:
            self.assertEqual(point.fields[name], reference.fields[name], name)


if __name__ == "__main__":
    unittest.main()
