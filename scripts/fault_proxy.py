#!/usr/bin/env python3
"""The network's faults that the kernel here cannot make (it has no netem): a small HTTP/1.1
proxy between the devices and the load balancer, used by `scripts/soak --jepsen`.

Each request is read whole from the device, then, by chance drawn from the proxy's seed:

  delay      it is held up to `delay_ms` before it goes on (so requests of several devices
             overtake one another: reordering), and the answer is held as long again;
  duplicate  it is sent to the server twice at once, on two connections (the second copy a
             little later); the device gets the first answer, and only once both have finished,
             so every effect of a request happens while its sender still waits;
  truncate   the answer is cut (its head and half its body; half its head when it has no body),
             and the connection closed;
  drop       the request reaches the server, and the answer is thrown away (connection closed);
  reset      the connection is reset (TCP RST) before the request is sent on (it never reached
             anyone).

Device connections are kept open between requests, as the device's HTTP client expects; each
request goes on to the balancer on a connection of its own. Packet duplication is TCP's to absorb
and never reaches HTTP; what does is a request sent twice (a retrying middlebox), which is what
`duplicate` makes.

The mode is a JSON file (`--control`) read again whenever it changes, so the run switches phases
without a restart; `{}` passes everything through untouched. What was done is counted in the
JSON file `--stats` (rewritten at most every half second, and at exit).

  fault_proxy.py --listen 10.0.0.3:8080 --upstream 10.0.0.3:8081 --control mode.json \
      --stats stats.json --seed 42

Python 3 standard library only. Every wait is bounded.
"""

import argparse
import json
import os
import random
import signal
import socket
import struct
import sys
import threading
import time

READ_LIMIT = 64 * 1024 * 1024  # no request or answer of the run comes near this
UPSTREAM_TIMEOUT = 65.0  # longer than the load balancer's server timeout (60 s)
CLIENT_TIMEOUT = 90.0
KINDS = ("delay", "duplicate", "truncate", "drop", "reset")


