"""Headless Chromium (the Debian package) driven over the DevTools protocol, for the tests that look
at pages a person sees: the OAuth pages (test_oauth_browser.py) and the MCP Apps views
(test_views_browser.py). Screenshots go to tests/clients/screenshots/ (git-ignored)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from harness import HERE

SCREENSHOTS = HERE / "screenshots"


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    # CI installs it (tests/setup-system.sh as root): there a missing browser is a failure.
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed, and CI must have it (tests/setup-system.sh)", pytrace=False)
    pytest.skip("chromium is not installed (tests/setup-system.sh installs it as root)")


class Browser:
    """One Chromium page driven over the DevTools protocol."""

    def __init__(self) -> None:
        import websocket  # websocket-client

        self.profile = Path(tempfile.mkdtemp(prefix="kd-chromium-"))
        self.proc = subprocess.Popen(
            [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-dev-shm-usage", "--remote-debugging-port=0", "--window-size=1000,1100",
             "--lang=pt-BR", f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list").read())
        page = next(t for t in targets if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self.next_id = 0

    def send(self, method: str, session: str | None = None, **params):
        """One DevTools command, to the page or to an attached frame's `session`."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        while True:
            answer = json.loads(self.ws.recv())
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def eval(self, expression: str):
        return self.send("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def wait_for(self, predicate: str, what: str) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if self.eval(f"document.readyState === 'complete' && ({predicate})"):
                    return
            except RuntimeError:
                pass  # the page is navigating
            time.sleep(0.1)
        raise AssertionError(f"page never showed {what}: {self.eval('location.href')} {self.text()[:500]}")

    def text(self) -> str:
        return self.eval("document.body ? document.body.innerText : ''") or ""

    def type_into(self, selector: str, text: str) -> None:
        self.eval(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", text=text)

    def click(self, selector: str) -> None:
        self.eval(f"document.querySelector({json.dumps(selector)}).click()")

    def frame_eval(self, expression: str, name: str = ""):
        """Evaluates in an iframe of the page (the one whose `window.name` is `name`; a view's
        has none), in an isolated world of its own: the frame's DOM, none of its script's
        globals, so a view cannot fake what the test reads. A sandboxed iframe runs in a process
        of its own, so it is a target of its own that the test attaches to."""
        sessions = self.__dict__.setdefault("_sessions", {})
        worlds = self.__dict__.setdefault("_worlds", {})
        targets = [t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "iframe"]
        for target in targets:
            if target["targetId"] not in sessions:
                sessions[target["targetId"]] = self.send("Target.attachToTarget", targetId=target["targetId"],
                                                         flatten=True)["sessionId"]
            session = sessions[target["targetId"]]
            frame = self.send("Page.getFrameTree", session=session)["frameTree"]["frame"]
            # One world per document: a new document (srcdoc loaded) has a new loader.
            key = (frame["id"], frame.get("loaderId"))
            if key not in worlds:
                worlds[key] = self.send("Page.createIsolatedWorld", session=session, frameId=frame["id"],
                                        worldName="kd-test")["executionContextId"]
            context = worlds[key]
            if self._evaluate(session, context, "window.name") != name:
                continue
            self._last_frame_session = session
            return self._evaluate(session, context, expression)
        raise RuntimeError(f"the page has no iframe named {name!r}")

    def _evaluate(self, session: str, context: int, expression: str):
        result = self.send("Runtime.evaluate", session=session, expression=expression, contextId=context,
                           returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails'].get('exception', {}).get('description')}")
        return result["result"].get("value")

    def frame_wait_for(self, predicate: str, what: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                if self.frame_eval(predicate):
                    return
            except RuntimeError as e:
                last = e  # the view is not there yet
            time.sleep(0.1)
        state = self.eval("JSON.stringify(window.hostLog || [])")
        raise AssertionError(f"the view never showed {what} ({last}); host log: {str(state)[:1500]}")

    def click_at(self, x: float, y: float) -> None:
        """A real mouse click at a point of the page."""
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def press(self, key: str, code: int, in_frame: bool = False) -> None:
        """A real key press, to whatever has the focus (`in_frame`: in the iframe last evaluated
        in, whose process gets its own input)."""
        session = self._last_frame_session if in_frame else None
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", session=session, type=kind, key=key, code=key,
                      windowsVirtualKeyCode=code, nativeVirtualKeyCode=code,
                      **({"text": "\r"} if key == "Enter" and kind == "keyDown" else {}))

    def screenshot_clip(self, clip: dict, name: str) -> Path:
        """A screenshot of a rectangle of the page."""
        data = self.send("Page.captureScreenshot", format="png", clip={**clip, "scale": 1},
                         captureBeyondViewport=True)["data"]
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / name
        path.write_bytes(base64.b64decode(data))
        return path

    def screenshot_of(self, selector: str, name: str) -> Path:
        """A screenshot of one element of the page (the view's iframe), at its full height."""
        box = self.eval(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                        " return {x: r.x, y: r.y, width: r.width, height: r.height}; })()")
        self.send("Emulation.setDeviceMetricsOverride", width=1000, height=int(box["y"] + box["height"] + 40),
                  deviceScaleFactor=1, mobile=False)
        clip = {**box, "scale": 1}
        data = self.send("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)["data"]
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / name
        path.write_bytes(base64.b64decode(data))
        return path

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(exist_ok=True)
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path = SCREENSHOTS / name
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)
