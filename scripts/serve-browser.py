#!/usr/bin/env python3
"""The page of `retro serve` in a real browser: Debian's chromium, headless, driven through
WebDriver (chromium-driver) by selenium.

    apt-get install chromium chromium-driver && pip install selenium
    scripts/serve-browser.py --bin target/release/retro --tables DIR --out /tmp/shots

Starts `retro serve` on a free port, then:
 1. loads /?fen=<a KRvK position>: the move list must show the table's DTM of every move, in
    the order and with the values /standard answers;
 2. clicks the best move: the board (its FEN box) and the list must change to the position after
    it;
 2b. drags a black knight from the palette onto a8 and the rook off the board: the FEN and the
    move list must follow;
 3. pastes a FEN without a black king: the page must say why it is refused;
 4. asks the legality panel about a reachable position (a proof game to step through) and an
    unreachable one (a bishop that cannot have left its square).
A screenshot is saved after each step. Exits 1 on the first failed check.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from serve_common import start_server
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

KRVK = "8/8/8/4k3/8/8/8/4K2R w - - 0 1"
NO_KING = "8/8/8/8/8/8/8/K7 w - - 0 1"
REACHABLE = "rnbqkbnr/ppp1pppp/8/3p4/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
TRAPPED_BISHOP = "rnbqkbnr/pppppppp/8/8/8/4B3/PPPPPPPP/RN1QKBNR w KQkq - 0 1"


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        raise SystemExit(1)


def api(base, path, fen):
    url = f"{base}{path}?fen={urllib.parse.quote(fen)}"
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


def rows(driver):
    out = []
    for tr in driver.find_elements(By.CSS_SELECTOR, "#moves tbody tr"):
        cells = [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        out.append((tr.get_attribute("data-uci"), cells))
    return out


def set_fen(driver, fen):
    box = driver.find_element(By.ID, "fen")
    box.clear()
    box.send_keys(fen)
    driver.find_element(By.CSS_SELECTOR, "#fen-form button").click()


def ask_legality(driver, wait, fen):
    """Sets `fen`, presses the legality button and returns the panel's verdict line."""
    set_fen(driver, fen)
    wait.until(lambda d: len(rows(d)) > 0)
    driver.find_element(By.ID, "check-legal").click()
    wait.until(lambda d: d.find_element(By.ID, "legal-out").text.startswith(("legal", "illegal", "unknown")))
    return driver.find_element(By.ID, "legal-out").text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/retro")
    ap.add_argument("--tables", required=True)
    ap.add_argument("--out", default="browser-shots")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    server, addr = start_server(args.bin, args.tables)
    base = f"http://{addr}"
    print(f"server: {base}")

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
              "--no-first-run", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--window-size=1280,900"]:
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    wait = WebDriverWait(driver, 20)
    try:
        # 1. The move list of a KRvK position shows each move's DTM, as /standard answers.
        driver.get(f"{base}/?fen={KRVK.replace(' ', '_')}")
        wait.until(lambda d: len(rows(d)) > 0)
        expected = api(base, "/standard", KRVK)
        shown = rows(driver)
        check(len(shown) == len(expected["moves"]),
              f"KRvK: {len(shown)} moves listed, /standard has {len(expected['moves'])}")
        same = all(
            uci == mv["uci"] and cells[0] == mv["san"]
            and cells[2] == ("#" if mv["checkmate"] else str(abs(mv["dtm"])))
            for (uci, cells), mv in zip(shown, expected["moves"]))
        check(same, "KRvK: every row's move and DTM equal /standard's, in its order")
        status = driver.find_element(By.ID, "status").text
        check(f"mates in {expected['dtm']} plies" in status, f"KRvK status: {status!r}")
        print("rows:", "; ".join(f"{c[0]} {c[1]} DTM {c[2]} DTZ {c[3]}" for _, c in shown[:5]), "...")
        driver.save_screenshot(os.path.join(args.out, "1-krvk.png"))

        # 2. Clicking the best move plays it.
        best = expected["moves"][0]
        driver.find_element(By.CSS_SELECTOR, "#moves tbody tr").click()
        wait.until(lambda d: d.find_element(By.ID, "fen").get_attribute("value") == best["fen"])
        after = api(base, "/standard", best["fen"])
        wait.until(lambda d: [u for u, _ in rows(d)] == [mv["uci"] for mv in after["moves"]])
        check(True, f"clicked {best['san']}: board at {best['fen']}, "
                    f"{len(after['moves'])} replies listed as /standard ranks them")
        check("fen=" in driver.current_url, f"the URL holds the FEN: {driver.current_url}")
        driver.save_screenshot(os.path.join(args.out, "2-after-best-move.png"))

        # 2b. Set up by dragging: a black knight from the palette to a8, then the white rook
        # off the board.
        from selenium.webdriver.common.action_chains import ActionChains
        knight = driver.find_element(By.CSS_SELECTOR, '#palette-black .piece[data-piece="n"]')
        a8 = driver.find_element(By.CSS_SELECTOR, '#board .sq[data-square="a8"]')
        ActionChains(driver).click_and_hold(knight).move_to_element(a8).release().perform()
        wait.until(lambda d: d.find_element(By.ID, "fen").get_attribute("value").startswith("n7/"))
        fen_now = driver.find_element(By.ID, "fen").get_attribute("value")
        expected = api(base, "/standard", fen_now)
        wait.until(lambda d: [u for u, _ in rows(d)] == [mv["uci"] for mv in expected["moves"]])
        check(True, f"knight dragged to a8: {fen_now}, {len(expected['moves'])} moves listed "
                    f"({expected['category']} for the side to move)")
        rook = driver.find_element(By.CSS_SELECTOR, '#board .sq[data-square="h5"] .piece')
        header = driver.find_element(By.TAG_NAME, "header")
        ActionChains(driver).click_and_hold(rook).move_to_element(header).release().perform()
        wait.until(lambda d: "R" not in d.find_element(By.ID, "fen").get_attribute("value").split()[0])
        fen_now = driver.find_element(By.ID, "fen").get_attribute("value")
        check(True, f"rook dragged off the board: {fen_now}")
        driver.save_screenshot(os.path.join(args.out, "2b-dragged.png"))

        # 3. An illegal FEN pasted: the page says why.
        set_fen(driver, NO_KING)
        wait.until(lambda d: "error" in d.find_element(By.ID, "status").get_attribute("class"))
        status = driver.find_element(By.ID, "status").text
        check("king" in status, f"illegal FEN refused with: {status!r}")
        driver.save_screenshot(os.path.join(args.out, "3-illegal-fen.png"))

        # 4. The legality panel: a proof game for a reachable position, a proof for the other.
        verdict = ask_legality(driver, wait, REACHABLE)
        check(verdict.startswith("legal"), f"reachable position: {verdict!r}")
        plies = len(driver.find_elements(By.CSS_SELECTOR, "#proof-moves li"))
        driver.find_element(By.ID, "proof-next").click()
        driver.find_element(By.ID, "proof-next").click()
        ply = driver.find_element(By.ID, "proof-ply").text
        check(plies > 0 and ply == f"ply 2 of {plies}", f"proof game of {plies} plies, stepped to {ply!r}")
        driver.save_screenshot(os.path.join(args.out, "4-proof-game.png"))

        verdict = ask_legality(driver, wait, TRAPPED_BISHOP)
        check(verdict.startswith("illegal"), f"trapped bishop: {verdict!r}")
        driver.save_screenshot(os.path.join(args.out, "5-illegal-position.png"))
        print(f"screenshots in {args.out}")
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
