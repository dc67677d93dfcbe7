"""The pages in a real browser: Debian's Chromium driven by Playwright against a served app."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.web.server import save_arena_run, serving

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
    folder = tmp_path_factory.mktemp("web")
    db, run = folder / "games.db", folder / "contest.json"
    save_arena_run(run)
    with serving(f"sqlite:///{db}", "--arena", str(run)) as (url, _process):
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
            page.wait_for_function("document.querySelectorAll('#placement .cell.ship').length === 17")
            page.mouse.move(1000, 850)  # off the board: no ship preview in the picture
            page.screenshot(path=str(SHOTS / "placement.png"))
        else:
            page.click("#random")
        page.wait_for_function("document.querySelectorAll('#placement .cell.ship').length === 17")
        page.click("#start")
        page.wait_for_selector("#enemy .cell")
        assert page.text_content("#turn").startswith("Your turn")
        check_coordinates_and_names(page)
        refused = refuse_the_next_shot_once(page) if mode == "random" else []
        page.click("#enemy .cell[data-cell='44']")
        page.wait_for_function("document.querySelector('#message').textContent.includes('fired at')")
        assert refused == [] or refused == [429], refused  # refused once, asked again, then played
        page.unroute("**/api/games/*/fire")
        said = page.get_attribute("#enemy .cell[data-cell='44']", "aria-label")
        assert said in ("E5, miss", "E5, hit") or said.startswith("E5, sunk"), said
        page.check("#playforme")
        page.wait_for_selector("#again:not(.hidden)", timeout=120_000)
        message = page.text_content("#turn")
        assert "won" in message or "The computer won" in message, message
        assert page.locator("#enemy .cell.revealed").count() == 17
        assert int(page.text_content("#my-shots")) >= 17
        if mode == "best":
            page.screenshot(path=str(SHOTS / "game.png"), full_page=True)
            replay_the_game(page)
    page.goto(server + "/stats")
    page.wait_for_function("document.querySelector('#total').textContent.startsWith('4 played')")
    assert page.locator("#modes tbody tr").count() == 4
    page.wait_for_function("window.Chart && Chart.getChart('winrate') && Chart.getChart('lengths')")
    titles = page.evaluate(
        "[Chart.getChart('lengths').options.scales.x.title.text, Chart.getChart('lengths').options.scales.y.title.text]"
    )
    assert titles == ["moves in the game (both sides' shots)", "share of the mode's games (%)"]
    hover_first_bar(page, "winrate")
    page.screenshot(path=str(SHOTS / "stats.png"), full_page=True)


def refuse_the_next_shot_once(page) -> list[int]:
    """Answer the next shot 429 with Retry-After 1, as the rate limiter would; returns what was refused."""
    refused: list[int] = []

    def handle(route):
        if refused:
            route.continue_()
            return
        refused.append(429)
        route.fulfill(status=429, headers={"Retry-After": "1"}, json={"detail": "too many requests"})

    page.route("**/api/games/*/fire", handle)
    return refused


def hover_first_bar(page, chart: str, horizontal: bool = False):
    """Move the mouse to the middle of a bar chart's first bar and wait for its tooltip."""
    box = page.locator(f"#{chart}").bounding_box()
    middle = "({x: (x + base) / 2, y})" if horizontal else "({x, y: (y + base) / 2})"
    bar = page.evaluate(
        f"(({{x, y, base}}) => {middle})(Chart.getChart('{chart}').getDatasetMeta(0).data[0])"
    )
    page.mouse.move(box["x"] + bar["x"], box["y"] + bar["y"])
    page.wait_for_function(f"Chart.getChart('{chart}').tooltip.getActiveElements().length > 0")


def check_coordinates_and_names(page):
    """Both boards have A-J and 1-10 around them, rows and cells as a screen reader needs them."""
    for board in ("#enemy", "#own"):
        assert page.locator(f"{board} [role=columnheader]").all_text_contents()[1:] == [
            str(c) for c in range(1, 11)
        ]
        assert page.locator(f"{board} [role=rowheader]").all_text_contents() == list("ABCDEFGHIJ")
        assert page.locator(f"{board} [role=row]").count() == 11
        assert page.locator(f"{board} [role=gridcell]").count() == 100
    assert page.get_attribute("#enemy .cell[data-cell='0']", "aria-label") == "A1, not fired at"
    assert page.locator("#own .cell[aria-label$='your ship']").count() == 17


def replay_the_game(page):
    """The replay page: step, play, pause, the move list, the heat map beside the board, a shareable link."""
    page.click("#replaylink")
    page.wait_for_url("**/replay?game=*")
    page.wait_for_function(
        "document.querySelectorAll('#heat .cell').length === 100 && document.querySelector('#heat .cell').textContent.length > 0"
    )
    moves = page.locator("#moves li").count()
    assert moves >= 34 and page.locator("#moves li").first.text_content().startswith("Player: (")
    page.click("#forward")
    page.click("#forward")
    page.wait_for_function("location.search.endsWith('move=2')")
    assert (
        page.locator("#board .cell.miss, #board .cell.hit, #board .cell.sunk").count() == 1
    )  # the computer's first shot
    page.click("#play")
    page.wait_for_function("Number(document.querySelector('#slider').value) >= 4", timeout=30_000)
    page.click("#play")  # pause
    held = page.input_value("#slider")
    page.wait_for_timeout(1500)
    assert page.input_value("#slider") == held
    page.click("#moves li:nth-child(10)")
    page.wait_for_function("location.search.endsWith('move=10')")
    link = page.url
    page.screenshot(path=str(SHOTS / "replay.png"), full_page=True)
    page.goto(link)  # the link opens the same move
    page.wait_for_function("document.querySelector('#slider').value === '10'")
    page.wait_for_function("document.querySelector('#heat .cell').textContent.length > 0")
    assert (
        page.locator("#moves li.current").text_content()
        == page.locator("#moves li:nth-child(10)").text_content()
    )


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
    for path in ("/", "/calc", "/stats", "/replay", "/arena"):
        page.goto(server + path)
        page.wait_for_load_state("networkidle")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, (path, overflow)
    page.goto(server + "/")
    page.wait_for_function("document.querySelectorAll('#placement .cell').length === 100")
    page.click("#random")
    page.wait_for_function("document.querySelectorAll('#placement .cell.ship').length === 17")
    page.screenshot(path=str(SHOTS / "phone.png"), full_page=True)


@pytest.mark.slow
def test_the_arena_page_shows_a_saved_run(server, browser):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(server + "/arena")
    page.wait_for_function("document.querySelectorAll('#board tbody tr').length === 3")
    assert "contest" in page.input_value("#runs") and "run=contest" in page.url
    first = page.inner_text("#board tbody tr:first-child")
    assert "density" in first and "(95% CI)" not in first
    assert page.inner_text("#forfeits").count("crash") >= 1  # the crashing bot's game, and why
    assert len(page.query_selector_all("#matches tbody tr")) == 3
    assert len(page.query_selector_all("#ratings tbody tr")) == 3 and "Key " in page.inner_text("#key")
    page.wait_for_function("window.Chart && Chart.getChart('means')")
    hover_first_bar(page, "means", horizontal=True)
    page.screenshot(path=str(SHOTS / "arena.png"), full_page=True)
