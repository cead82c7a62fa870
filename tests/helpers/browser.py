"""Headless Chromium driven over the DevTools protocol, for the report's browser test.

The protocol runs on a pipe (--remote-debugging-pipe: commands on the browser's fd 3,
answers and events on its fd 4, each message JSON ended by a NUL byte), so no WebSocket
client library and no port are needed; it is what Playwright and Puppeteer use too.
Hand-written because no package in the project's registries drives a system Chromium
without downloading a browser of its own. Run alone, it takes a screenshot:

    python tests/helpers/browser.py PAGE.html SHOT.png [WIDTH]
"""
from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NAMES = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    """$CHROMIUM, or the first of NAMES on PATH."""
    if os.environ.get("CHROMIUM"):
        return shutil.which(os.environ["CHROMIUM"])
    return next((p for p in map(shutil.which, NAMES) if p), None)


def _above(fd: int, low: int) -> int:
    """fd moved to a number >= low."""
    import fcntl
    new = fcntl.fcntl(fd, fcntl.F_DUPFD, low)
    os.close(fd)
    return new


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium showing one page at a time; `with Browser(binary) as b: b.open(url)`."""

    def __init__(self, binary: str, timeout: float = 60.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="encore-sim-chromium-")
        self.log = open(Path(self.profile) / "stderr.log", "w+b")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The child's ends above fd 4, so that moving them to 3 and 4 overwrites neither.
        to_browser_r, from_browser_w = (_above(fd, 10) for fd in (to_browser_r, from_browser_w))
        # bash (dash takes no fd above 9) moves the pipe ends to fds 3 and 4, where Chromium looks for them.
        script = f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w} {to_browser_r}<&- {from_browser_w}>&-'
        args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--hide-scrollbars", "--mute-audio", "about:blank"]
        self.proc = subprocess.Popen(["bash", "-c", script, *args], pass_fds=(to_browser_r, from_browser_w),
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        self.session = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("Browser.close", session=False, timeout=10)
            except (BrowserError, OSError, TimeoutError):
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def stderr_tail(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-2000:]

    def _next(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the browser in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise BrowserError(f"the browser exited (code {self.proc.poll()}):\n{self.stderr_tail()}")
                self._buf += chunk
        message, _, self._buf = self._buf.partition(b"\0")
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, session=None, timeout: float | None = None) -> dict:
        """A command's result; events that arrive meanwhile are kept in self.events.
        session=None: the page's session once there is one; False: the browser itself."""
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        session = self.session if session is None else session
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._next(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict:
        deadline = time.monotonic() + self.timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._next(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event

    def open(self, url: str, width: int = 1400, height: int = 900) -> None:
        """Load url in a new page (closing the previous one) and wait for its load event, with
        console, log and network watched: errors() and requests() are then this page's."""
        if self.session is not None:
            self.send("Target.closeTarget", {"targetId": self.target}, session=False)
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.target = target
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = []
        for e in self._page_events():
            method, p = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif method == "Runtime.exceptionThrown":
                out.append(f"exception: {p['exceptionDetails'].get('text')}")
            elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
        return out

    def requests(self) -> list[str]:
        """URLs the page requested."""
        return [e["params"]["request"]["url"] for e in self._page_events()
                if e.get("method") == "Network.requestWillBeSent"]

    def _page_events(self) -> list[dict]:
        """The events of the page open now (a page closed before may still have sent some)."""
        return [e for e in self.events if e.get("sessionId") == self.session]

    def screenshot(self, clip: dict | None = None) -> bytes:
        """A PNG of the whole page, or of clip {x, y, width, height} in page coordinates."""
        import base64
        if clip is None:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"]}
        shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                    "clip": {**clip, "scale": 1}})
        return base64.b64decode(shot["data"])


def blank(png: bytes) -> bool:
    """True if (almost) every pixel of a screenshot is the background's colour."""
    import io

    import numpy as np
    from PIL import Image
    with Image.open(io.BytesIO(png)) as im:
        rgb = np.asarray(im.convert("RGB")).reshape(-1, 3).astype(np.uint32)
    pixels = rgb[:, 0] << 16 | rgb[:, 1] << 8 | rgb[:, 2]
    return np.mean(pixels != pixels[0]) < 0.02 or len(np.unique(pixels)) < 3


#: Each figure of the open page: its id, whether its image loaded, its height shown and its box.
FIGURES_JS = """Array.from(document.querySelectorAll('figure')).map(f => {
  const img = f.querySelector('img'), r = f.getBoundingClientRect();
  return {id: f.id, ok: img.complete && img.naturalWidth > 0, shown: img.getBoundingClientRect().height,
          x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height};
})"""


if __name__ == "__main__":
    page, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    binary = find_browser()
    if binary is None:
        sys.exit("no Chromium found: apt-get install chromium")
    with Browser(binary) as b:
        b.open(page.as_uri(), width=int(sys.argv[3]) if len(sys.argv) > 3 else 1400)
        out.write_bytes(b.screenshot())
        print("\n".join(b.errors()) or f"{out}: no console errors")
