"""Tests of kvtier_client against a running daemon.

The daemon's socket is $KVTIER_SOCKET; without it every test is skipped.
The Go test TestPythonClient (daemon/pyclient_test.go) starts a daemon on a
temporary socket and runs these tests against it.
"""

import ctypes
import mmap
import os
import unittest

import kvtier_client

PAGE = mmap.PAGESIZE
BLOCK = 16 * PAGE
BLOCKS = 8


def _buffer():
    """An anonymous mapping of BLOCKS blocks, every page touched, and its
    address, as an engine would allocate its KV cache."""
    buf = mmap.mmap(-1, BLOCK * BLOCKS)
    for off in range(0, len(buf), PAGE):
        buf[off] = 1
    return buf, ctypes.addressof(ctypes.c_char.from_buffer(buf))


@unittest.skipUnless(os.environ.get(kvtier_client.SOCKET_ENV),
                     "set KVTIER_SOCKET to a running daemon's socket")
class ClientTest(unittest.TestCase):
    """Each test registers its own buffer of this process."""

    def setUp(self):
        self.client = kvtier_client.Client()
        self.buf, self.addr = _buffer()
        self.region = self.client.register(self.addr, len(self.buf), block_size=BLOCK,
                                           tenant="alice", name="pytest")
        self.addCleanup(self._cleanup)

    def _cleanup(self):
        try:
            self.client.unregister(self.region["id"])
        except kvtier_client.NotFound:
            pass
        # The daemon's placement queries hold no reference to the buffer.
        self.buf.close()

    def test_register(self):
        r = self.region
        want = {"pid": os.getpid(), "addr": self.addr, "length": BLOCK * BLOCKS,
                "block_size": BLOCK, "blocks": BLOCKS, "tenant": "alice", "name": "pytest",
                "class": "none", "priority": "normal", "refcount": 1, "source": "api"}
        for key, value in want.items():
            with self.subTest(field=key):
                self.assertEqual(r[key], value)
        got = self.client.region(r["id"])
        self.assertEqual((got["id"], got["addr"]), (r["id"], r["addr"]))
        self.assertIn(r["id"], [x["id"] for x in self.client.regions()])

    def test_update(self):
        r = self.client.update(self.region["id"], priority="high", refcount=3,
                               pinned=[{"offset": 0, "length": BLOCK}])
        self.assertEqual((r["priority"], r["refcount"], r["pinned"]),
                         ("high", 3, [{"offset": 0, "length": BLOCK}]))

    def test_hints(self):
        cases = [([], False, 0), ([0], False, 1), ([0, 1, BLOCKS - 1], True, 3),
                 (list(range(BLOCKS)) * 4, False, 4 * BLOCKS)]
        for blocks, write, want in cases:
            with self.subTest(blocks=len(blocks), write=write):
                self.assertEqual(self.client.hints(self.region["id"], blocks, write), want)

    def test_placement(self):
        p = self.client.placement(self.region["id"])
        self.assertEqual((p["region"], p["pid"], p["block_size"], len(p["blocks"])),
                         (self.region["id"], os.getpid(), BLOCK, BLOCKS))
        placed = sum(p["nodes"].values())
        self.assertEqual(placed + p["unmapped"], BLOCKS)
        self.assertEqual(placed, BLOCKS, "every page of the buffer was touched")
        for b in p["blocks"]:
            self.assertIn(b["tier"], ("fast", "slow"))
        mine = self.client.placement(pid=os.getpid())
        self.assertIn(self.region["id"], [x["region"] for x in mine])

    def test_placement_pages(self):
        rid = self.region["id"]
        got, offset = [], 0
        for want in (3, 3, 2):
            p = self.client.placement(rid, offset=offset, limit=3)
            self.assertEqual((p["offset"], p["total_blocks"], len(p["blocks"])), (offset, BLOCKS, want))
            offset += want
            self.assertEqual(p.get("next_offset"), offset if offset < BLOCKS else None)
            got.extend(b["tier"] for b in p["blocks"])
        whole = self.client.placement_all(rid)
        self.assertEqual((len(whole["blocks"]), whole.get("next_offset")), (BLOCKS, None))
        self.assertEqual([b["tier"] for b in whole["blocks"]], got)
        page = self.client.placement(pid=os.getpid(), limit=1)
        self.assertLessEqual(sum(len(x["blocks"]) for x in page), 1)
        for bad in ({"limit": 0}, {"limit": kvtier_client.PLACEMENT_PAGE_BLOCKS + 1}, {"offset": BLOCKS + 1}):
            with self.subTest(**bad), self.assertRaises(kvtier_client.BadRequest):
                self.client.placement(rid, **bad)

    def test_status(self):
        s = self.client.status()
        self.assertGreater(s["pid"], 0)
        self.assertGreaterEqual(s["regions"], 1)
        self.assertIn("alice", [t["name"] for t in s["tenants"]])

    def test_unregister(self):
        rid = self.region["id"]
        self.client.unregister(rid)
        with self.assertRaises(kvtier_client.NotFound):
            self.client.region(rid)
        self.assertNotIn(rid, [x["id"] for x in self.client.regions()])

    def test_errors(self):
        rid = self.region["id"]
        cases = [
            ("hint past the end", lambda: self.client.hints(rid, [BLOCKS]), kvtier_client.BadRequest, 400),
            ("unaligned address", lambda: self.client.register(self.addr + 1, BLOCK, BLOCK),
             kvtier_client.BadRequest, 400),
            ("unknown field", lambda: self.client.update(rid, colour="red"), kvtier_client.BadRequest, 400),
            ("no such region", lambda: self.client.unregister(1 << 62), kvtier_client.NotFound, 404),
            ("no such endpoint", lambda: self.client.request("GET", "nothing"), kvtier_client.NotFound, 404),
            ("wrong method", lambda: self.client.request("PUT", "status"), kvtier_client.KvtierError, 405),
            ("body too large", lambda: self.client.hints(rid, [0] * 600000), kvtier_client.TooLarge, 413),
            ("a pid that does not exist", lambda: self.client.register(self.addr, BLOCK, BLOCK, pid=1 << 30),
             kvtier_client.KvtierError, None),
        ]
        for name, call, exc, status in cases:
            with self.subTest(name):
                with self.assertRaises(exc) as cm:
                    call()
                e = cm.exception
                if status is not None:
                    self.assertEqual(e.status, status)
                self.assertIsInstance(e.body, dict)
                self.assertEqual(e.message, e.body["error"])
                self.assertTrue(e.message)
                self.assertIn(str(e.status), str(e))


if __name__ == "__main__":
    unittest.main()
