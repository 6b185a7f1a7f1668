"""Debian's chromium, headless, driven by chromium-driver through selenium, for the page
tests: one browser made as they all want it, and the two helpers they use on it."""
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
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


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
