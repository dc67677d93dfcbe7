"""The pages in a real browser: Debian's Chromium driven by Playwright against a served app, at desktop and
phone sizes (390 x 844), two browsers playing each other, the API docs with the network cut off."""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
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
    "--autoplay-policy=no-user-gesture-required",
]
DESKTOP = {"viewport": {"width": 1100, "height": 900}}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
LONG = 120_000  # ms: a whole game on a busy machine

playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The served app's base URL and its database's URL (for a test that moves a clock back in time)."""
    folder = tmp_path_factory.mktemp("web")
    db, run = folder / "games.db", folder / "contest.json"
    save_arena_run(run)
    with serving(f"sqlite:///{db}", "--arena", str(run), "--rate-limit", "") as (url, _process):
        yield url, f"sqlite:///{db}"


@pytest.fixture(scope="module")
def server(served):
    return served[0]


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def open_page(browser):
    """``open_page(size, **context options)``: a page in a new browser context (closed afterwards)."""
    contexts = []

    def make(size: str = "desktop", **options):
        context = browser.new_context(**SIZES[size], **options)
        contexts.append(context)
        page = context.new_page()
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
        return page

    yield make
    for context in contexts:
        context.close()


def shoot(page, name: str, full: bool = True, keep_mouse: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if not keep_mouse:
        page.mouse.move(0, 0)
    page.screenshot(path=str(SHOTS / name), full_page=full)


def setup(page, server: str, mode: str = "best", rules: str = "standard") -> None:
    """The game page with the rules and level chosen and a random fleet placed."""
    page.goto(server + "/")
    page.wait_for_function("document.querySelectorAll('#placement .cell').length > 0")
    if page.input_value("#rules") != rules:
        page.select_option("#rules", rules)
    page.check(f"#mode input[value='{mode}']")
    if rules != "custom":
        page.click("#random")
        page.wait_for_function("document.querySelectorAll('#placement .cell.ship').length > 0")


def start(page) -> None:
    page.click("#start")
    page.wait_for_selector("#play:not(.hidden) #enemy .cell")
    page.wait_for_function("document.querySelector('#turn').textContent.startsWith('Your turn')")


def fire(page, cell: int) -> None:
    """Fire at ``cell`` and wait for the computer's answer."""
    before = page.evaluate("game.computer_shots.length")
    page.click(f"#enemy .cell[data-cell='{cell}']")
    page.wait_for_function(
        f"game.status === 'over' || (game.status === 'player-turn' && game.computer_shots.length > {before})"
    )


def play_to_the_end(page) -> None:
    page.check("#playforme")
    page.wait_for_selector("#rematch:not(.hidden)", timeout=LONG)


# ---- against the computer --------------------------------------------------------------------------


@pytest.mark.slow
def test_whole_games_at_every_level_with_marks_sunk_ships_replay_and_statistics(server, open_page):
    page = open_page("desktop")
    for mode in ("random", "hunt-target", "probability", "best", "learning"):
        setup(page, server, mode)
        if mode == "random":  # place a ship by hand, rotated, then take a random layout instead
            page.click("#clear")
            page.keyboard.press("r")
            page.click("#placement .cell[data-cell='0']")
            assert page.locator("#placement .cell.ship").count() == 5
            assert page.get_attribute("#placement .cell[data-cell='40']", "aria-label") == "E1, your ship"
            page.click("#random")
            page.wait_for_function("document.querySelectorAll('#placement .cell.ship').length === 17")
            shoot(page, "placement.png")
        start(page)
        check_coordinates_and_names(page)
        fire(page, 44)
        said = page.get_attribute("#enemy .cell[data-cell='44']", "aria-label")
        assert said.startswith("E5, ") and "the last shot" in said, said
        assert page.locator("#enemy .cell.last").count() == 1 and page.locator("#own .cell.last").count() == 1
        assert (
            page.locator("#own .cell.ship").first.text_content() in "CBDSP"
        )  # your ships keep their letters
        play_to_the_end(page)
        assert page.locator("#enemy .cell.revealed, #enemy .cell.sunk").count() == 17
        sunk_mine = page.evaluate(
            "game.player_layout.ships.filter((s) => s.cells.every((c) => game.computer_shots.some((x) => x.cell === c)))"
            ".reduce((n, s) => n + s.cells.length, 0)"
        )
        assert page.locator("#own .cell.sunk").count() == sunk_mine  # whole sunk ships on your fleet
        if page.evaluate("game.winner") == "player":
            assert page.locator("#enemy .cell.sunk").count() == 17
        assert page.errors == []
        if mode == "best":
            shoot(page, "game.png")
            replay_the_game(page)
    page.goto(server + "/stats")
    page.wait_for_function("window.Chart && Chart.getChart('winrate') && Chart.getChart('lengths')")
    assert page.locator("#modes tbody tr").count() == 5
    labels = page.evaluate("Chart.getChart('winrate').options.plugins.whiskers.labels")
    levels = page.evaluate("Chart.getChart('winrate').data.labels")
    assert len(labels) == 5 and all(label.endswith("%") for label in labels)  # each bar's value, 0% too
    assert levels == ["Easy", "Medium", "Hard", "Expert", "Adaptive"]
    hover_first_bar(page, "winrate")
    shoot(page, "stats.png", keep_mouse=True)


def check_coordinates_and_names(page):
    """Both boards have A-J and 1-10 around them, rows and cells as a screen reader needs them."""
    for board in ("#enemy", "#own"):
        assert page.locator(f"{board} [role=columnheader]").all_text_contents()[1:] == [
            str(c) for c in range(1, 11)
        ]
        assert page.locator(f"{board} [role=rowheader]").all_text_contents() == list("ABCDEFGHIJ")
        assert page.locator(f"{board} [role=gridcell]").count() == 100
    assert page.get_attribute("#enemy .cell[data-cell='0']", "aria-label") == "A1, not fired at"
    assert page.locator("#own .cell[aria-label$='your ship']").count() == 17