class Proxy:
    def __init__(self, upstream, control, stats, seed):
        self.upstream = upstream
        self.control_path = control
        self.stats_path = stats
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.mode = {}
        self.counts = {kind: 0 for kind in KINDS}
        self.counts["requests"] = 0
        self.counts["upstream_errors"] = 0
        self.stats_written = 0.0

    def current_mode(self):
        """The mode file, read for every request (a few bytes): a change is never missed."""
        try:
            with open(self.control_path) as handle:
                mode = json.load(handle)
        except (OSError, ValueError):
            return dict(self.mode)  # missing or half written: the last mode read
        with self.lock:
            self.mode = mode
        return dict(mode)

    def draw(self, mode):
        """Which faults this request gets, and its delays (seconds), drawn under the lock so a
        seed gives one sequence of draws."""
        with self.lock:
            self.counts["requests"] += 1
            faults = set()
            for kind in ("duplicate", "truncate", "drop", "reset"):
                if self.rng.random() < float(mode.get(kind, 0)):
                    faults.add(kind)
            limit = float(mode.get("delay_ms", 0)) / 1000.0
            delays = (self.rng.uniform(0, limit), self.rng.uniform(0, limit)) if limit > 0 else (0.0, 0.0)
            if limit > 0:
                faults.add("delay")
            second = self.rng.uniform(0, 0.05)  # when a duplicate's second copy leaves
            if "reset" in faults:
                faults = {"reset"}  # nothing else happens to a request that never leaves
            elif "drop" in faults:
                faults.discard("truncate")
            for kind in faults:
                self.counts[kind] += 1
            return faults, delays, second

    def count(self, key):
        with self.lock:
            self.counts[key] += 1

    def write_stats(self, force=False):
        with self.lock:
            if not force and time.monotonic() - self.stats_written < 0.5:
                return
            self.stats_written = time.monotonic()
            data = json.dumps(self.counts)
        temporary = self.stats_path + ".tmp"
        try:
            with open(temporary, "w") as handle:
                handle.write(data)
            os.replace(temporary, self.stats_path)
        except OSError:
            pass

    # -- HTTP/1.1, as much as this needs ----------------------------------------------------

    @staticmethod
    def fill(sock, data, need):
        """Reads until `need(data)` holds; False when the connection ended first."""
        while not need(data):
            chunk = sock.recv(65536)
            if not chunk:
                return False
            data += chunk
            if len(data) > READ_LIMIT:
                raise ConnectionError("a message too large")
        return True

    @staticmethod
    def read_message(sock, data, is_request, method=None):
        """One request (or final answer) read whole from `sock`, `data` (a bytearray) holding what
        was read already and keeping what follows: (head bytes, body bytes, method). An answer
        without a length is read to the end of the connection. None at a clean end."""
        while True:
            if not Proxy.fill(sock, data, lambda d: d.find(b"\r\n\r\n") >= 0):
                if data:
                    raise ConnectionError("the connection ended inside a head")
                return None
            end = data.find(b"\r\n\r\n") + 4
            head = bytes(data[:end])
            del data[:end]
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            if is_request:
                method = lines[0].split(" ")[0].upper()
                break
            parts = lines[0].split(" ")
            status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
            if 100 <= status < 200:
                continue  # an interim answer (100 Continue): the final one follows
            if status in (204, 304) or method == "HEAD":
                return head, b"", method
            break
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = bytearray()
            while True:
                if not Proxy.fill(sock, data, lambda d: d.find(b"\r\n") >= 0):
                    raise ConnectionError("the connection ended inside a chunked body")
                line_end = data.find(b"\r\n")
                size = int(bytes(data[:line_end]).split(b";")[0].strip() or b"0", 16)
                del data[:line_end + 2]
                if size == 0:
                    # Trailer lines, then an empty line; the trailers are not passed on.
                    while True:
                        if not Proxy.fill(sock, data, lambda d: d.find(b"\r\n") >= 0):
                            raise ConnectionError("the connection ended inside the trailers")
                        line_end = data.find(b"\r\n")
                        del data[:line_end + 2]
                        if line_end == 0:
                            break
                    break
                if not Proxy.fill(sock, data, lambda d: len(d) >= size + 2):
                    raise ConnectionError("the connection ended inside a chunk")
                body += data[:size]
                del data[:size + 2]
            # Sent on as one body with its length.
            return Proxy.with_length(head, len(body)), bytes(body), method
        if "content-length" in headers:
            length = int(headers["content-length"])
            if not Proxy.fill(sock, data, lambda d: len(d) >= length):
                raise ConnectionError("the connection ended inside a body")
            body = bytes(data[:length])
            del data[:length]
            return head, body, method
        if is_request:
            return head, b"", method
        Proxy.fill(sock, data, lambda d: False)  # an answer that ends with its connection
        body = bytes(data)
        del data[:]
        return Proxy.with_length(head, len(body)), body, method

    @staticmethod
    def with_header(head, dropped, line):
        """The head without the headers named in `dropped` (lower case, with their colon), and with
        `line` added (none when None)."""
        lines = head.decode("latin-1").split("\r\n")
        kept = [item for item in lines if item and not item.lower().startswith(dropped)]
        if line is not None:
            kept.append(line)
        return ("\r\n".join(kept) + "\r\n\r\n").encode("latin-1")

    @staticmethod
    def with_length(head, length):
        return Proxy.with_header(head, ("transfer-encoding:", "content-length:"), f"Content-Length: {length}")

    @staticmethod
    def connection_header(head, value):
        """The head with its Connection header replaced by `value` (none when None)."""
        return Proxy.with_header(head, ("connection:", "keep-alive:"), None if value is None else f"Connection: {value}")

    def forward(self, head, body, method):
        """The request sent to the balancer on a connection of its own (so an answer ends with
        it, and a duplicate is a second connection); its answer (head, body)."""
        with socket.create_connection(self.upstream, timeout=UPSTREAM_TIMEOUT) as upstream:
            upstream.sendall(self.connection_header(head, "close") + body)
            answer = self.read_message(upstream, bytearray(), is_request=False, method=method)
            if answer is None:
                raise ConnectionError("the balancer closed without an answer")
            return answer[0], answer[1]

    @staticmethod
    def reset(client):
        """Closes with a TCP reset, not an orderly close."""
        try:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass

    def serve(self, client):
        """One device connection, kept open between requests as the device's HTTP client expects
        (its pool reuses connections: a partition can then fall on a connection already made)."""
        client.settimeout(CLIENT_TIMEOUT)
        buffered = bytearray()
        try:
            while True:
                message = self.read_message(client, buffered, is_request=True)
                if message is None:
                    return
                head, body, method = message
                closing = b"connection: close" in head.lower()
                faults, (before, after), second = self.draw(self.current_mode())
                if "reset" in faults:
                    self.reset(client)
                    return
                time.sleep(before)
                answers = []

                def one(wait):
                    time.sleep(wait)
                    try:
                        answers.append(self.forward(head, body, method))
                    except (OSError, ValueError):
                        self.count("upstream_errors")

                copies = [threading.Thread(target=one, args=(0.0,))]
                if "duplicate" in faults:
                    copies.append(threading.Thread(target=one, args=(second,)))
                for thread in copies:
                    thread.start()
                for thread in copies:
                    thread.join()
                if not answers:
                    return  # no answer from the balancer: the device sees the connection end
                time.sleep(after)
                if "drop" in faults:
                    return
                answer_head, answer_body = answers[0]
                answer_head = self.connection_header(answer_head, "close" if closing else None)
                answer = answer_head + answer_body
                if "truncate" in faults:
                    # The head whole and half the body; with no body, half the head.
                    cut = len(answer_head) + len(answer_body) // 2 if answer_body else len(answer_head) // 2
                    client.sendall(answer[:cut])
                    return
                client.sendall(answer)
                if closing:
                    return
        except (OSError, ValueError, ConnectionError):
            return
        finally:
            self.write_stats()
            try:
                client.close()
            except OSError:
                pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", required=True, help="ADDRESS:PORT to listen on")
    parser.add_argument("--upstream", required=True, help="ADDRESS:PORT of the load balancer")
    parser.add_argument("--control", required=True, help="JSON file of the current faults")
    parser.add_argument("--stats", required=True, help="JSON file the counts are written to")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    host, port = args.listen.rsplit(":", 1)
    up_host, up_port = args.upstream.rsplit(":", 1)
    proxy = Proxy((up_host, int(up_port)), args.control, args.stats, args.seed)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, int(port)))
    server.listen(512)

    def finish(*_):
        proxy.write_stats(force=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, finish)
    signal.signal(signal.SIGINT, finish)
    print(f"listening on {args.listen}", flush=True)
    while True:
        client, _ = server.accept()
        threading.Thread(target=proxy.serve, args=(client,), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
