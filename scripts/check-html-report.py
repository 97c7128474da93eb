#!/usr/bin/env python3
"""Checks procflow's HTML run report in a real browser: headless Chromium.

Runs a workflow that exercises every part of the report (success, failure, retries, waits,
groups, a branch, skips, hostile output) with `procflow run --html`, loads the page in
headless Chromium over the DevTools protocol, and checks that:

- nothing is logged as an error and no script error is thrown;
- the page makes no request but for itself (no network, no external script or font);
- every step id is in the rendered page, each step's output section is there, and the
  failed step's is open while the others are folded;
- a screenshot of the window is a PNG of the window's size.

It skips (exit 0) when Chromium is not installed. Usage:
    scripts/check-html-report.py [--procflow PATH] [--keep DIR]
--procflow: the binary (default .build/debug/procflow, built if missing); --keep: leave the
report and the screenshot in DIR.
"""

import argparse
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTH, HEIGHT = 1280, 900

WORKFLOW = {
    "name": "browser-check",
    "procedures": [
        {"id": "fetch", "kind": "shell", "run": "echo fetching; sleep 0.2", "description": "Fetch"},
        {
            "id": "flaky",
            "kind": "shell",
            "run": "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n -ge 2 ]",
            "retry": {"attempts": 3, "delay": 0.1},
        },
        {
            "id": "hostile",
            "kind": "shell",
            "run": "printf '<script>alert(1)</script> & ]]> \\001\\033[31mred\\033[0m \\377\\n'",
        },
        {
            "id": "build",
            "kind": "group",
            "dependsOn": ["fetch"],
            "procedures": [
                {"id": "compile", "kind": "shell", "run": "seq 1 5000; sleep 0.2", "mutex": "cpu"},
                {"id": "lint", "kind": "shell", "run": "echo lint; sleep 0.1", "mutex": "cpu"},
            ],
        },
        {"id": "broken", "kind": "shell", "run": "echo 'why it broke' >&2; exit 3", "dependsOn": ["build"]},
        {"id": "after-broken", "kind": "shell", "run": "true", "dependsOn": ["broken"]},
        {"id": "value", "kind": "shell", "run": "printf stable", "output": "text"},
        {
            "id": "route",
            "kind": "branch",
            "on": {"from": "value"},
            "cases": [
                {"equals": "stable", "procedures": [{"id": "publish", "kind": "shell", "run": "echo publish"}]},
                {"equals": "beta", "procedures": [{"id": "preview", "kind": "shell", "run": "true"}]},
            ],
        },
        {"id": "gated", "kind": "shell", "run": "true", "when": {"command": "false"}},
    ],
}


