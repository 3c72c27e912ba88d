"""A real JupyterLab server on 127.0.0.1 and headless Chromium (Selenium), for the browser tests.

Everything a session writes (settings, trust database, runtime files, browser profile) goes
into a temporary folder; the server is started and stopped by the caller (a pytest fixture).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
DRIVER_NAMES = ("chromedriver", "chromium.chromedriver")


def find_program(names, what):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError(f"{what} is not installed: apt-get install chromium chromium-driver (.ci/run does it)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lab_env(home):
    """Environment of a Lab server (and `jupyter trust`) isolated under ``home``."""
    home = Path(home)
    env = dict(os.environ)
    env.pop("SVMLIB_BOOK_BUILD", None)  # the reader's kernel: live explorers
    for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                     ("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                     ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"), ("IPYTHONDIR", "ipython")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(home / sub)
    settings = home / "settings"
    # Render every cell (no windowing), so the whole notebook is in the DOM; no news pop-up.
    for plugin, values in (("@jupyterlab/notebook-extension/tracker", {"windowingMode": "none"}),
                           ("@jupyterlab/apputils-extension/notification", {"fetchNews": "false",
                                                                           "checkForUpdates": False})):
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env["TQDM_DISABLE"] = "1"
    return env


class LabServer:
    """``jupyter lab`` serving ``root`` on 127.0.0.1 (no token), stopped by :meth:`stop`."""

    def __init__(self, root, home, trusted=()):
        self.root, self.home = Path(root), Path(home)
        self.env = lab_env(self.home)
        # Sign before the server starts: a server that starts first may create its own notebook secret
        # while `jupyter trust` creates another, and then the signature does not verify (a flaky
        # "trusted" notebook that Lab treats as untrusted).
        for notebook in trusted:
            self.trust(notebook)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(self.home / "lab.log", "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
             f"--ServerApp.root_dir={self.root}", "--IdentityProvider.token=", "--ServerApp.password=",
             "--LabApp.expose_app_in_browser=True", "--ServerApp.disable_check_xsrf=True",
             "--LabServerApp.news_url=", "--ServerApp.open_browser=False", "--allow-root"],
            env=self.env, stdout=self.log, stderr=subprocess.STDOUT, cwd=self.root)
        deadline = time.time() + 90
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited: {(self.home / 'lab.log').read_text()[-2000:]}")
            try:
                urllib.request.urlopen(f"{self.url}/api/status", timeout=2)
                return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError("jupyter lab did not answer within 90 s")

    def trust(self, notebook):
        subprocess.run([sys.executable, "-m", "jupyter", "trust", str(notebook)], env=self.env, check=True,
                       capture_output=True)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


def chrome(profile, width=1280, height=2000):
    """Headless Chromium through Debian's chromedriver (no driver download)."""
    options = webdriver.ChromeOptions()
    options.binary_location = find_program(CHROMIUM_NAMES, "Chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--window-size={width},{height}", f"--user-data-dir={profile}",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=find_program(DRIVER_NAMES, "chromedriver"))
    return webdriver.Chrome(options=options, service=service)


def wait_for(predicate, timeout=60, interval=0.25, what="condition"):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except Exception as err:  # noqa: BLE001 -- the DOM changes under us; retry
            last = err
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


def open_notebook(driver, server, name, every_cell=True):
    """Open ``name`` alone in Lab and wait until its markdown is rendered and stable."""
    # a fresh workspace per notebook: nothing else is restored next to it
    server.n_opened = getattr(server, "n_opened", 0) + 1
    driver.get(f"{server.url}/lab/workspaces/test{server.n_opened}/tree/{name}?reset")
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell"), 90,
             what="notebook cells")
    state = {"text": None, "since": time.time()}

    def settled():
        text = notebook_text(driver)
        if text != state["text"]:
            state.update(text=text, since=time.time())
            return False
        return (time.time() - state["since"] > 2.5 and "```{" not in text
                and (not every_cell or all_markdown_rendered(driver)))

    wait_for(settled, 240, interval=0.5, what="the notebook to finish rendering")  # slow on a loaded machine


def all_markdown_rendered(driver):
    """Every markdown cell shows jupyterlab-myst's rendering (or the placeholder of a collapsed cell).

    On a loaded machine the last cells of a long chapter can render seconds after the text above them
    has settled; a check that reads captions or equation numbers must wait for them.
    """
    return driver.execute_script(
        "return [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell')]"
        ".every(c => c.querySelector('.myst') || c.querySelector('.jp-InputPlaceholder'));")


def notebook_text(driver):
    """The text a reader sees in the notebook panel (visible elements only)."""
    return driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").text


def shut_down_kernels(server):
    """Stop every kernel of ``server`` (Lab starts one per opened notebook; a dozen idle ones slow the machine)."""
    with urllib.request.urlopen(f"{server.url}/api/kernels", timeout=10) as answer:
        kernels = json.load(answer)
    for kernel in kernels:
        request = urllib.request.Request(f"{server.url}/api/kernels/{kernel['id']}", method="DELETE")
        urllib.request.urlopen(request, timeout=10).close()