def replay_the_game(page):
    """The replay page: moves named A1.., step, play, pause, the heat map beside the board, a shareable link."""
    page.click("#replaylink")
    page.wait_for_url("**/replay?game=*")
    page.wait_for_function(
        "document.querySelector('#heat .cell') && document.querySelector('#heat .cell').textContent.length > 0"
    )
    first = page.locator("#moves li").first.text_content()
    assert first.startswith("You: ") and first.split(": ")[1][0] in "ABCDEFGHIJ", first  # "You: E5, miss"
    xy = page.locator("#moves li .xy").first  # the paper's notation beside, shown
    assert xy.is_visible() and xy.text_content().startswith("(")
    assert "Player: (" in xy.get_attribute("title")
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
    shoot(page, "replay.png")
    page.goto(link)  # the link opens the same move
    page.wait_for_function("document.querySelector('#slider').value === '10'")
    assert (
        page.locator("#moves li.current").text_content()
        == page.locator("#moves li:nth-child(10)").text_content()
    )


def hover_first_bar(page, chart: str, horizontal: bool = False):
    """Move the mouse to the middle of a bar chart's first bar and wait for its tooltip."""
    box = page.locator(f"#{chart}").bounding_box()
    middle = "({x: (x + base) / 2, y})" if horizontal else "({x, y: (y + base) / 2 - 3})"
    bar = page.evaluate(
        f"(({{x, y, base}}) => {middle})(Chart.getChart('{chart}').getDatasetMeta(0).data[0])"
    )
    page.mouse.move(box["x"] + bar["x"], box["y"] + bar["y"])
    page.wait_for_function(f"Chart.getChart('{chart}').tooltip.getActiveElements().length > 0")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_fired_squares_are_inert_resign_is_confirmed_rematch_and_new_game_keep_the_settings(
    server, open_page, size
):
    page = open_page(size)
    setup(page, server, "hunt-target", "pirates")
    start(page)
    fired: list[str] = []
    page.on("request", lambda r: fired.append(r.url) if r.url.endswith("/fire") else None)
    fire(page, 44)
    page.click("#enemy .cell[data-cell='44']", force=True)  # a square already fired at does nothing
    page.wait_for_timeout(400)
    assert len(fired) == 1 and page.get_attribute("#enemy .cell[data-cell='44']", "aria-disabled") == "true"
    page.click("#resign")
    page.wait_for_selector("dialog[open]")
    page.click("dialog [data-answer=no]")  # keep playing
    assert page.locator("dialog").count() == 0 and page.evaluate("game.status") == "player-turn"
    layout = page.evaluate("game.player_layout.notation")
    page.click("#resign")
    page.click("dialog [data-answer=yes]")
    page.wait_for_function("game.status === 'over'")
    assert "You resigned" in page.text_content("#turn")
    first = page.evaluate("game.id")
    page.click("#rematch")
    page.wait_for_function(f"game.id !== '{first}' && game.status === 'player-turn'")
    again = page.evaluate("[game.rules.name, game.mode, game.player_layout.notation]")
    assert again == ["pirates", "hunt-target", layout]  # same rules, level and fleet
    page.click("#resign")
    page.click("dialog [data-answer=yes]")
    page.wait_for_selector("#again:not(.hidden)")
    page.click("#again")  # a new game: back to the setup with the settings as they were
    page.wait_for_selector("#setup:not(.hidden)")
    assert page.input_value("#rules") == "pirates" and page.is_checked("#mode input[value='hunt-target']")
    assert page.errors == []


def test_lying_answers_let_a_square_be_fired_again_and_a_cheating_computer_says_so(server, open_page):
    page = open_page()
    setup(page, server, "hunt-target", "noisy")
    start(page)
    assert "Answers may lie" in page.text_content("#twist") and "5%" in page.text_content("#twist")
    fire(page, 44)
    fire(page, 44)  # under noise a square fired at may be fired at again
    square = "#enemy .cell[data-cell='44']"
    assert page.get_attribute(square, "data-times") == "2" and "fired 2 times" in page.get_attribute(
        square, "title"
    )
    page.click("#resign")
    page.click("dialog [data-answer=yes]")
    page.wait_for_function("game.status === 'over'")
    assert "The truth" in page.text_content("#twist")
    page.click("#again")
    setup(page, server, "random", "cheat")
    start(page)
    assert "The computer cheats" in page.text_content("#twist")
    fire(page, 0)
    page.click("#resign")
    page.click("dialog [data-answer=yes]")
    page.wait_for_function("game.status === 'over'")
    assert "fits every answer" in page.text_content("#twist")
    assert page.locator("#enemy .cell.revealed, #enemy .cell.sunk, #enemy .cell.hit").count() > 0
    assert page.errors == []


@pytest.mark.slow
def test_the_game_on_a_phone_keeps_your_fleet_in_view_beside_the_board_you_fire_at(server, open_page):
    page = open_page("phone")
    setup(page, server, "best")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, overflow  # the levels and the rules fit the width
    for label in page.locator("#mode label").all():
        assert label.bounding_box()["x"] + label.bounding_box()["width"] <= 390
    shoot(page, "phone-setup.png")
    start(page)
    fire(page, 44)
    fire(page, 45)
    for board in ("#own", "#enemy"):  # both boards whole in the screen, without scrolling
        box = page.locator(board).bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844, (board, box)
    last = page.locator("#own .cell.last").bounding_box()  # the computer's last shot, marked, in view
    assert last is not None and last["y"] + last["height"] <= 844
    shoot(page, "phone.png", full=False)


def test_a_move_that_fell_back_says_so_on_the_page(server, open_page):
    page = open_page("desktop")
    setup(page, server, "best")
    start(page)

    def slow_level(route):  # the computer's reply comes back with the shot
        answer = route.fetch()
        body = answer.json()
        body["reply"]["computer"] = {
            "shooter": "density:skew=20",
            "fallback": "Expert (density:skew=20) did not answer within 2 s",
        }
        route.fulfill(response=answer, json=body)

    page.route("**/api/games/*/fire", slow_level)
    fire(page, 44)
    notice = page.text_content("#notice")
    assert "did not answer within 2 s" in notice and "density" in notice


