"""The bot ladder and the plug-in interface: loading by name, entry point and path; time limits."""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest
from click.testing import CliRunner

from rummysim.cards import FULL_DECK, parse_card, parse_cards
from rummysim.cli import main
from rummysim.dealing import Deal
from rummysim.engine import play_hand
from rummysim.errors import ConfigError, StrategyError
from rummysim.experiment import parse_experiment
from rummysim.game import play_game
from rummysim.moves import Discarded, Drew, HandStarted, Pile
from rummysim.records import recompute_points
from rummysim.rules import Rules
from rummysim.strategies import REGISTRY, available_strategies, make_strategy, strategy_class, strategy_params
from rummysim.strategies.cautious import Cautious
from rummysim.strategies.greedy import Greedy
from rummysim.strategies.montecarlo import MonteCarlo
from rummysim.strategies.rummy_hunter import RummyHunter

BOT = """
from rummysim import Pile, Strategy


class Stocky(Strategy):
    name = "stocky"
    description = "always draws from the stock and discards what it drew"

    def __init__(self, *, rng=None, patience: int = 3):
        super().__init__(rng=rng)
        self.patience = patience

    def draw(self, view):
        return Pile.STOCK

    def play(self, view):
        return []

    def discard(self, view):
        return view.drawn
"""


def test_the_ladder_is_registered_with_descriptions_and_parameters():
    for name in ("uniform", "greedy", "rummy_hunter", "cautious", "montecarlo"):
        assert name in REGISTRY and REGISTRY[name].description
    assert strategy_params(REGISTRY["montecarlo"]) == {
        "samples": 24,
        "candidates": 4,
        "depth": 40,
        "confidence": 2.0,
        "playout_hope": False,
        "tries": 1,
        "patience": 6,
        "alarm": 3,
    }
    assert set(strategy_params(REGISTRY["rummy_hunter"])) == {"patience", "danger"}


