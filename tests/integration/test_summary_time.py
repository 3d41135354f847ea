"""The launched command's summary stands beside /usr/bin/time -v.

Why: a person who runs `proctree-execd -- /usr/bin/time -v make` reads the
two side by side. time -v gives one process's maximum resident set size
(the largest of the command and the children it reaped), the blocks the
block layer moved for them (file system inputs and outputs, 512 bytes
each) and their CPU; the summary must give the same figures under the
same meanings, beside its own sums over the tree, and its JSON
(--summary json, for a CI job) the same numbers as the text.

The workload is `tar czf` of /usr/share (hundreds of MiB, tar and gzip
in a pipe), its files dropped from the page cache first (posix_fadvise
DONTNEED, which any reader may ask) so that the disk reads are real.
proctree's tree holds time itself too, whose own figures are nearly
nothing: the largest process is tar's or gzip's, its reads and CPU add
little. Each comparison says its tolerance and why.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import harness as h

TREE = "/usr/share"
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def size(text):
    number, unit = text.split()
    return float(number) * UNITS[unit]


def drop_from_page_cache(top):
    """Ask the kernel to drop every regular file's cached pages under top."""
    for root, _dirs, files in os.walk(top):
        for name in files:
            try:
                fd = os.open(os.path.join(root, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            except OSError:
                pass
            finally:
                os.close(fd)


def time_v(path):
    """The figures /usr/bin/time -v wrote to path."""
    with open(path) as f:
        text = f.read()
    got = {}
    for key, label in (("user", "User time (seconds)"), ("system", "System time (seconds)"),
                       ("maxrss_kb", "Maximum resident set size (kbytes)"), ("inputs", "File system inputs"),
                       ("outputs", "File system outputs")):
        m = re.search(r"^\s*" + re.escape(label) + r": (\S+)$", text, re.M)
        if not m:
            raise AssertionError(f"time -v gave no {label!r}:\n{text}")
        got[key] = float(m.group(1))
    return got


class SummaryBesideTime(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("the largest process's peak comes from exit records, which need root (CAP_NET_ADMIN)")
        self.tmp = tempfile.mkdtemp(prefix="proctree-summary-time-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def test_tar_of_usr_share_beside_time_v(self):
        drop_from_page_cache(TREE)
        archive, said, js = (os.path.join(self.tmp, n) for n in ("share.tgz", "time-v.txt", "summary.json"))
        proc = subprocess.run([h.execd_path(), "--format", "table", "--interval", "1s", "--summary", "json",
                               "--summary-file", js, "--command-output", said, "--",
                               "/usr/bin/time", "-v", "tar", "czf", archive, "-C", "/", TREE.lstrip("/")],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
        out = proc.stdout
        describe = f"stdout:\n{out}\nstderr:\n{proc.stderr}"
        # tar exits 1 where a file changed as it read it: the figures hold
        self.assertIn(proc.returncode, (0, 1), describe)
        truth = time_v(said)
        describe += f"\ntime -v: {truth}"
        with open(js) as f:
            summary = json.load(f)
        m = summary["metrics"]
        describe += f"\njson: {json.dumps(summary, indent=1)}"
        self.assertEqual(summary["proc_memory_unit"], "bytes", describe)
        self.assertEqual(summary["exit_status"], proc.returncode, describe)
        self.assertIsNone(summary["signal"], describe)
        # no impossible figure: nothing negative, min <= max
        for name, v in m.items():
            self.assertGreaterEqual(v, 0, f"{name}\n{describe}")
            if name.endswith("_min") and name[:-4] + "_max" in m:
                self.assertLessEqual(v, m[name[:-4] + "_max"], f"{name}\n{describe}")
        self.assertLessEqual(m["proc_cpu_percent"], 100.0 * os.cpu_count() + 1e-9, describe)

        # one process's peak, the kernel's high-water mark both ways: to a page
        self.assertAlmostEqual(m["proc_exited_rss_peak_max"], truth["maxrss_kb"] * 1024, delta=4096, msg=describe)
        # blocks of 512 bytes; time's own reads (its exec's pages) are the
        # 64 KiB that may be ours alone
        self.assertGreater(truth["inputs"], 0, describe)
        self.assertAlmostEqual(m["proc_io_storage_read_bytes"], truth["inputs"] * 512,
                               delta=0.01 * truth["inputs"] * 512 + 65536, msg=describe)
        # time's outputs are written less cancelled bytes (a truncated
        # file's dirty pages): none here, the archive is new
        self.assertAlmostEqual(m["proc_io_storage_write_bytes"] - m.get("proc_io_cancelled_write_bytes", 0),
                               truth["outputs"] * 512, delta=0.01 * truth["outputs"] * 512 + 4096, msg=describe)
        self.assertGreater(truth["outputs"] * 512, 0.1 * os.path.getsize(archive), describe)
        # CPU: each process's ticks (proctree) against the children's sum cut to
        # the hundredth (time): equal to it, give or take that cut for each of
        # tar, gzip and time itself
        for key in ("user", "system"):
            self.assertAlmostEqual(m[f"proc_cpu_{key}_seconds"], truth[key], delta=0.021, msg=f"{key}\n{describe}")

        # the text after the table's last row: the same numbers, as printed
        text = dict(re.findall(r"^  (\S.*?)\s{2,}(.*)$", out, re.M))
        largest = re.match(r"peak RSS ([\d.]+ \w+) \(time -v's maximum resident set size\)$", text["largest process"])
        self.assertIsNotNone(largest, describe)
        self.assertAlmostEqual(size(largest.group(1)), m["proc_exited_rss_peak_max"],
                               delta=0.006 * m["proc_exited_rss_peak_max"], msg=describe)
        disk = re.match(r"read ([\d.]+ \w+), written ([\d.]+ \w+) \(time -v's file system inputs and outputs",
                        text["disk"])
        self.assertIsNotNone(disk, describe)
        self.assertAlmostEqual(size(disk.group(1)), m["proc_io_storage_read_bytes"],
                               delta=0.006 * m["proc_io_storage_read_bytes"], msg=describe)
        self.assertAlmostEqual(size(disk.group(2)), m["proc_io_storage_write_bytes"],
                               delta=0.006 * m["proc_io_storage_write_bytes"], msg=describe)
        cpu = re.match(r"user ([\d.]+) s, system ([\d.]+) s", text["CPU time"])
        self.assertIsNotNone(cpu, describe)
        self.assertAlmostEqual(float(cpu.group(1)), m["proc_cpu_user_seconds"], delta=0.006, msg=describe)
        self.assertAlmostEqual(float(cpu.group(2)), m["proc_cpu_system_seconds"], delta=0.006, msg=describe)
        self.assertRegex(text["read() and write()"], r"^read [\d.]+ \w+, written [\d.]+ \w+ \(files, pipes",
                         describe)
        self.assertRegex(text["its cgroup (exact)"], r"\(page cache included\)", describe)
        self.assertRegex(text["the tree's memory"], r"^RSS [\d.]+ \w+, PSS [\d.]+ \w+, USS [\d.]+ \w+ \(summed",
                         describe)

if __name__ == "__main__":
    unittest.main(verbosity=2)