@pytest.mark.slow
def test_custom_no_contact_rules_at_adaptive_play_exactly_and_a_level_not_ready_says_so(server, open_page):
    import httpx

    open_sea = {"rules": "seabattle", "board": "/".join(["." * 10] * 10)}
    for _ in range(60):  # the presets' graphs compile first (in the background since start-up)
        if httpx.post(server + "/api/calc", json=open_sea, timeout=60).json()["exact"]:
            break
    page = open_page("desktop")
    page.goto(server + "/")
    page.wait_for_function("document.querySelectorAll('#placement .cell').length > 0")
    page.select_option("#rules", "custom")
    page.fill("#c-rows", "7")
    page.fill("#c-cols", "7")
    page.select_option("#c-spacing", "no-contact")
    page.fill("#c-ships", "Cruiser C 3\nBoat B 2")
    page.dispatch_event("#c-ships", "change")
    page.wait_for_function("document.querySelectorAll('#placement .cell').length === 49")
    page.check("#mode input[value='learning']")  # no ship placed: a random fleet
    moves = []
    page.on("response", lambda r: moves.append(r) if r.url.endswith("/fire") else None)
    start(page)
    page.wait_for_function("document.querySelector('#notice').textContent === ''")  # nothing to wait for
    fire(page, 0)
    assert moves and moves[-1].json()["reply"]["computer"]["exact"] is True
    assert moves[-1].json()["reply"]["computer"]["shooter"] == "learning"

    def not_ready(route):  # as the server answers while the rules' state graph compiles
        answer = route.fetch()
        body = answer.json()
        body["notice"] = "Adaptive is not ready under these rules: its state graph is being compiled"
        route.fulfill(response=answer, json=body)

    page.route("**/api/games", not_ready)
    page.goto(server + "/")
    page.wait_for_function("document.querySelectorAll('#placement .cell').length > 0")
    page.check("#mode input[value='learning']")
    start(page)
    assert "being compiled" in page.text_content("#notice")
    assert not page.errors


def test_custom_rules_from_the_form_with_a_ship_of_any_shape(server, open_page):
    page = open_page("desktop")
    page.goto(server + "/")
    page.wait_for_function("document.querySelectorAll('#placement .cell').length > 0")
    page.select_option("#rules", "custom")
    page.fill("#c-rows", "7")
    page.fill("#c-cols", "8")
    page.fill("#c-ships", "Cruiser C 3\nTee T ###/.#.")
    page.dispatch_event("#c-ships", "change")
    page.wait_for_function("document.querySelectorAll('#placement .cell').length === 56")
    assert 'shape = "###/.#."' in page.input_value("#c-toml")
    # each field's change asks the server for the rules again; the board may come from an earlier
    # answer (7x8 before the Tee was read): placing waits for the last, whose fleet holds the Tee
    page.wait_for_function(
        "[...document.querySelectorAll('#fleet button')].some((b) => b.textContent.includes('Tee'))"
    )
    page.click("#fleet button:nth-child(2)")  # the Tee, turned a quarter, by hand
    page.keyboard.press("r")
    page.click("#placement .cell[data-cell='10']")
    assert page.locator("#placement .cell.ship").count() == 4
    page.click("#fleet button:nth-child(1)")
    page.click("#placement .cell[data-cell='44']")
    assert page.locator("#placement .cell.ship").count() == 7
    page.check("#mode input[value='random']")
    start(page)
    assert (
        page.locator("#enemy [role=gridcell]").count() == 56 and page.evaluate("game.rules.name") == "custom"
    )
    fire(page, 0)
    page.goto(server + "/")  # a mistake in the TOML is said, with where
    page.wait_for_function("document.querySelectorAll('#placement .cell').length > 0")
    page.fill("#c-toml", "rows = \n")
    page.dispatch_event("#c-toml", "change")
    page.wait_for_function("document.querySelector('#c-message').textContent.length > 0")
    assert "rules_toml" in page.text_content("#c-message")


# ---- against a friend ------------------------------------------------------------------------------


def friend_turns(pages, rounds: int) -> None:
    """Each page fires at its next unfired square on its turn, ``rounds`` times each (or to the end)."""
    for _ in range(rounds):
        for page in pages:
            if page.evaluate("view.status") == "over":
                return
            page.wait_for_function("view.status === 'your-turn' || view.status === 'over'", timeout=30_000)
            if page.evaluate("view.status") == "over":
                return
            cell = page.evaluate(
                "[...Array(view.rules.rows * view.rules.cols).keys()].find((c) => !view.your_shots.some((s) => s.cell === c))"
            )
            page.click(f"#enemy .cell[data-cell='{cell}']")
            page.wait_for_function("view.status !== 'your-turn'", timeout=30_000)


@pytest.mark.slow
def test_two_friends_on_two_devices_play_to_the_end_through_a_dropped_connection(server, open_page):
    ann, bob = open_page("desktop"), open_page("phone")
    ann.goto(server + "/friend")
    ann.fill("#name", "Ann")
    ann.select_option("#clock", "600")
    ann.click("#create-game")
    ann.wait_for_selector("#invite:not(.hidden)")
    link = ann.input_value("#invite-link")
    assert "#seat=" in link and link.startswith(server)
    ann.click("#random")
    ann.wait_for_function("document.querySelectorAll('#placement .cell.ship').length === 17")
    ann.click("#ready")
    ann.wait_for_function("document.querySelector('#banner').textContent.startsWith('Waiting for')")
    bob.goto(link)
    bob.wait_for_selector("#placing:not(.hidden)")
    ann.wait_for_function("document.querySelector('#presence').textContent.includes('is here')")
    bob.fill("#seat-name", "Bob")
    bob.click("#ready")  # no ships placed: the server places them at random
    ann.wait_for_function("view.status === 'your-turn'")
    assert "Bob" in ann.text_content("#enemy-title") and ann.is_visible("#clocks")
    # Bob's page shows the game begun once its own answer (or the event) is in: it may come after Ann's
    bob.wait_for_function("document.querySelector('#banner').textContent.includes('Ann is aiming')")
    friend_turns([ann, bob], 5)
    # Bob's stream drops (the connection ends): his page says so, reconnects by itself and is live again
    state = {"dropped": False}

    def drop_once(route):
        if state["dropped"]:
            route.continue_()
            return
        state["dropped"] = True
        route.fulfill(status=200, headers={"content-type": "text/event-stream"}, body="retry: 300\n\n")

    bob.route("**/api/seats/*/events", drop_once)
    # a fresh stream, which ends at once; what the link says is recorded, as "live" was already showing
    bob.evaluate(
        """window.linkSeen = [];
        const shown = document.querySelector('#link-state');
        new MutationObserver(() => linkSeen.push(shown.textContent)).observe(shown, {childList: true, characterData: true, subtree: true});
        listen();"""
    )
    bob.wait_for_function(
        "linkSeen.some((t) => t.startsWith('reconnecting')) && linkSeen[linkSeen.length - 1] === 'live'",
        timeout=30_000,
    )
    assert state["dropped"]
    friend_turns([ann, bob], 5)
    # Bob closes his page; Ann sees him go; he comes back through his link and finds the game as it is
    seat = bob.evaluate("seats[0]")
    bob.close()
    ann.wait_for_function(
        "document.querySelector('#presence').textContent.includes('not connected')", timeout=30_000
    )
    bob = open_page("phone")
    bob.goto(f"{server}/friend#seat={seat}")
    bob.wait_for_function("view && view.your_shots.length === 10", timeout=30_000)
    ann.wait_for_function(
        "document.querySelector('#presence').textContent.includes('is here')", timeout=30_000
    )
    shoot(bob, "friend-phone.png", full=False)
    friend_turns([ann, bob], 120)
    for page in (ann, bob):
        page.wait_for_function("view.status === 'over'", timeout=30_000)
    winners = sorted([ann.evaluate("view.winner"), bob.evaluate("view.winner")])
    assert winners == ["them", "you"]
    assert (
        ann.locator("#enemy .cell.sunk, #enemy .cell.revealed").count() == 17
    )  # Bob's fleet shown at the end
    shoot(ann, "friend.png")
    ann.click("#replaylink")
    ann.wait_for_url("**/replay?game=*")
    ann.wait_for_function("document.querySelectorAll('#moves li').length > 30")
    assert ann.locator("#moves li").first.text_content().startswith("Ann: A1")
    assert ann.errors == [] and bob.errors == []


