"""The network of `scripts/soak --jepsen`: every process in a network namespace of its own, joined
by veth pairs to one bridge namespace, and the faults a network makes (links down, one-way loss,
an instance cut from its database).

  bridge namespace   br0, the bridge every other namespace's veth pair ends on
  pg                 PostgreSQL                               10.X.Y.2
  lb                 HAProxy (:8081) and the fault proxy (:8080)  10.X.Y.3
  s1, s2             the two `spotter serve` instances (:8080)  10.X.Y.11, 10.X.Y.12
  one per device     the device's `spotter` commands           10.X.Y.101…
  obs                the run's own reads of the servers (`python3 jepsen_net.py http …`)

The subnet is a /24 of 10.231.0.0/16 that exists only inside these namespaces: the machine's own
namespace gets no address and no route, so nothing outside them is ever a target, and nothing
outside can reach in. Namespaces are named `spj<pid>-<member>`; ones left by a run that died (its
process gone) are removed at the next start.

A partition is silent loss, as on a real network (no error comes back to the sender at once):
  link        the device's port on the bridge set down: nothing in or out;
  one-way     in the balancer's namespace, the device's address routed to a gateway that does
              not exist: on a connection the device already holds, its requests arrive and are
              served and the answers are lost (a new connection cannot even be made);
  one-way-in  the same in the device's namespace towards the balancer: its requests are lost;
  db          the same in an instance's namespace towards PostgreSQL: the instance runs on, cut
              from its database (its /healthz fails, so HAProxy takes it out);
  lb          the same in the balancer's namespace towards one instance.
Healing takes the same rule back. Needs root (CAP_NET_ADMIN) and iproute2.
"""

import json
import os
import random
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request

BASE = "10.231"


def ip(*args, check=True):
    result = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise OSError(f"ip {' '.join(args)}: {result.stderr.strip()}")
    return result


def probe():
    """None when namespaces can be made here, else why not (the run is then reported skipped)."""
    if os.geteuid() != 0:
        return "network namespaces need root (CAP_NET_ADMIN); run as root"
    name = f"spj{os.getpid()}-probe"
    try:
        # What the run makes: a namespace, a bridge in it, a veth pair with one end on the bridge,
        # a command run inside it.
        for args in (["netns", "add", name], ["-n", name, "link", "add", "br0", "type", "bridge"],
                     ["-n", name, "link", "add", "name", "a", "type", "veth", "peer", "name", "b"],
                     ["-n", name, "link", "set", "dev", "b", "master", "br0"], ["netns", "exec", name, "true"]):
            result = ip(*args, check=False)
            if result.returncode != 0:
                return f"`ip {' '.join(args)}` failed: {result.stderr.strip()}"
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"iproute2 is not usable: {error}"
    finally:
        try:
            ip("netns", "del", name, check=False)
        except (OSError, subprocess.TimeoutExpired):
            pass
    return None


