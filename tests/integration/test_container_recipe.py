"""docs/CONTAINERS.md's recipe, run as written with a real container runtime.

Why: most agents that measure a host run in a container, usually the
official telegraf image, whose entrypoint drops root to the telegraf user.
That change of user clears every capability the container was given: the
recipe that added them with --cap-add gave no PSS, fds, io nor exit records,
and the warnings said to add what had been added. A file capability with the
effective bit made Telegraf's exec of proctree-execd fail outright in a
container given one capability fewer, and no-new-privileges cancelled file
capabilities without a word.

Each test builds the document's image (its Dockerfile on the tests'
telegraf:1.39, container_harness.py), runs it as the document does (its
docker run flags, its Compose service, its DaemonSet), Telegraf as the
telegraf user inside following a service on the host through its pid file,
and compares what reaches Telegraf's output with the host's own files over
the same window: PSS with smaps_rollup (the tree is idle: within 2%), fds
with fd/ (exactly), I/O with io (the bytes moved, and no more than rchar and
wchar grew), the failed and killed children with what the service made them
do (exactly: the kernel's exit records).
"""

import unittest

import container_harness as ch
import harness as h

IO_BYTES = 3_000_000
PSS_TOLERANCE = 0.02
EXIT_FIELDS = ("proc_processes_failed", "proc_processes_killed", "proc_exited_rss_peak_max")


def svc_lines(telegraf):
    return [p for _, points in telegraf.batches() for p in points if p.tags.get("target") == "svc"]


def last_svc(telegraf):
    lines = svc_lines(telegraf)
    return lines[-1] if lines else None