def test_two_friends_on_one_screen_pass_it_between_turns(server, open_page):
    page = open_page("phone")
    page.goto(server + "/friend")
    page.check("#same-screen")
    page.click("#create-game")
    page.wait_for_selector("#placing:not(.hidden)")
    assert "Player 1: place your fleet" in page.text_content("#banner")
    page.click("#ready")
    page.wait_for_selector("#cover:not(.hidden)")
    assert "Pass the device to Player 2" in page.text_content("#cover-text")
    page.click("#cover-go")
    page.wait_for_function("view.seat === 2 && !view.you.placed")
    page.click("#ready")
    for _ in range(3):  # a few turns, the cover between each
        page.wait_for_selector("#cover:not(.hidden)", timeout=30_000)
        page.click("#cover-go")
        page.wait_for_function("view.status === 'your-turn'")
        cell = page.evaluate("[...Array(100).keys()].find((c) => !view.your_shots.some((s) => s.cell === c))")
        page.click(f"#enemy .cell[data-cell='{cell}']")
    page.wait_for_selector("#cover:not(.hidden)", timeout=30_000)
    assert page.errors == []


def test_my_games_lists_this_browsers_games_with_links(server, open_page):
    page = open_page("phone")
    setup(page, server, "random")
    start(page)
    playing = page.evaluate("game.id")
    setup(page, server, "random")
    start(page)
    page.click("#resign")
    page.click("dialog [data-answer=yes]")
    page.wait_for_function("game.status === 'over'")
    finished = page.evaluate("game.id")
    page.goto(server + "/history")
    page.wait_for_function("document.querySelectorAll('#games tbody tr').length === 2")
    assert page.locator(f"#games a[href='/replay?game={finished}']").count() == 1
    assert page.locator(f"#games a[href='/?game={playing}']").count() == 1
    assert "you lost (resigned)" in page.text_content("#games tbody tr:first-child")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, overflow
    shoot(page, "history.png")
    page.click("#games tbody tr:first-child button")  # forget one
    page.wait_for_function("document.querySelectorAll('#games tbody tr').length === 1")
    page.click(f"#games a[href='/?game={playing}']")  # go on with the unfinished one
    page.wait_for_function(f"game && game.id === '{playing}'")


# ---- the calculator, the statistics, the other pages -------------------------------------------------


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_calculator_takes_a_sunk_ship_on_all_its_squares_and_asks_once_per_pause(server, open_page, size):
    page = open_page(size)
    asked: list[str] = []  # the board of every request to the calculator
    page.on(
        "request",
        lambda r: asked.append(json.loads(r.post_data)["board"]) if r.url.endswith("/api/calc") else None,
    )
    page.goto(server + "/calc")
    page.wait_for_function("document.querySelector('#summary').textContent.includes('layouts left')")
    assert "30,093,975,536" in page.text_content("#summary")
    assert "every square it covered" in page.text_content("#how-to-sink")
    asked.clear()
    for cell in (0, 1):  # seven clicks each: unknown, miss, hit, C, B, D, S, then P (the Patrol Boat)
        for _ in range(7):
            page.click(f"#board .cell[data-cell='{cell}']")
    page.wait_for_function("document.querySelector('#board .cell[data-cell=\"1\"]').textContent === 'P'")
    # the page asks after a pause: until the final board is asked for, an answer about an earlier one
    # (clicks slowed by a busy machine) may have cleared the message with another request still to come
    for _ in range(1200):  # bounded: two minutes
        if asked and asked[-1].startswith("PP"):
            break
        page.wait_for_timeout(100)
    page.wait_for_function("document.querySelector('#message').textContent === ''")
    assert asked[-1].startswith("PP") and len(asked) <= 2, asked  # fourteen quick clicks, one or two requests
    assert page.text_content("#message") == "" and "layouts left" in page.text_content("#summary")
    assert page.locator("#board .cell.best").count() >= 1
    page.check("#percent")
    page.wait_for_function("document.querySelector('#board .cell[data-cell=\"45\"]').textContent.length > 0")
    if size == "desktop":
        shoot(page, "calc.png")


FITS = "document.scrollingElement.scrollWidth <= window.innerWidth"  # no sideways scrolling


