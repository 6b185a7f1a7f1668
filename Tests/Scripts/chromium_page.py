"""Debian's chromium, headless, driven by chromium-driver through selenium, for the page
tests: one browser made as they all want it, and the two helpers they use on it."""
import random
import socket
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def open_chromium():
    options = webdriver.ChromeOptions()
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", "--window-size=1200,900",
                 # Host candidates as addresses, not mDNS names nobody here resolves.
                 "--disable-features=WebRtcHideLocalIpsWithMdns"]:
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    # Selenium's own choice of port is a free ephemeral one, which another process's
    # outgoing connection can take before chromedriver binds it (seen on a busy machine):
    # a port below the ephemeral range is taken only by a listener; a start that fails
    # anyway is tried again on another port.
    for attempt in range(3):
        try:
            return webdriver.Chrome(service=Service("/usr/bin/chromedriver", port=_listening_port()), options=options)
        except Exception:
            if attempt == 2:
                raise


def _listening_port():
    """A port below the kernel's ephemeral range that nothing listens on now."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral = int(f.read().split()[0])
    for _ in range(100):
        port = random.randrange(10000, max(10001, ephemeral))
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError("no free port below %d on 127.0.0.1" % ephemeral)


class Page:
    """A driver with `js` (run a script, its result) and `wait` (a condition's first truthy value)."""

    def __init__(self, driver):
        self.driver = driver

    def js(self, script):
        return self.driver.execute_script(script)

    def wait(self, condition, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.1)
        return None
