"""Signing in to the control page in a real browser (Debian's chromium, headless, by
chromium-driver through selenium) when `plumb serve` has an [http] token: the page asks
for it once, a wrong one is refused in the API's words, the right one is traded for a
session cookie the page's script cannot read, and everything — the video, the events, a
still, a reload — works on that cookie alone. Prints one JSON object of what it saw and
saves a screenshot. Usage: page_sign_in.py URL TOKEN SCREENSHOT"""
import json, sys, time

from selenium.webdriver.common.by import By

from chromium_page import Page, open_chromium

url, token, screenshot = sys.argv[1], sys.argv[2], sys.argv[3]

driver = open_chromium()
page = Page(driver)
js, wait = page.js, page.wait
seen = {}


def login_shown():
    return not js("return document.querySelector('#login').hidden")


def sign_in(text):
    field = driver.find_element(By.ID, "token")
    field.clear()
    field.send_keys(text)
    driver.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()


def plays():
    """The live view's width once it plays and how far it advanced in 2 s."""
    width = wait(lambda: js("return document.querySelector('#live').videoWidth"), 30)
    t0 = js("return document.querySelector('#live').currentTime")
    time.sleep(2)
    return width, round(js("return document.querySelector('#live').currentTime") - t0, 2)


try:
    driver.get(url)
    seen["asked_for_token"] = bool(wait(login_shown, 20))
    seen["video_before_sign_in"] = js("return document.querySelector('#live').videoWidth")

    sign_in(token + "-wrong")
    seen["wrong_token_error"] = wait(lambda: driver.find_element(By.ID, "error").text, 20) or ""
    seen["asked_again_after_wrong"] = login_shown()

    sign_in(token)
    seen["signed_in"] = bool(wait(lambda: not login_shown(), 20))
    seen["token_field_after"] = js("return document.querySelector('#token').value")
    seen["video_width"], seen["current_time_advance"] = plays()
    seen["angle_shown"] = wait(lambda: driver.find_element(By.ID, "angle").text.strip("–") and
                               driver.find_element(By.ID, "angle").text, 20)
    # An EventSource as the page makes one (it cannot send a header): open on the cookie alone.
    js("window.probe = new EventSource('/events'); window.probe.onopen = () => { window.probeOpen = true; };")
    seen["events_open"] = bool(wait(lambda: js("return window.probeOpen === true"), 20))
    js("window.probe.close()")
    driver.find_element(By.ID, "still").click()
    seen["still_width"] = wait(lambda: js(
        "const i = document.querySelector('#still-image'); return i.complete && i.naturalWidth"), 30)
    seen["error_after_sign_in"] = driver.find_element(By.ID, "error").text

    # What the page could leak: its script's view of cookies, its storage, every URL it asked for.
    seen["document_cookie"] = js("return document.cookie")
    seen["storage"] = js("return JSON.stringify(localStorage) + JSON.stringify(sessionStorage)")
    seen["requested_urls"] = js("return performance.getEntriesByType('resource').map(e => e.name)") + [driver.current_url]
    seen["cookies"] = [{"name": c["name"], "httpOnly": c.get("httpOnly"), "sameSite": c.get("sameSite"),
                        "path": c.get("path"), "value_is_token": c.get("value") == token}
                       for c in driver.get_cookies()]

    driver.refresh()
    time.sleep(1)
    seen["asked_after_reload"] = login_shown()
    seen["reload_video_width"], seen["reload_time_advance"] = plays()
finally:
    driver.save_screenshot(screenshot)
    driver.quit()
print(json.dumps(seen), flush=True)