def lose_a_game(page, server: str, mode: str = "best") -> None:
    """Start a game at ``mode`` (its label is the longest shooter spec at Expert) and resign at once."""
    setup(page, server, mode)
    start(page)
    assert page.evaluate(FITS), page.evaluate("document.scrollingElement.scrollWidth")
    page.click("#resign")
    page.click("dialog [data-answer=yes]")
    page.wait_for_selector("#replaylink:not(.hidden)")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_start_button_is_on_the_first_screen_and_the_page_never_scrolls_sideways(server, open_page, size):
    page = open_page(size)
    page.goto(server + "/")
    page.wait_for_function("document.querySelectorAll('#placement .cell').length > 0")
    box = page.locator("#start").bounding_box()
    assert box["y"] + box["height"] <= page.evaluate("window.innerHeight")  # before the explanations
    assert page.evaluate(FITS)
    page.check("#mode input[value='best']")
    page.click("#start")  # no fleet placed: chance places it
    page.wait_for_function("document.querySelector('#turn').textContent.startsWith('Your turn')")
    label = page.locator("#their-label")
    assert "Expert" in label.text_content() and "density" in label.get_attribute("title")
    assert page.evaluate(FITS), page.evaluate("document.scrollingElement.scrollWidth")
    page.check("#heat")  # the heat map's colour bar, with the percentages its colours stand for
    page.wait_for_selector("#heat-scale:not(.hidden) .heat-ticks span")
    ticks = page.locator("#heat-scale .heat-ticks span").all_text_contents()
    assert ticks[0] == "0%" and ticks[-1].endswith("%") and len(ticks) == 5
    assert page.evaluate(FITS)
    if size == "phone":
        shoot(page, "phone-play.png", full=False)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_custom_rules_form_fits_the_screen_with_its_dropdowns_whole(server, open_page, size):
    page = open_page(size)
    page.goto(server + "/")
    page.wait_for_function("document.querySelectorAll('#placement .cell').length > 0")
    page.select_option("#rules", "custom")
    page.wait_for_selector("#custom-box[open]")
    page.select_option("#c-spacing", "no-contact")  # the longest words of each
    page.select_option("#c-sinks", "named")
    width = page.evaluate("window.innerWidth")
    for select in ("#rules", "#c-spacing", "#c-sinks"):
        box = page.locator(select).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, select  # on the screen, not cut off
        # the chosen option's words fit beside the arrow: measured in the select's own font
        room = page.evaluate(
            f"""(s => {{ const span = document.createElement('span'), style = getComputedStyle(s);
                span.style.font = style.font; span.style.whiteSpace = 'pre';
                span.textContent = s.options[s.selectedIndex].text; document.body.appendChild(span);
                const need = span.getBoundingClientRect().width; span.remove();
                return s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16 - need;
            }})(document.querySelector('{select}'))"""
        )
        assert room >= 0, (select, room)
    assert page.evaluate(FITS)
    if size == "phone":
        shoot(page, "phone-custom.png", full=False)
    page.select_option("#rules", "standard")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_after_a_loss_the_hidden_ships_count_as_afloat_and_the_legend_names_them(server, open_page, size):
    page = open_page(size)
    lose_a_game(page, server, "random")
    assert page.text_content("#afloat") == "5"  # none was sunk: all five are afloat, now shown
    assert page.text_content("#mine-afloat") == "5"
    assert page.locator("#enemy .cell.revealed").count() == 17
    assert "not found" in page.text_content("#play .legend")
    assert page.evaluate(FITS)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_focus_ring_leaves_the_last_shot_ring_in_view(server, open_page, size):
    page = open_page(size)
    setup(page, server, "random")
    start(page)
    fire(page, 44)
    page.focus("#enemy .cell[data-cell='44']")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")  # back on the last shot, by the keyboard (focus-visible)
    style = page.evaluate(
        "(() => { const c = document.querySelector('#enemy .cell[data-cell=\"44\"]');"
        " const s = getComputedStyle(c); return [document.activeElement === c, s.outlineOffset, s.boxShadow]; })()"
    )
    assert style[0] and style[1] == "-6px" and style[2] != "none"  # the ring inside, the last shot's outside


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_replay_has_its_controls_above_the_board_and_the_papers_notation_beside_each_move(
    server, open_page, size
):
    page = open_page(size)
    lose_a_game(page, server, "random")
    page.click("#replaylink")
    page.wait_for_function("document.querySelectorAll('#board .cell').length === 100")
    assert page.locator("#forward").bounding_box()["y"] < page.locator("#board").bounding_box()["y"]
    assert page.locator("#forward").bounding_box()["y"] < page.evaluate("window.innerHeight")
    assert page.evaluate(FITS)
    page.click("#last")
    page.wait_for_selector("#heat-scale:not(.hidden) .heat-ticks span")
    if page.locator("#moves li").count():
        text = page.locator("#moves li .xy").first.text_content()
        assert (
            text.startswith("(") and ", " in text and text.endswith(")")
        )  # e.g. (5, 6), shown, not a tooltip
    if size == "phone":
        shoot(page, "phone-replay.png", full=False)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_replay_shows_each_move_in_the_papers_notation(server, open_page, size):
    page = open_page(size)
    setup(page, server, "random")
    start(page)
    fire(page, 44)  # E5: column 5 from the left, row 6 from the bottom of ten
    page.click("#resign")
    page.click("dialog [data-answer=yes]")
    page.wait_for_selector("#replaylink:not(.hidden)")
    page.click("#replaylink")
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 1")
    first = page.locator("#moves li").first
    assert "E5" in first.text_content() and first.locator(".xy").text_content() == "(5, 6)"


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_statistics_draw_counts_as_steps_and_leave_room_for_the_labels(server, open_page, size):
    page = open_page(size)
    setup(page, server, "random")
    start(page)
    for cell in range(10):  # a game counts once both sides fired ten shots
        fire(page, cell)
    page.click("#resign")
    page.click("dialog [data-answer=yes]")
    page.wait_for_selector("#replaylink:not(.hidden)")
    page.goto(server + "/stats")
    page.wait_for_function("window.Chart && Chart.getChart('winrate') && Chart.getChart('lengths')")
    lengths = page.evaluate(
        "Chart.getChart('lengths').data.datasets.map((d) => [d.stepped, d.tension, d.data])"
    )
    assert lengths and all(stepped == "middle" and tension == 0 for stepped, tension, _ in lengths)
    assert all(isinstance(v, int) for *_, data in lengths for v in data)  # games counted, not smoothed shares
    y = page.evaluate("Chart.getChart('winrate').scales.y")
    assert y["max"] > 100  # room above a 100% bar's interval for its label
    ticks = page.evaluate("Chart.getChart('winrate').scales.y.ticks.map((t) => t.label)")
    assert 100 in ticks and all(t == "" or int(t) <= 100 for t in ticks)  # no tick past 100%
    assert page.evaluate(FITS)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_friends_clock_pauses_while_the_server_cannot_be_reached(server, open_page, size):
    import httpx

    made = httpx.post(f"{server}/api/friends", json={"clock": 300}).json()
    for seat in (made["seat"], made["invite"]):
        httpx.post(f"{server}/api/seats/{seat}/layout", json={})
    page = open_page(size)
    page.goto(f"{server}/friend#seat={made['seat']}")
    page.wait_for_function("live && view && view.clock && view.clock.running === 'you'")
    page.wait_for_selector("#clock-you.running")
    page.route("**/api/seats/*/events", lambda route: route.abort())
    page.evaluate("listen()")  # the stream again, now failing: the server is away
    page.wait_for_function("document.querySelector('#clock-state').textContent.includes('paused')")
    held = page.text_content("#clock-you")
    assert "running" not in page.get_attribute("#clock-you", "class")
    page.wait_for_function("performance.now() - viewAt > 1500")  # the clock would have ticked by now
    assert page.text_content("#clock-you") == held
    page.unroute("**/api/seats/*/events")
    page.evaluate("listen()")
    page.wait_for_function("live && document.querySelector('#clock-state').textContent === ''")
    assert page.evaluate(FITS)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_addresses_that_lead_nowhere_get_friendly_pages(server, open_page, size):
    page = open_page(size)
    page.goto(server + "/no/such/page")
    assert "There is no page at this address" in page.text_content("main")
    page.goto(server + "/replay?game=nonsense")
    page.wait_for_function("document.querySelector('#message').textContent.length > 0")
    assert "no game at this address" in page.text_content("#message")
    page.goto(server + "/?game=" + "0" * 32)
    page.wait_for_function("document.querySelector('#setup-message').textContent.length > 0")
    assert "not here any more" in page.text_content("#setup-message")
    page.goto(server + "/friend#seat=" + "0" * 32)
    page.wait_for_function("document.querySelector('#banner').textContent.length > 0")
    assert "no game at this link" in page.text_content("#banner")
    assert page.errors == []