def test_strategies_command_lists_every_strategy_and_its_parameters():
    result = CliRunner().invoke(main, ["strategies"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    for name in ("uniform", "greedy", "rummy_hunter", "cautious", "montecarlo"):
        assert any(line.startswith(name + " ") for line in lines), name
    assert (
        "parameters: samples=24, candidates=4, depth=40, confidence=2.0, playout_hope=False, tries=1, patience=6,"
        in (result.output)
    )


def test_a_bot_loads_from_a_file_path(tmp_path):
    path = tmp_path / "my_bots.py"
    path.write_text(BOT)
    cls = strategy_class(f"{path}:Stocky")
    assert cls.__name__ == "Stocky"
    result = play_game([{"strategy": f"{path}:Stocky", "patience": 5}, "greedy"], seed=2)
    assert result.games[0].strategy.endswith("my_bots.py:Stocky(patience=5)")


def test_a_file_path_in_an_experiment_is_relative_to_the_experiment_file(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "my_bots.py").write_text(BOT)
    spec = {"name": "x", "question": "q", "seed": 1, "games": 2, "players": ["bots/my_bots.py:Stocky", "greedy"]}
    experiment_file = tmp_path / "x.yaml"
    experiment_file.write_text("")
    experiment = parse_experiment(spec, source=str(experiment_file))
    assert experiment.conditions[0].players[0]["strategy"] == f"{tmp_path / 'bots' / 'my_bots.py'}:Stocky"


def test_a_bot_loads_from_a_module_path(tmp_path, monkeypatch):
    (tmp_path / "club_bots.py").write_text(BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert strategy_class("club_bots:Stocky").name == "stocky"
    assert strategy_class("rummysim.strategies.greedy:Greedy") is Greedy


def test_a_bot_loads_from_an_installed_entry_point(tmp_path, monkeypatch):
    (tmp_path / "plugin_bots.py").write_text(BOT)
    info = tmp_path / "plugin_bots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugin-bots\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[rummysim.strategies]\nstocky = plugin_bots:Stocky\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert strategy_class("stocky").__name__ == "Stocky"
    assert "stocky" in available_strategies()
    assert "stocky " in CliRunner().invoke(main, ["strategies"]).output
    assert make_strategy({"strategy": "stocky", "patience": 1}, rng=np.random.default_rng(0)).patience == 1


def test_bad_strategy_names_and_parameters_list_what_is_valid(tmp_path):
    with pytest.raises(ConfigError, match=r"'montecarlo' has no parameter 'sample' \(did you mean 'samples'\?\)"):
        make_strategy({"strategy": "montecarlo", "sample": 3}, rng=np.random.default_rng(0))
    with pytest.raises(
        ConfigError, match="its parameters are samples, candidates, depth, confidence, playout_hope, tries, patience"
    ):
        make_strategy({"strategy": "montecarlo", "zzz": 3}, rng=np.random.default_rng(0))
    with pytest.raises(ConfigError, match=r"no file .*missing.py"):
        strategy_class(f"{tmp_path}/missing.py:Bot")
    with pytest.raises(ConfigError, match="has no Nope"):
        strategy_class("rummysim.strategies.greedy:Nope")
    with pytest.raises(ConfigError, match="is not a class with draw, play and discard"):
        strategy_class("rummysim.strategies.greedy:plan_plays")
    with pytest.raises(
        ConfigError, match="strategy 'montecarlo' parameter samples: 0 is below the smallest valid value, 2"
    ):
        make_strategy({"strategy": "montecarlo", "samples": 0}, rng=np.random.default_rng(0))


class Sleepy(Greedy):
    name = "sleepy"
    nap = 2.0

    def __init__(self) -> None:
        super().__init__()
        self.woke = False

    def discard(self, view):
        time.sleep(self.nap)
        self.woke = True  # reached only if the decision was not interrupted
        return super().discard(view)


def test_a_bot_over_its_time_limit_is_stopped_with_a_clear_error():
    sleepy = Sleepy()
    with pytest.raises(StrategyError, match=r"seat \d \(sleepy\) took longer than the time limit of 0.05 s"):
        play_hand([sleepy, Greedy()], rules=Rules(), seed=1, time_limit=0.05)
    assert not sleepy.woke  # interrupted on the main thread, not waited for


def test_the_time_limit_is_judged_after_the_decision_off_the_main_thread():
    errors = []
    sleepy = Sleepy()
    sleepy.nap = 0.2

    def run():
        try:
            play_hand([sleepy, Greedy()], rules=Rules(), seed=1, time_limit=0.05)
        except StrategyError as error:
            errors.append(str(error))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert errors and "time limit" in errors[0]
    assert sleepy.woke  # off the main thread the decision runs to its end, then is judged


def test_a_generous_time_limit_changes_nothing():
    fast = play_hand(["greedy", "cautious"], rules=Rules(), seed=9)
    limited = play_hand(["greedy", "cautious"], rules=Rules(), seed=9, time_limit=5.0)
    assert fast.records == limited.records


def test_rummy_hunter_hides_its_melds_until_it_can_go_out_at_once_r8_3():
    view_deal = Deal.of(["7H 8H 9H 2C 5D", "3S 4S 6D 9C TC"], discard_pile="KD", stock="JS QS KS AC")
    hunter = RummyHunter(patience=10, danger=0)
    result = play_hand([Greedy(), hunter], rules=Rules(cards_dealt=5, stall_after_turns=2), start=view_deal)
    melds = [e for e in result.events if type(e).__name__ == "Melded"]
    assert not any(e.seat == 1 for e in melds)  # it held 7H 8H 9H back
    out = Deal.of(["2S 5S 9D JD QD", "7H 8H 9H 4C 4D"], discard_pile="KD", stock="4H JS QS")
    result = play_hand([Greedy(), RummyHunter()], rules=Rules(cards_dealt=5), start=out, dealer=0)
    assert result.winner == 1 and result.went_rummy and result.records[1].multiplier == 2


def test_montecarlo_with_patience_hides_its_melds_while_the_rummy_bonus_pays_r8_3():
    from rummysim.strategies.base import PlayerView

    def view(rules: Rules, holding: str, turn: int = 2, other: int = 10) -> PlayerView:
        return PlayerView(
            seat=0, n_players=2, dealer=1, rules=rules, hand=0, turn=turn, holding=parse_cards(holding),
            drawn=None, taken=None, table=(), discard_pile=(parse_card("2C"),), stock_size=30,
            holding_sizes=(len(holding.split()), other), has_melded=(False, False), scores=(0, 0), n_rebuilds=0,
            history=(),
        )  # fmt: skip

    meld = parse_cards("7H 8H 9H")
    hunter, plain = MonteCarlo(samples=2), MonteCarlo(samples=2, patience=0)
    assert hunter.play(view(Rules(), "7H 8H 9H 2C 5D KS")) == []
    assert [p.cards for p in plain.play(view(Rules(), "7H 8H 9H 2C 5D KS"))] == [meld]
    assert [p.cards for p in hunter.play(view(Rules(), "7H 8H 9H 2C 5D KS", turn=12))] == [meld]  # out of patience
    assert [p.cards for p in hunter.play(view(Rules(rummy_multiplier=1), "7H 8H 9H 2C 5D KS"))] == [meld]
    assert hunter.play(view(Rules(), "7H 8H 9H 2C 5D KS", other=4)) == []
    assert [p.cards for p in hunter.play(view(Rules(), "7H 8H 9H 2C 5D KS", other=3))] == [meld]  # alarm=3
    assert len(hunter.play(view(Rules(), "7H 8H 9H 5D 5C 5S 2C"))) == 2  # rummy: out with the 2C


def test_cautious_will_not_feed_the_next_player_a_card_it_has_shown_it_wants():
    bot = Cautious(caution=50, hope=0)
    bot.observe(HandStarted(0, 0, parse_card("2C")))
    bot.observe(Drew(1, Pile.DISCARD, parse_card("KS")))
    bot.observe(Drew(1, Pile.DISCARD, parse_card("KC")))
    from rummysim.strategies.base import PlayerView

    view = PlayerView(
        seat=0, n_players=2, dealer=1, rules=Rules(), hand=0, turn=2, holding=parse_cards("KH 9D 4C 2S"),
        drawn=None, taken=None, table=(), discard_pile=(parse_card("2C"),), stock_size=30, holding_sizes=(4, 11),
        has_melded=(False, False), scores=(0, 0), n_rebuilds=0, history=(),
    )  # fmt: skip
    assert bot.danger(parse_card("KH"), view) == 1.0
    assert bot.discard(view) == parse_card("9D")  # KH would complete the kings; greedy would throw it
    assert Greedy().discard(view) == parse_card("KH")


def _montecarlo_view(seed: int = 4):
    """Return the view of montecarlo's last discard in a hand against greedy."""
    seen: list = []

    class Spy(MonteCarlo):
        def discard(self, view):
            seen.append(view)
            return super().discard(view)

    play_hand([Spy(rng=np.random.default_rng(3), samples=2), "greedy"], rules=Rules(), seed=seed, dealer=1)
    return seen[-1]


@pytest.mark.parametrize("tries", [1, 8])
def test_montecarlo_deals_unseen_cards_consistently_with_its_view(tries):
    bot = MonteCarlo(rng=np.random.default_rng(3), samples=2, tries=tries)
    view = _montecarlo_view()
    for event in view.history:
        bot.observe(event)
    for _ in range(20):
        position = bot.determinize(view)
        assert position.holdings[view.seat] == view.holding
        assert [h.bit_count() for h in position.holdings] == list(view.holding_sizes)
        everything = sum(position.holdings) + sum(1 << c for c in position.stock + position.discard_pile)
        everything += sum(position.table)
        assert everything == FULL_DECK and len(position.stock) == view.stock_size
        for seat, known in enumerate(bot.taken):
            if seat != view.seat:
                assert position.holdings[seat] & known == known


def test_montecarlo_reads_the_cards_a_seat_passed_on():
    bot = MonteCarlo(samples=2)
    arr = bot._arrange(Rules())
    bot.observe(HandStarted(hand=0, dealer=0, upcard=parse_card("5H")))
    bot.observe(Drew(seat=1, pile=Pile.STOCK, card=None))  # it left the 5H
    assert not bot._turned(1)
    bot.observe(Discarded(seat=1, card=parse_card("9C")))
    assert bot.passed[1] == parse_cards("5H 9C") and bot._turned(1)
    pairs = bot._pairs(1, Rules().ace)

    def misfits(cards: str) -> int:
        return bot.misfits(parse_cards(cards), 1, pairs=pairs, arr=arr, ace_value=1)

    assert misfits("2C 4D 6S 8H JC KD") == 0
    assert misfits("5C 5D 2S 8H JC KD") == 1  # the 5s would have taken the 5H
    assert misfits("6H 7H 2S 10D JC KD") == 1  # so would the 6-7 of hearts
    assert misfits("10C JC 2S 8H 4D KD") == 1  # and 10-J of clubs would have kept the 9C
    assert misfits("KC KD KS 8H 4D 2S") == 1  # a greedy-like seat would have melded the kings
    assert misfits("KC KD KS 5C 5D 2S") == 2


def test_montecarlo_tries_deal_hidden_cards_that_fit_how_a_seat_played():
    views = [_montecarlo_view(seed) for seed in range(12)]  # pooled: one hand rarely shows enough

    def mean_misfits(tries: int) -> float:
        counts = []
        for view in views:
            other = 1 - view.seat
            bot = MonteCarlo(rng=np.random.default_rng(5), samples=2, tries=tries)
            for event in view.history:
                bot.observe(event)
            pairs = bot._pairs(other, view.rules.ace)
            arr = bot._arrange(view.rules)
            counts += [
                bot.misfits(bot.determinize(view).holdings[other], other, pairs=pairs, arr=arr, ace_value=1)
                for _ in range(40)
            ]
        return float(np.mean(counts))

    uniform, read = mean_misfits(1), mean_misfits(16)
    assert uniform >= 0.05 and read < uniform / 3


def test_montecarlo_is_deterministic_given_its_stream():
    a = play_hand([{"strategy": "montecarlo", "samples": 4}, "greedy"], rules=Rules(), seed=12)
    b = play_hand([{"strategy": "montecarlo", "samples": 4}, "greedy"], rules=Rules(), seed=12)
    assert a.records == b.records


def test_observers_get_frozen_events_and_cannot_change_the_game():
    class Meddler(Cautious):
        def observe(self, event):
            super().observe(event)
            if isinstance(event, Discarded):
                with pytest.raises(AttributeError):
                    event.card = 0  # type: ignore[misc]

    meddled = play_hand([Meddler(), "greedy"], rules=Rules(), seed=21)
    plain = play_hand([Cautious(), "greedy"], rules=Rules(), seed=21)
    assert meddled.records == plain.records


@pytest.mark.parametrize("spec", ["rummy_hunter", "cautious", {"strategy": "montecarlo", "samples": 2}])
def test_every_bot_plays_every_preset_legally(spec):
    """Every move is checked by the engine and every card audited after each event (R1.2); the hand is scored (R8)."""
    for rules in (Rules(), Rules(ace="high_or_low"), Rules(going_out="discard"), Rules(n_players=4)):
        players = [spec] + ["greedy"] * (rules.n_players - 1)
        result = play_hand(players, rules=rules, seed=3, audit=True)
        assert result.stalled == (result.winner is None)
        assert result.points == recompute_points(result.records, rules=rules)
        assert [r.won for r in result.records].count(True) == (0 if result.stalled else 1)
        if result.winner is not None:
            assert result.records[result.winner].holding_end == ""  # the winner went out (R7)


def test_importing_a_file_bot_twice_reuses_the_module(tmp_path):
    path = tmp_path / "twice.py"
    path.write_text(BOT)
    assert strategy_class(f"{path}:Stocky") is strategy_class(f"{path}:Stocky")
    assert any(name.startswith("rummysim_plugin_") for name in sys.modules)


def test_uniform_rummy_hunter_cautious_and_montecarlo_replay_exactly():
    for spec in ("uniform", "rummy_hunter", "cautious"):
        assert play_game([spec, "greedy"], seed=8).hands == play_game([spec, "greedy"], seed=8).hands
