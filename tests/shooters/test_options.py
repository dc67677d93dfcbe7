"""Shooter options declared per shooter: one validation for text, keywords and --shooter; given keys
honoured whatever their value; old spellings read as what they mean."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship.errors import BattleshipError
from battleship.game import play
from battleship.lab import simulate
from battleship.rules import PRESETS, Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import make, names, reference_markdown, registry, spec
from battleship.shooters.optimal import OptimalShooter
from battleship.shooters.options import OPTION, Options, OptionSpec, format_spec, parse_spec


def _values(option: OptionSpec) -> st.SearchStrategy[object]:
    """Values an option takes, as Python values."""
    if option.kind is int:
        return st.integers(option.low, option.high)
    if option.choices:
        return st.sampled_from(option.choices)
    if option.name == "prior":
        return st.sampled_from(["", "uniform", "contest", "sequential"])
    return st.sampled_from(["", "model.json"])


@st.composite
def spec_and_values(draw: st.DrawFn) -> tuple[str, dict[str, object]]:
    name = draw(st.sampled_from(names()))
    # early needs endgame too (checked when the shooter is reset)
    options = [o for o in spec(name).accepted() if o.name != "early"]
    chosen = (
        draw(st.lists(st.sampled_from(options), unique_by=lambda o: o.name, max_size=4)) if options else []
    )
    return name, {o.name: draw(_values(o)) for o in chosen}


@settings(max_examples=150, deadline=None)
@given(spec_and_values())
def test_every_shooters_options_round_trip_through_text_and_keywords(case):
    name, values = case
    text = name + (":" + ",".join(f"{k}={v}" for k, v in values.items()) if values else "")
    by_text = registry.resolve(text)
    by_keywords = registry.resolve(name, values=values)
    assert by_text == by_keywords
    assert by_text[1].given_keys == by_keywords[1].given_keys == set(values)
    written = format_spec(*by_text)
    again = registry.resolve(written)
    assert again == by_text and again[1].given_keys == by_text[1].given_keys
    for key, value in values.items():
        assert getattr(by_text[1], key) == value


@pytest.mark.parametrize("name", names())
def test_an_unknown_key_is_refused_naming_the_shooters_options(name):
    takes = [o.name for o in spec(name).accepted()]
    for attempt in (lambda: make(f"{name}:nonsense=1"), lambda: make(name, nonsense=1)):
        with pytest.raises(BattleshipError, match=f"{name} does not read nonsense") as caught:
            attempt()
        message = str(caught.value)
        assert "\n" not in message
        assert all(f"{key}=" in message for key in takes)
        assert takes or f"{name} takes no options" in message


@pytest.mark.parametrize("name", names())
def test_a_bad_value_is_refused_saying_what_is_allowed(name):
    for option in spec(name).accepted():
        if option.kind is int:
            bad = [option.high + 1, option.low - 1, "lots", True, 2.5]
        elif option.choices:
            bad = ["sideways", 3]
        else:
            continue
        for value in bad:
            with pytest.raises(BattleshipError, match=option.name) as caught:
                make(name, **{option.name: value})
            assert f"{name} takes" in str(caught.value)
            if isinstance(value, int | str) and not isinstance(value, bool):
                with pytest.raises(BattleshipError, match=f"{name} takes"):
                    make(f"{name}:{option.name}={value}")


def test_a_key_given_twice_is_refused_in_text_keywords_or_through_an_old_spelling():
    for attempt, words in (
        (lambda: make("density:skew=20,skew=30"), "skew is given twice"),
        (lambda: make("density:skew=20", skew=30), "skew is given twice"),
        (lambda: make("optimal:boost=10,skew=5"), "skew is given twice"),
        (lambda: make("optimal:endgame=10,exact=5"), "exact is given twice"),
    ):
        with pytest.raises(BattleshipError, match=words):
            attempt()


def test_keywords_play_exactly_as_the_text():
    rules = preset("standard")
    layout = generators.generate(rules, "uniform", 5, 1)[0]
    for text, values in (
        ("density:skew=20", {"skew": 20}),
        ("density:skew=20,lattice=1,tie=random", {"skew": 20, "lattice": 1, "tie": "random"}),
        ("hunt-target-parity:colour=1", {"colour": "1"}),
    ):
        name = text.partition(":")[0]
        one = play(make(text), layout, np.random.default_rng(3))
        two = play(make(name, **values), layout, np.random.default_rng(3))
        assert one.shots == two.shots
    # and the keyword is not swallowed: skew=20 plays differently from plain density somewhere
    plain = [
        play(make("density"), g, np.random.default_rng(0)).shots
        for g in generators.generate(rules, "uniform", 6, 8)
    ]
    skewed = [
        play(make("density", skew=20), g, np.random.default_rng(0)).shots
        for g in generators.generate(rules, "uniform", 6, 8)
    ]
    assert plain != skewed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("best", "density:skew=20,lattice=1,lastship=8,book=1"),
        ("best:skew=0", "density:skew=0,lattice=1,lastship=8"),
        ("best:lattice=0", "density:skew=20,lattice=0,lastship=8"),
        ("best:lastship=0", "density:skew=20,lattice=1,lastship=0"),
        ("best:skew=20", "density:skew=20,lattice=1,lastship=8,book=1"),
        ("best:tie=first", "density:tie=first,skew=20,lattice=1,lastship=8"),
        ("best:fast=1", "density:skew=20,lattice=1"),
        ("best:fast=1,skew=0", "density:skew=0,lattice=1"),
    ],
)
def test_an_option_given_at_its_default_overrides_what_best_plays(text, expected):
    assert format_spec(*registry.check(text, preset("standard"))) == expected


def test_best_skew_0_plays_differently_from_best_on_standard_rules():
    rules = preset("standard")
    played = {}
    for text in ("best:fast=1", "best:fast=1,skew=0"):  # the lattice without the look-ahead: a kernel
        name, options = registry.check(text, rules)
        played[text] = simulate(rules, name, 200, seed=11, options=options)
    assert not np.array_equal(played["best:fast=1"], played["best:fast=1,skew=0"])
    # the same holds for what best plays in Python (its options, then a game that differs)
    name, options = registry.check("best:skew=0", rules)
    best_name, best_options = registry.check("best", rules)
    assert name == best_name == "density" and options.skew == 0 and best_options.skew == 20
    assert (options.lattice, options.lastship) == (best_options.lattice, best_options.lastship) == (1, 8)


def test_best_made_without_rules_keeps_what_was_given_until_it_learns_them():
    shooter = make("best", skew=0)
    shooter.reset(preset("standard"), np.random.default_rng(0))
    assert shooter.name == "density:skew=0,lattice=1,lastship=8"
    assert make("best:lattice=0").options.given_keys == {"lattice"}


def test_best_refuses_an_option_the_shooter_it_plays_does_not_read():
    with pytest.raises(BattleshipError, match="density does not read boost"):
        registry.check("best:boost=10", preset("standard"))
    with pytest.raises(BattleshipError, match="best does not read colour"):
        make("best:colour=1")


@pytest.mark.parametrize(
    ("stored", "fields"),
    [
        ("density:skew=20,lattice=1,lastship=8", {"skew": 20, "lattice": 1, "lastship": 8}),
        ("twoply:endgame=5000,plies=1,second=500", {"endgame": 5000, "plies": 1, "second": 500}),
        ("twoply:endgame=5000,plies=1", {"endgame": 5000, "plies": 1}),
        ("twoply:plies=1,skew=20,endgame=5000", {"endgame": 5000, "plies": 1, "skew": 20}),
        ("trial-sink:skew=20,prior=contest", {"skew": 20, "prior": "contest"}),
        ("optimal:endgame=12", {"exact": 12}),
        ("optimal:skew=20,endgame=12", {"exact": 12, "skew": 20}),
        ("optimal:boost=10", {"skew": 10, "lattice": 1}),
        ("montecarlo:boost=10", {"skew": 10, "lattice": 1}),
        ("superposition:boost=20", {"boost": 20}),
        ("greedy-rollout:skew=20,endgame=5000,rollouts=200", {"skew": 20, "endgame": 5000, "rollouts": 200}),
    ],
)
def test_stored_specs_still_load_as_the_same_values(stored, fields):
    _, options = registry.resolve(stored)
    assert options == Options(**fields)  # every other field at its default: the same play


def test_a_stored_spec_is_written_anew_by_canonical():
    assert registry.canonical("optimal:skew=20,endgame=12") == "optimal:skew=20,exact=12"
    assert registry.canonical("twoply:plies=1,endgame=5000") == "twoply:endgame=5000,plies=1"
    assert (
        registry.canonical("density:skew=20,lattice=1,lastship=8") == "density:skew=20,lattice=1,lastship=8"
    )


def test_the_old_boost_of_the_exact_shooters_plays_as_the_skew_on_the_lattice():
    """``optimal:boost=P`` now reads as ``skew=P,lattice=1``: the same factor, the same games."""
    rules = Rules(6, 6, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), Spacing.TOUCH, Sinks.NAMED)
    for layout in generators.generate(rules, "uniform", 2, 6):
        old = play(OptimalShooter(Options(boost=10)), layout, np.random.default_rng(1))  # the old path
        new = play(make("optimal:boost=10"), layout, np.random.default_rng(1))
        assert old.shots == new.shots


def test_given_is_kept_out_of_equality_and_the_run_files():
    one, two = Options(skew=0, given={"skew"}), Options()
    assert one == two and hash(one) == hash(two)
    assert dataclasses.asdict(one) == dataclasses.asdict(two)
    assert format_spec("density", one) == "density:skew=0" and format_spec("density", two) == "density"
    assert one.replace(tie="random").given_keys == {"skew", "tie"}
    with pytest.raises(BattleshipError, match="no option named"):
        Options(given={"speed"})


def test_parse_spec_checks_every_key_and_value():
    assert parse_spec("density:tie=random,skew=20") == ("density", Options(tie="random", skew=20))
    with pytest.raises(BattleshipError, match="does not read speed"):
        parse_spec("density:speed=3")


def test_one_name_means_one_thing():
    """A key read by several shooters is the same option everywhere (type, range, choices aside from
    tie's informative, and help aside from shooter-specific wording)."""
    for name in names():
        for option in spec(name).options:
            shared = OPTION[option.name]
            assert (option.kind, option.low, option.high, option.what) == (
                shared.kind,
                shared.low,
                shared.high,
                shared.what,
            ), (name, option.name)
            assert set(option.choices) <= set(shared.choices)
    assert "exact" in {o.name for o in spec("optimal").options}
    assert "endgame" not in {o.name for o in spec("optimal").options}  # its meaning is twoply's


def test_every_shooter_says_whether_it_is_recommended_and_the_reference_lists_its_options():
    text = reference_markdown()
    for name in names():
        s = spec(name)
        assert s.role in ("recommended", "baseline", "experiment")
        assert f"## `{name}`" in text
        for option in s.options:
            assert f"| `{option.name}` |" in text
        for strength in s.strength:
            assert strength.command.startswith(("battleship ", ".venv/bin/python "))
            assert strength.rules in PRESETS
    assert {n for n in names() if spec(n).role == "experiment"} >= {"rollout", "twoply"}
    assert spec("best").recommended


def test_a_class_named_outright_takes_no_options():
    with pytest.raises(BattleshipError, match="takes no options"):
        make("battleship.shooters.random:RandomShooter", skew=1)


def test_the_shooters_command_lists_options_roles_and_strength():
    import json

    from typer.testing import CliRunner

    from battleship.cli import app

    result = CliRunner().invoke(app, ["shooters", "--json", "--rules", "standard"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert list(rows) == names()
    for key in ("name", "summary", "reads", "kernel", "refusal", "unread"):
        assert all(key in row for row in rows.values())
    assert rows["best"]["plays"] == "density:skew=20,lattice=1,lastship=8,book=1"
    density = {o["name"]: o for o in rows["density"]["options"]}
    assert density["skew"]["default"] == 0 and density["skew"]["allowed"] == "0..100"
    assert rows["rollout"]["role"] == "experiment" and not rows["rollout"]["recommended"]
    assert rows["density"]["strength"][0]["command"].startswith("battleship simulate")
    assert rows["optimal"]["aliases"]["endgame"] == "endgame=V is exact=V"
    text = CliRunner().invoke(app, ["shooters"], env={"COLUMNS": "200"}).stdout
    assert "skew=0 (0..100)" in text and "experiment" in text and "44.3655" in text