WATCH_MOTION = """
window.moved = [];
new MutationObserver((changes) => changes.forEach((c) => {
  if (c.target.className && String(c.target.className).includes("anim-")) window.moved.push(c.target.dataset.cell);
})).observe(document.querySelector("#play"), {attributes: true, subtree: true, attributeFilter: ["class"]});
"""


def test_dark_mode_follows_the_system_and_motion_follows_its_setting(server, open_page):
    page = open_page("desktop", color_scheme="dark", reduced_motion="reduce")
    setup(page, server, "random")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert sum(int(x) for x in background[4:-1].split(",")) < 150, background  # dark
    start(page)
    page.evaluate(WATCH_MOTION)
    fire(page, 44)
    assert page.evaluate("window.moved") == []  # no motion asked for, none given
    shoot(page, "dark.png")
    lively = open_page("desktop", color_scheme="light", reduced_motion="no-preference")
    setup(lively, server, "random")
    start(lively)
    lively.evaluate(WATCH_MOTION)
    fire(lively, 44)
    lively.wait_for_function("window.moved.includes('44')")
    background = lively.evaluate("getComputedStyle(document.body).backgroundColor")
    assert sum(int(x) for x in background[4:-1].split(",")) > 600, background  # light


COUNT_SOUNDS = """
window.soundsMade = 0;
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  createOscillator() { window.soundsMade += 1; return super.createOscillator(); }
  createBufferSource() { window.soundsMade += 1; return super.createBufferSource(); }
};
"""


def test_sounds_are_made_on_the_spot_and_the_mute_switch_is_kept(server, open_page):
    page = open_page("desktop")
    page.add_init_script(COUNT_SOUNDS)
    setup(page, server, "random")
    start(page)
    fire(page, 44)
    page.wait_for_function("window.soundsMade > 0")
    page.click("#sound")
    assert (
        page.text_content("#sound") == "Sound off" and page.get_attribute("#sound", "aria-pressed") == "false"
    )
    made = page.evaluate("window.soundsMade")
    fire(page, 45)
    page.wait_for_timeout(500)
    assert page.evaluate("window.soundsMade") == made
    page.reload()
    page.wait_for_function("document.querySelector('#sound').textContent === 'Sound off'")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_api_docs_page_needs_no_network(server, open_page, size):
    page = open_page(size)
    outside: list[str] = []

    def only_the_server(route):
        if route.request.url.startswith(server):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_server)
    page.goto(server + "/docs")
    page.wait_for_function("document.querySelectorAll('.swagger-ui .opblock').length > 15", timeout=30_000)
    assert outside == [] and page.errors == []
    assert page.get_attribute("nav a", "href") == "/"  # a way back to the game
    page.click("nav a")
    page.wait_for_selector("#start")


@pytest.mark.slow
def test_every_page_fits_a_phone_screen(server, open_page):
    page = open_page("phone")
    for path in ("/", "/friend", "/history", "/calc", "/stats", "/replay", "/arena", "/nowhere"):
        page.goto(server + path)
        page.wait_for_load_state("networkidle")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, (path, overflow)


@pytest.mark.slow
def test_the_arena_page_shows_a_saved_run(server, open_page):
    page = open_page("desktop")
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


def test_a_failed_move_can_be_made_again_and_a_game_left_at_the_computers_turn_asks_it(server, open_page):
    import httpx

    page = open_page("phone")
    setup(page, server, "best")
    start(page)
    failed = {"once": False}

    def fail_once(route):
        if failed["once"]:
            route.continue_()
            return
        failed["once"] = True
        route.fulfill(
            status=500, json={"detail": "the computation's process ended unexpectedly; please try again"}
        )

    page.route("**/api/games/*/fire", fail_once)
    page.click("#enemy .cell[data-cell='44']")
    page.wait_for_function("document.querySelector('#message').textContent.includes('try again')")
    assert page.evaluate("game.player_shots.length") == 0 and page.is_hidden("#retry")  # nothing was fired
    fire(page, 44)  # the same square again: the shot and the computer's reply, in one request
    assert page.evaluate("game.player_shots.length === 1 && game.computer_shots.length === 1")
    # a game left at the computer's turn (its shot made by another client, without the reply) asks for it
    game_id = page.evaluate("game.id")
    httpx.post(f"{server}/api/games/{game_id}/fire", json={"cell": 45}).raise_for_status()
    page.reload()
    page.wait_for_function("game && game.status === 'player-turn' && game.computer_shots.length === 2")


# ---- a friend game lost on time, a server warming up, bad requests, streams, history ------------------