def die_with_parent():
    """For Popen's preexec_fn: the child gets SIGKILL when the run that started it dies, even by
    SIGKILL (Linux keeps this across exec, and `ip netns exec` execs the command)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except OSError:
        pass


def remove_stale():
    """Namespaces of earlier runs whose process is gone."""
    listing = ip("netns", "list", check=False).stdout
    for line in listing.splitlines():
        name = line.split(" ")[0]
        match = re.match(r"spj(\d+)-", name)
        if match and not os.path.exists(f"/proc/{match.group(1)}"):
            ip("netns", "del", name, check=False)
    # The link of an older version of this tool into the machine's own namespace.
    for name in re.findall(r"^\d+: (spj(\d+)r)[@:]", ip("-o", "link", check=False).stdout, re.M):
        if not os.path.exists(f"/proc/{name[1]}"):
            ip("link", "del", name[0], check=False)


def in_use():
    """The /24s of 10.231.0.0/16 that other runs' namespaces use (two runs at once stay apart,
    though their namespaces could not reach one another anyway)."""
    used = set()
    for line in ip("netns", "list", check=False).stdout.splitlines():
        name = line.split(" ")[0]
        if name.startswith("spj") and name.endswith("-lb"):
            found = re.search(r"inet (10\.231\.\d+)\.", ip("-n", name, "-4", "addr", check=False).stdout)
            if found:
                used.add(found.group(1) + ".")
    return used


class Network:
    def __init__(self, members, seed):
        """`members`: names of the namespaces to make (besides the bridge), each with the last
        octet of its address: {"pg": 2, "lb": 3, "s1": 11, …}."""
        self.tag = f"spj{os.getpid()}"
        self.members = dict(members)
        rng = random.Random(f"subnet-{seed}-{os.getpid()}")
        used = in_use()
        self.prefix = next(p for p in (f"{BASE}.{rng.randrange(1, 250)}." for _ in range(500)) if p not in used)
        self.nowhere = self.prefix + "254"  # a gateway no namespace has: what is routed there is lost
        self.bridge = f"{self.tag}-br"
        self.ports = {}  # member -> its veth's name in the bridge namespace
        self.active = {}  # fault key -> the command that heals it
        self.made = []

    def ns(self, member):
        return f"{self.tag}-{member}"

    def address(self, member):
        return self.prefix + str(self.members[member])

    def exec_prefix(self, member):
        return ["ip", "netns", "exec", self.ns(member)]

    def up(self):
        remove_stale()
        ip("netns", "add", self.bridge)
        self.made.append(self.bridge)
        ip("-n", self.bridge, "link", "set", "lo", "up")
        ip("-n", self.bridge, "link", "add", "br0", "type", "bridge")
        ip("-n", self.bridge, "link", "set", "br0", "up")
        for index, member in enumerate(self.members):
            name = self.ns(member)
            ip("netns", "add", name)
            self.made.append(name)
            port = f"p{index}"
            ip("link", "add", "eth0", "netns", name, "type", "veth", "peer", "name", port, "netns", self.bridge)
            ip("-n", self.bridge, "link", "set", "dev", port, "master", "br0")
            ip("-n", self.bridge, "link", "set", "dev", port, "up")
            ip("-n", name, "addr", "add", f"{self.address(member)}/24", "dev", "eth0")
            ip("-n", name, "link", "set", "eth0", "up")
            ip("-n", name, "link", "set", "lo", "up")
            self.ports[member] = port

    def down(self):
        self.heal_all()
        for name in reversed(self.made):
            ip("netns", "del", name, check=False)
        self.made = []

    # -- faults ------------------------------------------------------------------------------

    def cut(self, kind, a, b=None):
        """Starts one partition; returns its key (to heal it), or None when it is already in force."""
        if kind == "link":
            key = ("link", a)
            apply = ["-n", self.bridge, "link", "set", "dev", self.ports[a], "down"]
            heal = ["-n", self.bridge, "link", "set", "dev", self.ports[a], "up"]
        else:
            # In `a`'s namespace, `b` is routed to a gateway nobody answers for: what `a` sends to
            # `b` is lost on the way, with no error at the sender (a blackhole route would fail
            # the send at once, which no real network does).
            key = (kind, a, b)
            route = [f"{self.address(b)}/32", "via", self.nowhere]
            apply = ["-n", self.ns(a), "route", "add", *route]
            heal = ["-n", self.ns(a), "route", "del", *route]
        if key in self.active:
            return None
        ip(*apply)
        self.active[key] = heal
        return key

    def heal(self, key):
        heal = self.active.pop(key, None)
        if heal is not None:
            ip(*heal, check=False)

    def heal_all(self):
        for key in list(self.active):
            self.heal(key)


# -- the run's reads, made from inside the observer namespace ---------------------------------


def http_main(args):
    """`jepsen_net.py http METHOD URL TIMEOUT` (headers as JSON in $JEPSEN_HEADERS, the body on
    stdin): one request, answered on stdout as JSON {"status", "body"} or {"error", "refused"}."""
    method, url, timeout = args[0], args[1], float(args[2])
    body = sys.stdin.buffer.read() or None
    request = urllib.request.Request(url, data=body, method=method)
    for name, value in json.loads(os.environ.get("JEPSEN_HEADERS", "{}")).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = {"status": response.status, "body": response.read().decode("utf-8", "replace")}
    except urllib.error.HTTPError as error:
        answer = {"status": error.code, "body": error.read().decode("utf-8", "replace")}
    except Exception as error:  # no answer: say whether the connection was refused
        reason = getattr(error, "reason", error)
        answer = {"error": f"{type(reason).__name__}: {reason}", "refused": isinstance(reason, ConnectionRefusedError)}
    print(json.dumps(answer))


def connect_main(args):
    """`jepsen_net.py connect HOST PORT`: exit 0 once something listens there (at most 15 s)."""
    import time
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            socket.create_connection((args[0], int(args[1])), timeout=1).close()
            return 0
        except OSError:
            time.sleep(0.2)
    return 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        http_main(sys.argv[2:])
    elif sys.argv[1:2] == ["connect"]:
        sys.exit(connect_main(sys.argv[2:]))
    else:
        sys.exit("usage: jepsen_net.py http METHOD URL TIMEOUT | connect HOST PORT")