class Recipe(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        ch.runtime_or_skip()
        cls.image = ch.recipe_image()

    def setUp(self):
        self.service = ch.Service()
        self.addCleanup(self.service.stop)

    def telegraf(self, flags, image):
        t = ch.TelegrafContainer(flags, image, ["--pidfile", self.service.in_container(), "--name", "svc"])
        self.addCleanup(t.stop)
        return t

    def attached(self, telegraf, *fields):
        """Wait for a line of the whole service with fields; returns it."""
        def ready():
            line = last_svc(telegraf)
            return line is not None and line.fields.get("proc_processes") == 2 and all(
                f in line.fields for f in fields) and line
        return h.wait_until(ready, h.START_TIMEOUT, "the service in Telegraf's output\n" + telegraf.describe(),
                            interval=0.2)

    def full_set(self, flags, image):
        """The service's every metric arrives, each equal to the host's."""
        telegraf = self.telegraf(flags, image)
        members = self.service.members()
        wchar0 = ch.io_field(self.service.root, "wchar")
        rchar0 = ch.io_field(self.service.root, "rchar")
        self.attached(telegraf, "proc_pss_max", "proc_fds", "proc_io_write_bytes", "proc_processes_failed")
        self.service.command(f"io {IO_BYTES}", "done io")
        self.service.command("fates", "done fates")
        # a whole interval after both, then the kernel's figures of now;
        # the PSS read before and after the last line's sample (three
        # intervals on: more than Telegraf's flush lags behind), as the
        # shares of pages others map too change when they start and stop
        telegraf.wait_batches(len(telegraf.batches()) + 2)
        pss_before = ch.pss_bytes(members)
        telegraf.wait_batches(len(telegraf.batches()) + 3)
        lines = svc_lines(telegraf)
        pss_after, fds = ch.pss_bytes(members), ch.fd_count(members)
        wrote = ch.io_field(self.service.root, "wchar") - wchar0
        read = ch.io_field(self.service.root, "rchar") - rchar0
        msg = telegraf.describe()
        last = lines[-1]
        self.assertEqual(last.fields["proc_processes"], 2, msg)
        pss = last.fields["proc_pss_max"]
        self.assertGreaterEqual(pss, (1 - PSS_TOLERANCE) * min(pss_before, pss_after), msg)
        self.assertLessEqual(pss, (1 + PSS_TOLERANCE) * max(pss_before, pss_after), msg)
        self.assertEqual(last.fields["proc_fds"], fds, msg)
        written = sum(p.fields["proc_io_write_bytes"] for p in lines)
        self.assertGreaterEqual(written, IO_BYTES, msg)
        self.assertLessEqual(written, wrote, msg)
        got = sum(p.fields["proc_io_read_bytes"] for p in lines)
        self.assertGreaterEqual(got, IO_BYTES, msg)
        self.assertLessEqual(got, read, msg)
        self.assertEqual(sum(p.fields["proc_processes_failed"] for p in lines), 1, msg)
        self.assertEqual(sum(p.fields["proc_processes_killed"] for p in lines), 1, msg)
        self.assertEqual(h.load_free(telegraf.execd_lines("W!")), [], msg)
        self.assertEqual(telegraf.execd_lines("E!"), [], msg)
        self.assertTrue([line for line in telegraf.execd_lines("I!") if "using the kernel's exit records" in line],
                        msg)
        return telegraf

    def test_docker_run_as_written(self):
        self.full_set(*ch.docker_run())

    def test_compose_as_written(self):
        self.full_set(*ch.compose_run())

    def test_daemonset_as_written(self):
        self.full_set(*ch.daemonset_run())

    def test_allow_privilege_escalation_false_as_root(self):
        """The document's variant for no-new-privileges: root without the
        entrypoint's change of user keeps the container's capabilities."""
        self.full_set(*ch.daemonset_run(ch.daemonset_variant()))

    def partial(self, flags, image, missing_why, *missing):
        """Telegraf and proctree-execd run; one W! line names each missing
        capability and why; what they read is left out, the rest is right."""
        telegraf = self.telegraf(flags, image)
        line = self.attached(telegraf, "proc_rss_max")
        telegraf.wait_batches(len(telegraf.batches()) + 2)
        msg = telegraf.describe()
        warnings = h.load_free(telegraf.execd_lines("W!"))
        self.assertEqual(len(warnings), 1, msg)
        for cap in missing:
            self.assertIn(cap, warnings[0], msg)
        self.assertIn(missing_why, warnings[0], msg)
        self.assertIn("capabilities not obtained", warnings[0], msg)
        self.assertEqual(telegraf.execd_lines("E!"), [], msg)
        self.assertNotIn("operation not permitted", telegraf.log_text(), msg)
        resident = h.tree_resident_bytes(self.service.members())
        line = last_svc(telegraf)
        self.assertLessEqual(abs(line.fields["proc_rss_max"] - resident), 0.02 * resident, msg)
        self.assertEqual(line.fields["proc_processes"], 2, msg)
        return line, msg

    def test_one_capability_fewer_runs_and_names_it(self):
        flags, image = ch.docker_run()
        line, msg = self.partial(ch.without(flags, ("--cap-add", "NET_ADMIN")), image, "not in the bounding set", "CAP_NET_ADMIN")
        # ptrace and the permission check still open the files
        self.assertEqual(line.fields["proc_fds"], ch.fd_count(self.service.members()), msg)
        self.assertIn("proc_pss_max", line.fields, msg)
        for field in EXIT_FIELDS:
            self.assertNotIn(field, line.fields, msg)

    def test_no_new_privileges_is_named(self):
        flags, image = ch.docker_run()
        line, msg = self.partial(flags + ["--security-opt", "no-new-privileges"], image,
                                 "no-new-privileges is set", "CAP_SYS_PTRACE", "CAP_DAC_READ_SEARCH", "CAP_NET_ADMIN")
        for field in ("proc_pss_max", "proc_fds", "proc_io_read_bytes") + EXIT_FIELDS:
            self.assertNotIn(field, line.fields, msg)


if __name__ == "__main__":
    unittest.main(verbosity=2)