def seat_pages(open_page, server: str, size: str, **body):
    """A friends' game (made by the API, both fleets placed at random), each seat open on its own page."""
    import httpx

    made = httpx.post(f"{server}/api/friends", json=body).json()
    for seat in (made["seat"], made["invite"]):
        httpx.post(f"{server}/api/seats/{seat}/layout", json={})
    pages = []
    for seat in (made["seat"], made["invite"]):
        page = open_page(size)
        page.goto(f"{server}/friend#seat={seat}")
        page.wait_for_function("live && view && view.status !== 'placing'", timeout=30_000)
        pages.append(page)
    return made["state"]["id"], pages


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_friend_game_lost_on_time_shows_the_losers_clock_at_0_00_on_both_pages(served, open_page, size):
    from datetime import timedelta

    from battleship.web import store

    server, db = served
    game_id, (ann, bob) = seat_pages(open_page, server, size, clock=60, name="Ann")
    ann.wait_for_selector("#clock-you.running")
    engine = store.connect(db)
    try:  # Ann's turn began a minute and a second ago: the server's next look at the clock ends the game
        row = store.load(engine, game_id)
        started = {"turn_started": store.now() - timedelta(seconds=61)}
        assert store.save(engine, game_id, started, {"moves": row["moves"]})
    finally:
        engine.dispose()
    for page in (ann, bob):
        page.wait_for_function("view.status === 'over'", timeout=30_000)  # pushed by the stream
    ann.wait_for_function("document.querySelector('#clock-you').textContent === 'Ann 0:00'")
    bob.wait_for_function("document.querySelector('#clock-them').textContent === 'Ann 0:00'")
    assert ann.text_content("#clock-them").endswith(" 1:00") and bob.text_content("#clock-you").endswith(
        " 1:00"
    )
    assert ann.text_content("#banner").endswith("won on time.") and bob.text_content("#banner") == (
        "You won on time!"
    )
    for page in (ann, bob):
        assert page.locator("#clocks .clock.running").count() == 0  # no clock runs after the end
        assert page.text_content("#afloat") == "5"  # nobody fired: every hidden ship is afloat, now shown
        assert page.locator("#enemy .cell.revealed").count() == 17
        page.wait_for_timeout(1500)  # the page's own tick does not move the loser's clock off 0:00
        assert "0:00" in page.text_content("#clock-you" if page is ann else "#clock-them")
        assert page.evaluate(FITS) and page.errors == []


@contextmanager
def served_here(app):
    """Serve ``app`` from a thread of this process (so a test can reach into it); yield its base URL."""
    import threading

    import uvicorn

    from tests.web.server import free_port

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True, name="server-here")
    thread.start()
    try:
        for _ in range(3000):  # bounded: the port opens at once
            if server.started or not thread.is_alive():
                break
            threading.Event().wait(0.01)
        assert server.started
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(60)


@contextmanager
def warming_server(tmp_path, monkeypatch):
    """A server whose warm-up waits for the test: yields its URL and the two events that end the
    warm-up's parts (the server's own kernels, the worker processes)."""
    import threading

    from battleship.web import app as app_module
    from battleship.web.app import Settings, create_app

    here, workers = threading.Event(), threading.Event()
    monkeypatch.setattr(app_module, "_warm_here", lambda _app: here.wait(300))  # bounded
    monkeypatch.setattr(app_module, "warm_presets", lambda _graphs: [])
    monkeypatch.setattr(app_module, "_time_levels", lambda _app: None)
    settings = Settings(rate_limit="", heavy_workers=1)
    app = create_app(f"sqlite:///{tmp_path / 'games.db'}", warm=True, settings=settings)
    monkeypatch.setattr(app.state.workers, "start", lambda: workers.wait(300))
    try:
        with served_here(app) as url:
            yield url, here, workers
    finally:
        here.set()
        workers.set()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_warming_page_says_what_it_waits_for_and_goes_on_to_the_game_by_itself(
    tmp_path, monkeypatch, open_page, size
):
    import json

    from battleship.web import readiness

    with warming_server(tmp_path, monkeypatch) as (url, here, workers):
        page = open_page(size)
        asked: list[int] = []
        page.on("response", lambda r: asked.append(r.status) if r.url.endswith("/api/ready") else None)
        loads: list[str] = []
        page.on("load", lambda: loads.append(page.url))
        page.goto(url + "/")
        page.wait_for_function(
            "(t => t.includes('worker processes') && t.includes('own kernels'))"
            "(document.querySelector('#waiting').textContent)",
            timeout=30_000,
        )
        waiting = page.text_content("#waiting")
        assert readiness.HERE in waiting and readiness.WORKERS in waiting  # both parts, named
        assert "s so far" in page.text_content("#waited") and page.title() == "Battleship: starting"
        assert page.evaluate(FITS)
        if size == "phone":
            shoot(page, "phone-warming.png", full=False)
        here.set()  # the server's own kernels are ready: only the workers' are waited for
        page.wait_for_function(
            f"document.querySelector('#waiting').textContent === {json.dumps(f'Waiting for {readiness.WORKERS}.')}",
            timeout=30_000,
        )
        assert set(asked) == {503} and len(loads) == 1  # asked again and again, never reloaded meanwhile
        workers.set()  # the warm-up is over: the page loads the game by itself
        page.wait_for_function("document.querySelectorAll('#placement .cell').length > 0", timeout=LONG)
        assert page.url == url + "/" and page.locator("#waiting").count() == 0
        assert 200 in asked and page.errors == []


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_contradictory_and_bad_shots_are_refused_and_the_page_shows_the_cell_named(server, open_page, size):
    """The page's own shot, its body swapped on the way for what a hostile client might send."""
    import json

    page = open_page(size)
    setup(page, server, "random")
    start(page)
    sent = {"body": None}
    page.route("**/api/games/*/fire", lambda route: route.continue_(post_data=json.dumps(sent["body"])))
    for body, words in (
        ({"cell": "B2", "auto": True}, ["cell and auto", '"B2"', "not both"]),
        ({"cell": "A0"}, ["cell: ", "A0", "A1..J10"]),
        ({"cell": "a11"}, ["cell: ", "a11", "A1..J10"]),
        ({"cell": "ZZ9"}, ["cell: ", "ZZ9", "A1..J10"]),
        ({"cell": ""}, ["cell: ", "A1..J10"]),
        ({"cell": 129}, ["cell: ", "129", "0..99"]),
    ):
        sent["body"] = body
        page.evaluate("document.querySelector('#message').textContent = ''")
        page.click("#enemy .cell[data-cell='44']")
        page.wait_for_function("document.querySelector('#message').textContent.length > 0")
        message = page.text_content("#message")
        assert all(w in message for w in words), (body, message)
        assert "Input should" not in message and "constrained" not in message
    assert page.evaluate("game.player_shots.length") == 0  # nothing was fired
    assert page.evaluate(FITS) and page.errors == []


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_thirty_streams_on_one_seat_from_a_browser_are_mostly_refused(server, open_page, size):
    _game, (ann, _bob) = seat_pages(open_page, server, size)
    answers = ann.evaluate(
        """async () => {
            const controller = new AbortController(), seat = seats[0], answers = [];
            await Promise.all([...Array(29).keys()].map(async () => {
                const r = await fetch(`/api/seats/${seat}/events`, {signal: controller.signal});
                answers.push([r.status, r.status === 429 ? (await r.json()).detail : ""]);
            }));
            controller.abort();
            return answers;
        }"""
    )
    statuses = [status for status, _ in answers]
    assert statuses.count(429) >= 26 and set(statuses) <= {200, 429}, statuses  # the page holds one already
    assert all("too many live streams" in detail for status, detail in answers if status == 429)
    assert ann.evaluate("live") and ann.errors == []  # the page's own stream is untouched


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_my_games_says_a_friend_game_waits_for_its_fleets_not_for_the_computer(server, open_page, size):
    page = open_page(size)
    page.goto(server + "/friend")
    page.click("#create-game")
    page.wait_for_selector("#invite:not(.hidden)")  # the second player has not come yet
    page.goto(server + "/history")
    page.wait_for_function("document.querySelectorAll('#games tbody tr').length >= 1")
    row = page.text_content("#games tbody tr:first-child")
    assert "a friend" in row and "placing fleets" in row and "computer" not in row
    assert page.evaluate(FITS) and page.errors == []


