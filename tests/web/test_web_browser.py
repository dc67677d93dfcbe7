"""The pages in a real browser: Debian's Chromium driven by Playwright against a served app."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.web.server import serving

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "out" / "screenshots"  # the README shows copies in docs/
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("web") / "games.db"
    with serving(f"sqlite:///{db}") as (url, _process):
        yield url


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


@pytest.mark.slow
def test_place_ships_and_play_whole_games_in_every_mode(server, browser):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    SHOTS.mkdir(parents=True, exist_ok=True)
    for mode in ("random", "probability", "best", "learning"):
        page.goto(server + "/")
        page.select_option("#mode", mode)
        if mode == "random":  # place a ship by hand, rotated, then take a random layout instead
            page.keyboard.press("r")
            page.click("#placement .cell[data-cell='0']")
            assert page.locator("#placement .cell.ship").count() == 5
            page.click("#random")
            page.screenshot(path=str(SHOTS / "placement.png"))
        else:
            page.click("#random")
        page.wait_for_function("document.querySelectorAll('#placement .cell.ship').length === 17")
        page.click("#start")
        page.wait_for_selector("#enemy .cell")
        page.click("#enemy .cell[data-cell='44']")
        page.wait_for_function("document.querySelector('#message').textContent.includes('fired at')")
        page.check("#playforme")
        page.wait_for_selector("#again:not(.hidden)", timeout=120_000)
        message = page.text_content("#message")
        assert "won" in message or "The computer won" in message, message
        assert page.locator("#enemy .cell.revealed").count() == 17
        if mode == "best":
            page.screenshot(path=str(SHOTS / "game.png"), full_page=True)
    page.goto(server + "/stats")
    page.wait_for_function("document.querySelector('#total').textContent.startsWith('4 finished')")
    assert page.locator("#modes tbody tr").count() == 4
    page.screenshot(path=str(SHOTS / "stats.png"), full_page=True)


def test_calculator_click_cycle_and_heat_map(server, browser):
    page = browser.new_page(viewport={"width": 900, "height": 900})
    page.goto(server + "/calc")
    page.wait_for_function("document.querySelector('#summary').textContent.includes('layouts left')")
    assert "30,093,975,536" in page.text_content("#summary")
    cell = page.locator("#board .cell[data-cell='44']")
    cell.click()
    page.wait_for_function(
        "document.querySelector('#board .cell[data-cell=\"44\"]').classList.contains('miss')"
    )
    cell.click()
    page.wait_for_function(
        "document.querySelector('#board .cell[data-cell=\"44\"]').classList.contains('hit')"
    )
    page.wait_for_function("!document.querySelector('#summary').textContent.includes('30,093,975,536')")
    best = page.locator("#board .cell.best")
    assert best.count() >= 1
    page.check("#percent")
    page.wait_for_function("document.querySelector('#board .cell[data-cell=\"45\"]').textContent.length > 0")
    page.screenshot(path=str(SHOTS / "calc.png"), full_page=True)


@pytest.mark.slow
def test_every_page_fits_a_phone_screen(server, browser):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    for path in ("/", "/calc", "/stats"):
        page.goto(server + path)
        page.wait_for_load_state("networkidle")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, (path, overflow)
    page.goto(server + "/")
    page.wait_for_function("document.querySelectorAll('#placement .cell').length === 100")
    page.click("#random")
    page.wait_for_function("document.querySelectorAll('#placement .cell.ship').length === 17")
    page.screenshot(path=str(SHOTS / "phone.png"), full_page=True)
