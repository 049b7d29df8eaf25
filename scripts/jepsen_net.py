"""The network of `scripts/soak --jepsen`: every process in a network namespace of its own, joined
by veth pairs to one bridge namespace, and the faults a network makes (links down, one-way loss,
an instance cut from its database).

  bridge namespace   br0, the bridge every other namespace's veth pair ends on
  pg                 PostgreSQL                               10.X.Y.2
  lb                 HAProxy (:8081) and the fault proxy (:8080)  10.X.Y.3
  s1, s2             the two `spotter serve` instances (:8080)  10.X.Y.11, 10.X.Y.12
  one per device     the device's `spotter` commands           10.X.Y.101…
  (the run itself)   a veth of its own into the bridge, so it can read the servers  10.X.Y.1

The subnet is one /24 of 10.231.0.0/16 that no route of this machine uses. Nothing outside these
namespaces is ever a target. Namespaces are named `spj<pid>-<member>`; ones left by a run that
died (its process gone) are removed at the next start.

A partition:
  link        the device's port on the bridge set down: nothing in or out;
  one-way     a blackhole route in the balancer's namespace towards the device: its requests
              arrive and are served, their answers never come back;
  db          a blackhole route in an instance's namespace towards PostgreSQL: the instance runs
              on, cut from its database (its /healthz fails, so HAProxy takes it out);
  lb          a blackhole route in the balancer's namespace towards one instance.
Healing takes the same rule back. Needs root (CAP_NET_ADMIN) and iproute2.
"""

import os
import random
import re
import subprocess

BASE = "10.231"


class Unavailable(Exception):
    """Namespaces cannot be made here (not root, no iproute2, a kernel without them)."""


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
        # What the run makes: a namespace, a bridge in it, a veth pair with one end on the bridge.
        for args in (["netns", "add", name], ["-n", name, "link", "add", "br0", "type", "bridge"],
                     ["-n", name, "link", "add", "name", "a", "type", "veth", "peer", "name", "b"],
                     ["-n", name, "link", "set", "dev", "b", "master", "br0"]):
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


def free_subnet(rng):
    used = ip("-4", "route", "show", "table", "all", check=False).stdout + ip("-4", "addr", check=False).stdout
    for _ in range(200):
        third = rng.randrange(1, 255)
        prefix = f"{BASE}.{third}."
        if prefix not in used:
            return prefix
    raise Unavailable(f"no free /24 in {BASE}.0.0/16")


class Network:
    def __init__(self, members, seed):
        """`members`: names of the namespaces to make (besides the bridge), each with the last
        octet of its address: {"pg": 2, "lb": 3, "s1": 11, …}."""
        self.tag = f"spj{os.getpid()}"
        self.members = dict(members)
        self.prefix = free_subnet(random.Random(f"subnet-{seed}-{os.getpid()}"))
        self.bridge = f"{self.tag}-br"
        self.root_link = f"{self.tag}r"[-15:]
        self.ports = {}  # member -> its veth's name in the bridge namespace
        self.active = {}  # fault key -> the command that heals it
        self.made = []

    def ns(self, member):
        return f"{self.tag}-{member}"

    def address(self, member):
        return self.prefix + str(self.members[member]) if member != "root" else self.prefix + "1"

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
        ip("link", "add", self.root_link, "type", "veth", "peer", "name", "proot", "netns", self.bridge)
        ip("-n", self.bridge, "link", "set", "dev", "proot", "master", "br0")
        ip("-n", self.bridge, "link", "set", "dev", "proot", "up")
        ip("addr", "add", f"{self.prefix}1/24", "dev", self.root_link)
        ip("link", "set", self.root_link, "up")

    def down(self):
        self.heal_all()
        ip("link", "del", self.root_link, check=False)
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
            # A blackhole route in `a`'s namespace towards `b`: what `a` sends to `b` is lost.
            key = (kind, a, b)
            route = [f"{self.address(b)}/32"]
            apply = ["-n", self.ns(a), "route", "add", "blackhole", *route]
            heal = ["-n", self.ns(a), "route", "del", "blackhole", *route]
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