@pytest.mark.slow
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_new_game_and_its_moves_are_answered_while_two_heavy_calculations_run(tmp_path, open_page, size):
    """Two other clients post exact counts that take minutes on custom rules (each holds an analysis slot
    to its deadline); meanwhile the page starts a game at Expert and plays."""
    import threading

    from fastapi.testclient import TestClient

    from battleship.web.app import Settings, create_app
    from tests.web.slow_rules import ONE_HIT, T_SHAPES

    settings = Settings(rate_limit="", heavy_workers=4, heavy_wait=1.0, analysis_seconds=120.0)
    app = create_app(f"sqlite:///{tmp_path / 'games.db'}", settings=settings)
    calc = {"rules": "custom", "rules_toml": T_SHAPES, "board": ONE_HIT}
    with served_here(app) as url:
        posters = [TestClient(app, client=(f"10.0.0.{n}", 5000)) for n in (1, 2)]
        threads = [
            threading.Thread(target=c.post, args=("/api/calc",), kwargs={"json": calc}) for c in posters
        ]
        for thread in threads:
            thread.start()
        try:
            for _ in range(6000):  # bounded: both calculations hold their slots
                if app.state.gate.busy("analysis") == 2:
                    break
                threading.Event().wait(0.01)
            assert app.state.gate.busy("analysis") == 2
            page = open_page(size)
            setup(page, url, "best")
            page.click("#start")  # Expert, timed under these rules on the way: a start's own slot
            page.wait_for_function(
                "document.querySelector('#turn').textContent.startsWith('Your turn')", timeout=LONG
            )
            for cell in (44, 45, 46):
                fire(page, cell)
            assert (
                page.evaluate("game.computer_shots.length") == 3 and page.text_content("#setup-message") == ""
            )
            assert app.state.gate.busy("analysis") == 2  # the two ran all along
            assert page.errors == []
        finally:
            app.state.stopping.set()
            for stop in list(app.state.stops):
                stop.request()
            for thread in threads:
                thread.join(60)


# Machado, Oliveira and Fernandes (2009): linear RGB as seen under each complete dichromacy
DICHROMACY = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.01182, 0.04294, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.3039),
    ),
    "typical": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
}


def seen_lab(rgb: tuple[int, int, int], vision: str) -> tuple[float, float, float]:
    """The CIELAB colour (D65) of an sRGB colour as ``vision`` sees it."""
    linear = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    seen = [
        min(1.0, max(0.0, sum(m * c for m, c in zip(row, linear, strict=True)))) for row in DICHROMACY[vision]
    ]
    xyz = [
        sum(m * c for m, c in zip(row, seen, strict=True)) / white
        for row, white in zip(
            ((0.4124, 0.3576, 0.1805), (0.2126, 0.7152, 0.0722), (0.0193, 0.1192, 0.9505)),
            (0.95047, 1, 1.08883),
            strict=True,
        )
    ]
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in xyz]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_no_heat_map_colour_looks_like_a_hit_or_a_sunk_ship_under_common_colour_blindness(
    server, open_page, size
):
    """Every colour the heat maps draw, against the hit and sunk squares', in the light and dark schemes:
    a CIELAB difference of 10 or more (clearly apart at a glance) under each dichromacy."""
    import math
    import re

    worst = (math.inf, "")
    for scheme in ("light", "dark"):
        page = open_page(size, color_scheme=scheme)
        page.goto(server + "/")
        page.wait_for_function("typeof heatColour === 'function'")
        drawn = page.evaluate(
            """() => {
                const probe = document.createElement('div'); document.body.appendChild(probe);
                const colour = (css) => { probe.style.background = css; return getComputedStyle(probe).backgroundColor; };
                return {heat: [...Array(21).keys()].map((k) => heatColour(k / 20)),
                        hit: colour('var(--hit)'), sunk: colour('var(--sunk)')};
            }"""
        )
        rgb = {text: tuple(int(x) for x in re.findall(r"\d+", text)[:3]) for text in drawn["heat"]}
        for square in ("hit", "sunk"):
            mark = tuple(int(x) for x in re.findall(r"\d+", drawn[square])[:3])
            for heat in rgb.values():
                for vision in DICHROMACY:
                    apart = math.dist(seen_lab(heat, vision), seen_lab(mark, vision))
                    worst = min(worst, (apart, f"{scheme} {square} {mark} vs heat {heat} ({vision})"))
    assert worst[0] >= 10, worst
