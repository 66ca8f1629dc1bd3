"""A client for the kvtier daemon's HTTP/JSON API over its unix socket.

Standard library only. The API is described in ../openapi.json; see
README.md in this directory for usage.
"""

import http.client
import json
import os
import socket
import urllib.parse

DEFAULT_SOCKET = "/run/kvtier/kvtier.sock"
"""Where the daemon listens unless configured otherwise."""

SOCKET_ENV = "KVTIER_SOCKET"
"""Environment variable that overrides DEFAULT_SOCKET."""

PLACEMENT_PAGE_BLOCKS = 65536
"""The default and largest limit of a placement request, in blocks."""


class KvtierError(Exception):
    """An error answer from the daemon.

    status is the HTTP status code, message the daemon's JSON error text
    ("error" field), body the decoded JSON body (or the raw text when the
    body was not JSON), method and path the request.
    """

    def __init__(self, status, message, body, method, path):
        super().__init__("%s %s: %d: %s" % (method, path, status, message))
        self.status = status
        self.message = message
        self.body = body
        self.method = method
        self.path = path


class BadRequest(KvtierError):
    """400: malformed JSON, an unknown field or an invalid value."""


class Forbidden(KvtierError):
    """403: the caller may not act on that process or use that endpoint."""


class NotFound(KvtierError):
    """404: no such region (or not the caller's), or no such endpoint."""


class Conflict(KvtierError):
    """409: the request conflicts with the daemon's state."""


class TooLarge(KvtierError):
    """413: the body is larger than the daemon's api.max_body."""


class TooMany(KvtierError):
    """429: over the daemon's region limits."""


_ERRORS = {400: BadRequest, 403: Forbidden, 404: NotFound, 409: Conflict,
           413: TooLarge, 429: TooMany}


class _UnixConnection(http.client.HTTPConnection):
    """An HTTPConnection to a unix socket instead of a TCP address."""

    def __init__(self, path, timeout):
        super().__init__("kvtier", timeout=timeout)
        self._socket_path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


class Client:
    """A connection to the daemon's API socket.

    socket defaults to $KVTIER_SOCKET, else /run/kvtier/kvtier.sock. Each
    request uses a fresh connection, so a Client may be shared by threads.
    """

    def __init__(self, socket_path=None, timeout=30.0):
        self.socket_path = socket_path or os.environ.get(SOCKET_ENV) or DEFAULT_SOCKET
        self.timeout = timeout

    def request(self, method, path, body=None):
        """Sends one request to /v1/<path> and returns the decoded JSON
        answer (None for an empty one); raises KvtierError (or a subclass
        by status) for a 4xx or 5xx answer."""
        full = "/v1/" + path.lstrip("/")
        data = None if body is None else json.dumps(body).encode()
        status, raw = self._roundtrip(method, full, data)
        if status >= 400:
            raise _error(status, raw, method, full)
        return json.loads(raw) if raw else None

    def _roundtrip(self, method, path, data):
        """Sends one request on a new connection; returns the status and
        body. The daemon answers an oversized body (413) before reading all
        of it and closes the connection: its answer is still read."""
        conn = _UnixConnection(self.socket_path, self.timeout)
        headers = {"Content-Type": "application/json"} if data is not None else {}
        try:
            try:
                conn.request(method, path, body=data, headers=headers)
            except (BrokenPipeError, ConnectionResetError) as send_err:
                try:
                    resp = conn.getresponse()
                except (OSError, http.client.HTTPException):
                    raise send_err from None
            else:
                resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def register(self, addr, length, block_size=0, pid=0, **fields):
        """Registers length bytes at addr (page aligned) of process pid (0:
        the caller) in blocks of block_size bytes (0: 2 MiB) and returns the
        region (a dict; its "id" names it). fields may be tenant, class,
        priority, refcount, pinned (a list of {"offset", "length"}) and
        name."""
        body = {"addr": addr, "length": length, "block_size": block_size, "pid": pid}
        body.update(fields)
        return self.request("POST", "regions", body)

    def unregister(self, region_id):
        """Unregisters a region."""
        self.request("DELETE", "regions/%d" % region_id)

    def update(self, region_id, **fields):
        """Changes a region's class, priority, refcount, pinned or
        think_complete ranges; returns the region."""
        return self.request("PATCH", "regions/%d" % region_id, fields)

    def hints(self, region_id, blocks, write=False):
        """Reports accesses to block indexes of a region the engine made
        itself; returns how many were accepted."""
        body = {"blocks": list(blocks), "write": bool(write)}
        return self.request("POST", "regions/%d/hints" % region_id, body)["accepted"]

    def placement(self, region_id=None, pid=None, offset=None, limit=None):
        """Returns where a page of a region's blocks lives (a dict): blocks
        [offset, offset+limit) of its "total_blocks" (by default from 0, at
        most PLACEMENT_PAGE_BLOCKS); "next_offset" names the next page and
        is absent on the last; the counts are the page's. Without a
        region_id, a list with that page of every region the caller sees
        (of pid), limit blocks in all. placement_all joins the pages."""
        query = {}
        for key, value in (("pid", pid), ("offset", offset), ("limit", limit)):
            if value is not None and (key != "pid" or region_id is None):
                query[key] = int(value)
        qs = ("?" + urllib.parse.urlencode(query)) if query else ""
        if region_id is not None:
            return self.request("GET", "regions/%d/placement%s" % (region_id, qs))
        return self.request("GET", "placement" + qs)

    def placement_all(self, region_id):
        """Returns where every block of a region lives: its pages, asked
        for in turn and joined into one dict as placement returns it."""
        p = self.placement(region_id)
        while p.get("next_offset") is not None:
            q = self.placement(region_id, offset=p["next_offset"])
            if q["offset"] != p["offset"] + len(p["blocks"]) or q["total_blocks"] != p["total_blocks"]:
                raise ValueError("placement of region %d: page at block %d does not follow blocks %d-%d"
                                 % (region_id, q["offset"], p["offset"], p["offset"] + len(p["blocks"])))
            p["blocks"].extend(q["blocks"])
            for node, n in q["nodes"].items():
                p["nodes"][node] = p["nodes"].get(node, 0) + n
            for key in ("fast_blocks", "slow_blocks", "unmapped"):
                p[key] += q[key]
            p.pop("next_offset")
            if q.get("next_offset") is not None:
                p["next_offset"] = q["next_offset"]
        return p

    def regions(self):
        """Lists the regions the caller sees (all for root)."""
        return self.request("GET", "regions")

    def region(self, region_id):
        """Returns one region."""
        return self.request("GET", "regions/%d" % region_id)

    def status(self):
        """Returns the daemon's health and activity."""
        return self.request("GET", "status")


def _error(status, raw, method, path):
    """The exception for an error answer, carrying the daemon's JSON error."""
    try:
        body = json.loads(raw)
        message = body.get("error", raw.decode(errors="replace"))
    except (ValueError, AttributeError):
        body = raw.decode(errors="replace")
        message = body.strip()
    return _ERRORS.get(status, KvtierError)(status, message, body, method, path)
