"""Real headless Chromium driven over the Chrome DevTools protocol, for tests of HTML pages.

Started by :class:`Browser` on a page, with its own profile directory and a debugging port
chosen by Chromium (read back from ``DevToolsActivePort``); stopped by :meth:`Browser.close`
(its own process, by PID). Needs Debian's ``chromium`` package (``make setup`` installs it)
and the ``websocket-client`` package.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

BINARIES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium_or_skip() -> str:
    """The Chromium binary; a skip naming the fix when there is none, a failure under CI."""
    for name in BINARIES:
        if found := shutil.which(name):
            return found
    reason = ("no Chromium binary found (tried " + ", ".join(BINARIES) + "): install Debian's "
              "package with `apt-get install -y chromium` (`make setup` does)")
    if os.environ.get("CI") or os.environ.get("CREVAL_REQUIRE_BROWSER"):
        pytest.fail(reason)
    pytest.skip(reason)


class Browser:
    """One headless Chromium showing ``url``."""

    def __init__(self, binary: str, url: str, profile: Path, *, width: int = 1280, height: int = 900) -> None:
        import websocket  # websocket-client

        profile.mkdir(parents=True, exist_ok=True)
        (profile / "DevToolsActivePort").unlink(missing_ok=True)  # a reused profile's old port
        self.log = profile / "chromium.log"
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [binary, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                 "--disable-dev-shm-usage", "--disable-extensions", "--hide-scrollbars",
                 f"--user-data-dir={profile}", "--remote-debugging-port=0",
                 "--remote-allow-origins=*", f"--window-size={width},{height}", url],
                stdout=log, stderr=subprocess.STDOUT,
            )
        self._ids = itertools.count(1)
        try:
            port = self._port(profile / "DevToolsActivePort")
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                pages = [t for t in json.load(r) if t.get("type") == "page"]
            self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=30)
        except BaseException:
            self.close()
            raise

    def _port(self, path: Path, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited: {self.log.read_text(errors='replace')[-2000:]}")
            if path.exists() and path.read_text().strip():
                return int(path.read_text().split()[0])
            time.sleep(0.1)
        raise RuntimeError("chromium did not open its debugging port")

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """One protocol command; its result (events in between are skipped)."""
        ident = next(self._ids)
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    def js(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (exceptions fail the test)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30) -> Any:
        """The first truthy value of ``expression``; it may throw until the page has loaded."""
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            try:
                value = self.js(expression)
            except AssertionError as exc:  # for example document.body still null
                value, last = None, str(exc)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {expression} {last}")

    def type_text(self, text: str) -> None:
        """Type into the focused element as a keyboard would (input events included)."""
        self.send("Input.insertText", text=text)

    def screenshot(self, path: Path, *, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params |= {"captureBeyondViewport": True,
                       "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"],
                                "scale": 1}}
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", **params)["data"]))
        return path

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            ws.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
