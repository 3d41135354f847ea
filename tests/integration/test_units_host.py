"""A systemd booted for a test leaves the host as it was: the promise of
systemd_harness.py that every test of test_units.py, test_collectd_units.py,
test_launch_scope.py and test_launch_cgroup_systemd.py relies on.

Why: booted over the host's directories, systemd runs
systemd-tmpfiles-setup, which empties /tmp, and starts every installed
service. What is compared before and after the boot is the host's own: its
/tmp, its mounts where the boot makes its own, hostname and sysctls, and the
processes of its installed services. That is why this test runs alone
(tests/integration/meson.build): another test's private influxd,
carbon-cache or PostgreSQL would read as the boot's.
"""

import os
import shutil
import tempfile
import time
import unittest

import systemd_harness as sh


class HostUntouched(unittest.TestCase):
    def test_a_boot_leaves_the_host_alone(self):
        """The harness's promise: the host's /tmp, mounts, hostname, sysctls
        and services are as they were; only the test's units were loaded."""
        def sysctls():
            out = {}
            for name in ("fs/file-max", "fs/nr_open", "kernel/core_pattern", "kernel/hostname"):
                with open(f"/proc/sys/{name}") as f:
                    out[name] = f.read()
            return out

        def mounts():
            """The host's mounts, with their options, where the boot mounts
            its own (systemd_harness._SETUP: / made read-only too) and below
            /dev and /sys, which it unmounts: one that leaked from its
            namespace is there. Not a container runtime's (podman's overlay
            and shm under /var/lib/containers, another run's on a shared
            host), which come and go meanwhile."""
            points = ("/", "/run", "/dev", "/tmp", "/var/tmp", "/sys", "/proc/sys", "/proc/sysrq-trigger")
            with open("/proc/self/mountinfo") as f:
                fields = [line.split() for line in f]
            return sorted((m[4], m[5]) for m in fields
                          if m[4] in points or m[4].startswith(("/dev/", "/sys/")))

        # What a systemd-tmpfiles run would remove: a file, and a directory
        # with a file 30 days old (age-based cleaning). Other programs'
        # files in /tmp come and go meanwhile: only ours are checked.
        marker = tempfile.NamedTemporaryFile(prefix="proctree-units-marker-", dir="/tmp")
        self.addCleanup(marker.close)
        old_dir = tempfile.mkdtemp(prefix="proctree-units-old-", dir="/tmp")
        self.addCleanup(shutil.rmtree, old_dir, True)
        old_file = os.path.join(old_dir, "old")
        with open(old_file, "w") as f:
            f.write("old\n")
        month_ago = time.time() - 30 * 86400
        os.utime(old_file, (month_ago, month_ago))
        os.utime(old_dir, (month_ago, month_ago))
        before = (sysctls(), mounts(), sh.host_services_running())
        inside_name = f"proctree-inside-{os.getpid()}"
        with sh.Systemd() as sd:
            pid, cgroup = sd.pid, sd.cgroup
            sd.run(["touch", f"/tmp/{inside_name}", f"/var/tmp/{inside_name}"])
            sd.start_service("pt-untouched", ["sleep", "3600"])
            # Every loaded unit comes from the namespace's /run (or is built in).
            shown = sd.systemctl("show", "--all", "-p", "Id,LoadState,FragmentPath", "*").stdout
            for block in shown.strip().split("\n\n"):
                props = dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
                if props.get("LoadState") == "loaded" and props.get("FragmentPath"):
                    self.assertTrue(props["FragmentPath"].startswith("/run/"), props)
            # Nothing runs inside but systemd, the service and this ps.
            comms = sd.run(["ps", "-e", "-o", "comm="]).stdout.split()
            self.assertEqual(sorted(set(comms)), ["ps", "sleep", "systemd"], comms)
            self.assertTrue(os.path.exists(f"/proc/{pid}"))
        self.assertFalse(os.path.exists(f"/proc/{pid}"), "systemd still runs after stop()")
        self.assertFalse(os.path.exists(cgroup), f"{cgroup} left behind")
        self.assertTrue(os.path.exists(marker.name), "the host's /tmp was cleaned")
        self.assertTrue(os.path.exists(old_file), "an old file of the host's /tmp was cleaned")
        self.assertFalse(os.path.exists(f"/tmp/{inside_name}"))
        self.assertFalse(os.path.exists(f"/var/tmp/{inside_name}"))
        after = (sysctls(), mounts(), sh.host_services_running())
        self.assertEqual(after[0], before[0])
        self.assertEqual(after[1], before[1])
        self.assertEqual({c for _, c in after[2]} - {c for _, c in before[2]}, set(),
                         f"a host service was started: {after[2]}")


if __name__ == "__main__":
    sh.systemd_or_skip()
    unittest.main(verbosity=2)
