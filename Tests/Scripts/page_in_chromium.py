"""The control page in a real browser: Debian's chromium, headless, driven by
chromium-driver through selenium. Opens URL, checks what a person would, prints one JSON
object of what it saw, and saves a screenshot to SCREENSHOT (and -motion, -phone beside it).
Usage: page_in_chromium.py URL SCREENSHOT [ROTATE_FILE]
With ROTATE_FILE, after the first checks it writes "rotate" into that file and waits
for the video to turn (the test feeds the daemon's replayed accelerometer)."""
import json, sys, time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from chromium_page import Page, open_chromium

url, screenshot = sys.argv[1], sys.argv[2]
rotate_file = sys.argv[3] if len(sys.argv) > 3 else None

driver = open_chromium()
page = Page(driver)
js, wait = page.js, page.wait
seen = {}


try:
    opened = time.monotonic()
    driver.get(url)
    first = wait(lambda: js("return document.querySelector('#live').videoWidth") > 0, 30)
    seen["first_frame_ms"] = round((time.monotonic() - opened) * 1000) if first else None
    seen["video_width"] = js("return document.querySelector('#live').videoWidth")
    seen["video_height"] = js("return document.querySelector('#live').videoHeight")
    t0 = js("return document.querySelector('#live').currentTime")
    time.sleep(3)
    t1 = js("return document.querySelector('#live').currentTime")
    seen["current_time_advance"] = round(t1 - t0, 2)

    driver.find_element(By.ID, "still").click()
    seen["still_width"] = wait(lambda: js(
        "const i = document.querySelector('#still-image'); return i.complete && i.naturalWidth"), 30)

    driver.find_element(By.ID, "record").click()
    wait(lambda: "Stop" in driver.find_element(By.ID, "record").text, 20)
    time.sleep(3)
    driver.find_element(By.ID, "record").click()
    wait(lambda: "Start" in driver.find_element(By.ID, "record").text, 30)
    listed = wait(lambda: js(
        "return [...document.querySelectorAll('#recordings a')].map(a => a.textContent).filter(n => n.endsWith('.mp4'))"), 30)
    seen["recordings_listed"] = listed or []
    seen["thumbnail_width"] = wait(lambda: js(
        "const i = document.querySelector('#recordings img.thumbnail'); return i && i.complete && i.naturalWidth"), 30)
    seen["download_href"] = js(
        "const a = [...document.querySelectorAll('#recordings a')].find(a => a.textContent.endsWith('.mp4'));"
        " return a ? a.getAttribute('href') : null")

    # Motion ([motion] enabled; the ball moves): the state, a start's boxes over the view,
    # and a mask dragged on the view reaching the daemon, then cleared.
    seen["motion_state"] = wait(lambda: js(
        "const s = document.querySelector('#motion-state').textContent; return s === 'motion' && s"), 60) \
        or driver.find_element(By.ID, "motion-state").text
    seen["motion_boxes"] = js("return document.querySelectorAll('#motion-boxes rect.motion-box').length")
    seen["motion_box_drawn"] = js(
        "const r = document.querySelector('#motion-boxes rect'); if (!r) return false;"
        " const b = r.getBoundingClientRect(), o = document.querySelector('#overlay').getBoundingClientRect();"
        " return b.width > 0 && b.height > 0 && b.left >= o.left - 1 && b.right <= o.right + 1")
    driver.find_element(By.ID, "mask-draw").click()
    overlay = driver.find_element(By.ID, "overlay")
    size = overlay.size
    # From (10 %, 20 %) to (40 %, 70 %) of the picture: offsets are from the element's centre.
    w, h = size["width"], size["height"]
    ActionChains(driver).move_to_element_with_offset(overlay, round(-0.4 * w), round(-0.3 * h)) \
        .click_and_hold().move_by_offset(round(0.15 * w), round(0.25 * h)) \
        .move_by_offset(round(0.15 * w), round(0.25 * h)).release().perform()
    get_motion = ("const done = arguments[arguments.length - 1];"
                  " fetch('/motion', {credentials: 'same-origin'}).then(r => r.json()).then(done, e => done(String(e)))")
    masked = wait(lambda: (lambda m: m if m.get("mask") else None)(driver.execute_async_script(get_motion)), 20)
    seen["mask_after_drag"] = masked["mask"] if masked else []
    seen["mask_shown"] = js("return document.querySelectorAll('#mask-rects rect').length")
    seen["mask_line_shown"] = driver.find_element(By.ID, "mask-line").text
    driver.save_screenshot(screenshot.replace(".png", "-motion.png"))
    driver.find_element(By.ID, "mask-draw").click()
    driver.find_element(By.ID, "mask-clear").click()
    cleared = wait(lambda: (lambda m: m if m.get("mask") == [] else None)(driver.execute_async_script(get_motion)), 20)
    seen["mask_after_clear"] = cleared["mask"] if cleared else None

    if rotate_file:
        before = (seen["video_width"], seen["video_height"])
        with open(rotate_file, "w") as f:
            f.write("rotate\n")
        turned = wait(lambda: (js("return document.querySelector('#live').videoWidth"),
                               js("return document.querySelector('#live').videoHeight")) == (before[1], before[0]), 30)
        seen["rotated_width"] = js("return document.querySelector('#live').videoWidth")
        seen["rotated_height"] = js("return document.querySelector('#live').videoHeight")
        seen["angle_shown"] = driver.find_element(By.ID, "angle").text
        seen["rotated"] = bool(turned)
    seen["error_shown"] = driver.find_element(By.ID, "error").text
    seen["viewers_shown"] = driver.find_element(By.ID, "viewers").text
    # The controls panel: the test camera has none, and the panel says why.
    seen["controls_reason"] = driver.find_element(By.ID, "controls-reason").text

    # A phone's screen (390 CSS pixels wide): nothing wider than the screen, the video and
    # the buttons inside it.
    driver.set_window_size(390, 844)
    time.sleep(1)
    seen["phone_overflow_px"] = js("return document.documentElement.scrollWidth - window.innerWidth")
    seen["phone_outside"] = js(
        "return ['#live', '#still', '#record', '#clip'].filter(s => {"
        " const r = document.querySelector(s).getBoundingClientRect();"
        " return r.width === 0 || r.left < 0 || r.right > window.innerWidth; })")
    driver.save_screenshot(screenshot.replace(".png", "-phone.png"))
finally:
    driver.save_screenshot(screenshot)
    driver.quit()
print(json.dumps(seen), flush=True)