def step_ids(steps):
    for step in steps:
        yield step["id"]
        yield from step_ids(step.get("procedures", []))
        for case in step.get("cases", []):
            yield from step_ids(case["procedures"])
        yield from step_ids(step.get("otherwise", []))


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class WebSocket:
    """Just enough of RFC 6455 for the DevTools protocol: masked text frames out, text
    frames (possibly fragmented, of any length) in, pings answered."""

    def __init__(self, url):
        assert url.startswith("ws://"), url
        host_port, _, path = url[len("ws://"):].partition("/")
        host, _, port = host_port.partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("the DevTools endpoint closed the connection")
            response += chunk
        head, _, self.buffer = response.partition(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"WebSocket handshake refused: {head.decode(errors='replace')}")

    def send(self, text):
        payload = text.encode()
        header = bytearray([0x81])
        if len(payload) < 126:
            header.append(0x80 | len(payload))
        elif len(payload) < 1 << 16:
            header.append(0x80 | 126)
            header += struct.pack(">H", len(payload))
        else:
            header.append(0x80 | 127)
            header += struct.pack(">Q", len(payload))
        mask = os.urandom(4)
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        self.sock.sendall(bytes(header) + mask + masked)

    def _read(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(max(65536, count - len(self.buffer)))
            if not chunk:
                raise RuntimeError("the DevTools connection closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def receive(self):
        message = b""
        while True:
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack(">H", self._read(2))
            elif length == 127:
                (length,) = struct.unpack(">Q", self._read(8))
            mask = self._read(4) if second & 0x80 else None
            payload = self._read(length)
            if mask:
                payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
            if opcode == 0x9:  # ping
                continue
            if opcode == 0x8:
                raise RuntimeError("the browser closed the DevTools connection")
            message += payload
            if first & 0x80:
                return message.decode()


class DevTools:
    def __init__(self, url):
        self.socket = WebSocket(url)
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.receive())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.events.append(json.loads(self.socket.receive()))
        raise RuntimeError(f"no {method} within {timeout} s")


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise RuntimeError("the screenshot is not a PNG")
    return struct.unpack(">II", data[16:24])


def make_report(procflow, directory):
    with open(os.path.join(directory, "flow.json"), "w") as file:
        json.dump(WORKFLOW, file)
    result = subprocess.run(
        [procflow, "run", "flow.json", "--html", "report.html", "--max-concurrent", "4"],
        cwd=directory, capture_output=True, text=True, timeout=120,
    )
    if result.returncode != 1:  # `broken` fails on purpose
        raise RuntimeError(f"procflow exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return os.path.join(directory, "report.html")


def start_browser(chromium, profile):
    browser = subprocess.Popen(
        [
            chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--remote-debugging-port=0", "--remote-allow-origins=*", f"--user-data-dir={profile}",
            f"--window-size={WIDTH},{HEIGHT}", "about:blank",
        ],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.time() + 60
    while not os.path.exists(port_file) or not open(port_file).read().strip():
        if time.time() > deadline or browser.poll() is not None:
            browser.kill()
            raise RuntimeError("Chromium did not open its DevTools port")
        time.sleep(0.1)
    port = int(open(port_file).read().split()[0])
    return browser, port


def page_socket(port):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/json/new?about:blank", method="PUT")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["webSocketDebuggerUrl"]


def check(report, devtools, keep):
    problems = []
    for domain in ("Page", "Runtime", "Log", "Network"):
        devtools.call(f"{domain}.enable")
    devtools.call(
        "Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1,
        mobile=False,
    )
    url = "file://" + os.path.abspath(report)
    devtools.call("Page.navigate", url=url)
    devtools.wait_for("Page.loadEventFired")
    time.sleep(0.5)  # late console messages

    def evaluate(expression):
        result = devtools.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    text = evaluate("document.body.innerText")
    hostile = evaluate("document.querySelector('#output-hostile pre').textContent")
    sections = json.loads(evaluate(
        "JSON.stringify(Array.from(document.querySelectorAll('details')).map(d => [d.id, d.open]))"
    ))
    screenshot = base64.b64decode(devtools.call("Page.captureScreenshot", format="png")["data"])

    for event in devtools.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            problems.append(f"script error: {params['exceptionDetails'].get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            problems.append(f"console {params['type']}: {params.get('args')}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            problems.append(f"console error: {params['entry'].get('text')}")
        elif method == "Network.requestWillBeSent":
            requested = params["request"]["url"]
            if requested != url and not requested.startswith("data:"):
                problems.append(f"the page requested {requested}")

    opened = dict(sections)
    for step in step_ids(WORKFLOW["procedures"]):
        if step not in text:
            problems.append(f"step {step} is not in the rendered page")
        if f"output-{step}" not in opened:
            problems.append(f"step {step} has no output section")
    if opened.get("output-broken") is not True:
        problems.append("the failed step's output is not open")
    if opened.get("output-fetch") is not False:
        problems.append("a step that succeeded has its output open")
    if "<script>alert(1)</script>" not in (hostile or ""):
        problems.append("the hostile output is not shown as text")

    width, height = png_size(screenshot)
    if (width, height) != (WIDTH, HEIGHT):
        problems.append(f"the screenshot is {width}x{height}, not {WIDTH}x{HEIGHT}")
    if len(screenshot) < 10_000:
        problems.append(f"the screenshot is only {len(screenshot)} bytes: an empty page?")
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(report, os.path.join(keep, "report.html"))
        with open(os.path.join(keep, "report.png"), "wb") as file:
            file.write(screenshot)
    return problems, width, height


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--procflow", default=os.path.join(ROOT, ".build", "debug", "procflow"))
    parser.add_argument("--keep", help="leave the report and the screenshot in this directory")
    arguments = parser.parse_args()

    chromium = find_chromium()
    if not chromium:
        print("check-html-report: skipped: Chromium is not installed (apt-get install chromium)")
        return 0
    if not os.path.exists(arguments.procflow):
        subprocess.run(["swift", "build", "--product", "procflow"], cwd=ROOT, check=True)

    directory = tempfile.mkdtemp(prefix="procflow-html-check-")
    browser = None
    try:
        report = make_report(arguments.procflow, directory)
        browser, port = start_browser(chromium, os.path.join(directory, "profile"))
        devtools = DevTools(page_socket(port))
        problems, width, height = check(report, devtools, arguments.keep)
    finally:
        if browser:
            browser.terminate()
            try:
                browser.wait(timeout=10)
            except subprocess.TimeoutExpired:
                browser.kill()
        shutil.rmtree(directory, ignore_errors=True)
    if problems:
        for problem in problems:
            print(f"check-html-report: error: {problem}", file=sys.stderr)
        return 1
    print(
        f"check-html-report: the report loads in Chromium without errors, shows all "
        f"{len(list(step_ids(WORKFLOW['procedures'])))} steps, screenshot {width}x{height}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
