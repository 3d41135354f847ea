"""The packages: build them, check them as installed, keep the man pages in step.

Why: users install proctree from the .deb/.rpm files, not from the build
tree. This builds the packages from the current source with
packaging/build-packages (which fails on a lintian error or on a man page
that misses an option), then packaging/check-install runs the packaged
proctree-execd on a live process and the real collectd (`collectd -T`) on
the packaged plugin. A separate, fast test runs packaging/check-manpages
against the proctree-execd meson built.

build-packages needs root the first time (it installs debhelper, lintian
and rpm with apt-get when they are missing), as CI runs. Python 3 stdlib.
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
PACKAGING = os.path.join(SOURCE_ROOT, "packaging")


def run(args, timeout):
    res = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    sys.stdout.write(res.stdout)
    sys.stderr.write(res.stderr)
    return res


class PackagingTest(unittest.TestCase):
    def test_manpages_in_step(self):
        execd = os.environ.get("PROCTREE_EXECD") or os.path.join(SOURCE_ROOT, "build", "execd-bin", "proctree-execd")
        res = run([os.path.join(PACKAGING, "check-manpages"), "--execd", execd], timeout=60)
        self.assertEqual(res.returncode, 0, "man pages out of step with --help / the collectd options")

    def test_build_and_install(self):
        with tempfile.TemporaryDirectory(prefix="proctree-packages.") as out:
            res = run([os.path.join(PACKAGING, "build-packages"), out], timeout=1200)
            self.assertEqual(res.returncode, 0, "packaging/build-packages failed")
            debs = sorted(f for f in os.listdir(out) if f.endswith(".deb"))
            rpms = sorted(f for f in os.listdir(out) if f.endswith(".rpm"))
            self.assertTrue(any(f.startswith("proctree-execd_") for f in debs), debs)
            self.assertTrue(any(f.startswith("collectd-proctree_") for f in debs), debs)
            self.assertEqual(len(rpms), 1, rpms)
            version = os.environ.get("PROCTREE_VERSION")
            if version:  # meson passes its project version
                self.assertIn(f"proctree-execd_{version}_", " ".join(debs))
                self.assertTrue(rpms[0].startswith(f"proctree-{version}-"), rpms)
            # the man pages name the metric table where the package puts it
            for pkg, page in (("proctree-execd", "proctree-execd.1"), ("collectd-proctree", "collectd-proctree.5")):
                deb = next(f for f in debs if f.startswith(pkg + "_"))
                listing = run(["dpkg-deb", "-c", os.path.join(out, deb)], timeout=60).stdout
                installed = f"/usr/share/doc/{pkg}/docs/METRICS.md.gz"
                self.assertIn("." + installed, listing, deb)
                with open(os.path.join(PACKAGING, "man", page), encoding="utf-8") as f:
                    self.assertIn(installed, f.read().replace("\\-", "-"), page)
            with open(os.path.join(out, "lintian.txt"), encoding="utf-8") as f:
                lintian = f.read()
            self.assertNotRegex(lintian, r"(?m)^E: ", lintian)

            res = run([os.path.join(PACKAGING, "check-install"), out], timeout=300)
            self.assertEqual(res.returncode, 0, "packaging/check-install failed")
            self.assertIn("0 failed: PASS", res.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
