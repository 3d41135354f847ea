"""The kernel's taskstats exit records, received by the test itself.

An exited thread's CPU in its record is the scheduler tick's samples,
which on a loaded host differ from its run time by tens of percent
(docs/METRICS.md, "Breakdown by thread name"): a test of what proctree
makes of records compares with the records, as the kernel sent them to
this listener too. Needs CAP_NET_ADMIN, like proctree's own listener.
Python standard library; struct taskstats offsets from
<linux/taskstats.h>, version 13 (Linux 6.0, the first with ac_tgid,
which proctree needs as well).
"""

import os
import socket
import struct
import threading

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
TASKSTATS_CMD_GET = 1
TASKSTATS_CMD_ATTR_REGISTER_CPUMASK = 3
TASKSTATS_TYPE_STATS = 3
TASKSTATS_TYPE_AGGR_PID = 4
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
# offsetof(struct taskstats, ...), version 13
AC_COMM, AC_PID, AC_UTIME, AC_TGID = 80, 128, 152, 368  # ac_stime follows ac_utime
STATS_SIZE = AC_TGID + 4


def _attr(kind, payload):
    body = struct.pack("HH", 4 + len(payload), kind) + payload
    return body + b"\0" * (-len(body) % 4)


def _attrs(data):
    """(type, payload) of each netlink attribute in data."""
    while len(data) >= 4:
        length, kind = struct.unpack_from("HH", data)
        if length < 4:
            return
        yield kind & 0x3fff, data[4:length]
        data = data[(length + 3) & ~3:]


def _messages(data):
    """(type, payload) of each netlink message in a datagram."""
    while len(data) >= 16:
        length, kind = struct.unpack_from("IH", data)
        if length < 16:
            return
        yield kind, data[16:length]
        data = data[(length + 3) & ~3:]


class ExitRecords:
    """Collects exit records of the threads of one process (by tgid) while
    open: records() gives {tid: (comm, cpu seconds)}."""

    def __init__(self, tgid):
        self.tgid = tgid
        self._records = {}
        self._lock = threading.Lock()
        self.lost = False

    def _request(self, family, cmd, attrs):
        payload = struct.pack("BBH", cmd, 1, 0) + attrs
        self.sock.send(struct.pack("IHHII", 16 + len(payload), family, NLM_F_REQUEST, 1, 0) + payload)

    def _answer(self):
        for kind, payload in _messages(self.sock.recv(65536)):
            if kind == NLMSG_ERROR:
                (errno,) = struct.unpack_from("i", payload)
                if errno:
                    raise OSError(-errno, os.strerror(-errno))
                continue
            return payload[4:]
        return b""

    def __enter__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        # a busy host sends a record for each of its exits: room for bursts
        self.sock.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
        self.sock.bind((0, 0))
        self._request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, _attr(CTRL_ATTR_FAMILY_NAME, b"TASKSTATS\0"))
        family = next(struct.unpack("H", v[:2])[0] for k, v in _attrs(self._answer()) if k == CTRL_ATTR_FAMILY_ID)
        with open("/sys/devices/system/cpu/possible") as f:
            cpus = f.read().strip().encode()
        self._request(family, TASKSTATS_CMD_GET, _attr(TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus + b"\0"))
        self._answer()  # the acknowledgement: raises when the registration failed
        self._stop = False
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()
        return self

    def _drain(self):
        self.sock.settimeout(0.1)
        while not self._stop:
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError:  # ENOBUFS: the kernel dropped records
                self.lost = True
                continue
            for _, payload in _messages(data):
                for kind, nested in _attrs(payload[4:]):
                    if kind == TASKSTATS_TYPE_AGGR_PID:
                        for k, stats in _attrs(nested):
                            if k == TASKSTATS_TYPE_STATS and len(stats) >= STATS_SIZE:
                                self._add(stats)

    def _add(self, stats):
        (tgid,) = struct.unpack_from("I", stats, AC_TGID)
        if tgid != self.tgid:
            return
        (pid,) = struct.unpack_from("I", stats, AC_PID)
        utime, stime = struct.unpack_from("QQ", stats, AC_UTIME)
        comm = stats[AC_COMM:AC_COMM + 32].split(b"\0")[0].decode(errors="replace")
        with self._lock:
            self._records[pid] = (comm, (utime + stime) / 1e6)

    def records(self):
        with self._lock:
            return dict(self._records)

    def __exit__(self, *exc):
        self._stop = True
        self._thread.join()
        self.sock.close()
