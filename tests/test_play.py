"""`rummysim play`: a person against the bots; every bad input is explained, never a crash."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Scripted

from rummysim.cards import CODES, card_code, parse_card, parse_cards, to_text
from rummysim.cli import main
from rummysim.dealing import Deal, deal
from rummysim.engine import play_hand
from rummysim.errors import StrategyError
from rummysim.game import play_game
from rummysim.melds import meld_text
from rummysim.moves import LayOff, Meld
from rummysim.rules import Rules
from rummysim.seeding import first_dealer, hand_key
from rummysim.session import play_session
from rummysim.strategies.greedy import Greedy
from rummysim.terminal import HELP, EndSession, Human, could_play

WHO = ["you", "seat 1 (greedy)"]
ROOT = Path(__file__).parent.parent


class Autopilot:
    """A player who asks for a hint at every prompt and types what it says."""

    def __init__(self, adviser: str = "greedy") -> None:
        self.out: list[str] = []
        self.typed: list[str] = []
        self.queue: list[str | None] = []
        self.says = f"Hint: {adviser} would "

    def write(self, text: str) -> None:
        self.out.append(text)

    def read(self, prompt: str) -> str:
        if not self.queue:
            self.queue = ["hint", None]
        command = self.queue.pop(0)
        if command is None:
            hint = self.out[-1]
            assert hint.startswith(self.says), hint
            steps = hint.removeprefix(self.says).removesuffix(".").split(", then ")
            steps = [re.sub(r" \(take \w\w\)$", "", step) for step in steps]
            command, self.queue = steps[0], list(steps[1:])
        self.typed.append(command)
        return command

    @property
    def text(self) -> str:
        return "\n".join(self.out)


class Typist:
    """Types a fixed script of commands, then ends the input; keeps a transcript."""

    def __init__(self, commands: list[str]) -> None:
        self.commands = list(commands)
        self.out: list[str] = []

    def read(self, prompt: str) -> str:
        if not self.commands:
            raise EOFError
        command = self.commands.pop(0)
        self.out.append(f"{prompt}{command}")
        return command

    def write(self, text: str) -> None:
        self.out.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.out)


def play_stacked(start: Deal, commands: list[str], *, rules: Rules | None = None, bot=None):
    """Play one stacked hand, you first (seat 0), from a script; return the transcript, the result and the bot."""
    rules = rules or Rules()
    typist = Typist(commands)
    human = Human(read=typist.read, write=typist.write, who=WHO, rules=rules)
    bot = bot or Scripted(fallback=Greedy())
    try:
        result = play_hand([human, bot], rules=rules, dealer=1, start=start)
    except StrategyError as error:  # the engine reports the person's quit as seat 0's; the session knows it
        assert error.seat == 0 and isinstance(error.__cause__, EndSession), error
        result = None
    return typist.text, result, bot


# --- whole games --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "against", "rules"),
    [
        (2, ["greedy"], {"target_score": 50}),
        (3, ["greedy", "uniform"], {"ace": "high_or_low", "target_score": 40}),
        (4, ["cautious"], {"going_out": "discard", "target_score": None, "max_hands": 2}),
        # the house rules (R12): the hints follow them, and the hands end by blocks too (a stock of 11)
        (4, ["greedy"], {"lay_off": "after_meld", "take_discard": "must_use", "stock_out": "block", "cards_dealt": 10,
                         "target_score": 60}),
    ],
)  # fmt: skip
def test_a_player_who_follows_every_hint_plays_a_whole_game_exactly_as_greedy(players, against, rules):
    pilot = Autopilot()
    result = play_session(
        players=players, against=against, rules=rules, seed=3, hint="greedy", read=pilot.read, write=pilot.write
    )
    assert result is not None
    assert not re.search(r"Not allowed|Unknown command|Sorry|Not a card", pilot.text)
    bots = against * (players - 1) if len(against) == 1 else against
    table = Rules(n_players=players).replace(**rules)
    as_greedy = play_game(["greedy", *bots], rules=table, seed=3, game=0)
    assert [r._replace(strategy="") for r in result.hands] == [r._replace(strategy="") for r in as_greedy.hands]
    n_hands = result.games[0].n_hands
    assert pilot.text.count("=== end of the hand: ") == n_hands
    assert pilot.out[-2].startswith(f"=== game over after {n_hands} hands: ")
    who = ["you", *(f"seat {s} ({b})" for s, b in enumerate(bots, start=1))]
    assert (
        pilot.out[-1] == "Final scores: " + ", ".join(f"{w} {s}" for w, s in zip(who, result.scores, strict=True)) + "."
    )


@pytest.mark.parametrize("players", [2, 3])
def test_a_player_who_follows_every_hint_of_expert_plays_expert_s_game(players):
    expert = {"strategy": "expert", "samples": 4, "depth": 12}
    pilot = Autopilot("expert")
    rules = {"target_score": None, "max_hands": 2}
    result = play_session(
        players=players, against=["cautious"], rules=rules, seed=5, hint=expert, read=pilot.read, write=pilot.write
    )
    assert result is not None
    table = Rules(n_players=players).replace(**rules)
    as_expert = play_game([expert, *["cautious"] * (players - 1)], rules=table, seed=5, game=0)
    assert [r._replace(strategy="") for r in result.hands] == [r._replace(strategy="") for r in as_expert.hands]


def test_a_whole_game_played_from_a_script_of_moves_at_the_command_line():
    pilot = Autopilot()
    expected = play_session(rules={"target_score": 30}, seed=8, hint="greedy", read=pilot.read, write=pilot.write)
    assert expected is not None
    script = "\n".join(pilot.typed) + "\n"
    command = ["play", "--seed", "8", "--rules", "target_score=30", "--hint", "greedy"]
    result = CliRunner().invoke(main, command, input=script)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    lines = result.output.splitlines()
    assert lines[0] == "Rummy: you (seat 0) against seat 1 (greedy)."
    assert lines[1] == (
        "Rules: basic rummy with target_score=30; 10 cards each; the first to 30 points wins (R11.1). "
        "Seed 8: play these deals again with --seed 8."
    )
    assert re.fullmatch(r"=== game over after \d+ hands: (you win!|seat 1 \(greedy\) wins) ===", lines[-2])
    assert lines[-1] == f"Final scores: you {expected.scores[0]}, seat 1 (greedy) {expected.scores[1]}."
    assert "Your holding: " in result.output and "Table:" in result.output


# --- bad input at the command line: explained, and the same prompt again ------------------------


def human_first_seed() -> int:
    """Return a seed whose first hand you (seat 0) play first: seat 1 deals (R3.4)."""
    return next(seed for seed in range(100) if first_dealer(seed, 0, 2) == 1)


def test_bad_inputs_are_explained_and_the_prompt_comes_again():
    seed = human_first_seed()
    start = deal(Rules(), dealer=1, key=hand_key(seed, 0, 0))
    mine = to_text(start.holdings[0]).split()
    top_code = card_code(start.discard_pile[-1])
    elsewhere = next(code for code in CODES if code not in mine and code != top_code)
    script = [
        "",
        "dance",
        "dicard 5H",
        f"discard {mine[0]}",
        f"meld {' '.join(mine[:3])}",
        "draw",
        "draw the top",
        f"draw {elsewhere}",
        "help",
        "hint",
        "draw discard",
        "draw stock",
        f"discard {top_code}",
        "discard 1S",
        f"discard {elsewhere}",
        "discard",
        f"meld {mine[0]} {mine[1]}",
        f"meld {mine[0]} {mine[0]} {mine[1]}",
        f"meld {elsewhere} {mine[0]} {mine[1]}",
        f"layoff {mine[0]}",
        f"layoff {elsewhere}",
        f"layoff {mine[0]} 3",
        "undo",
        "hint",
        "table",
        "quit",
    ]
    result = CliRunner().invoke(main, ["play", "--seed", str(seed)], input="\n".join(script) + "\n")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    answers = result.output.split("draw> ", 1)[1]
    expected = [
        "Type a command, or help for the list.",
        "Unknown command 'dance'. Type help for the commands.",
        "Unknown command 'dicard': did you mean discard? Type help for the commands.",
        "Draw first: a turn starts by drawing a card from the stock or the discard pile (R4.1).",
        "Draw first: a turn starts by drawing a card from the stock or the discard pile (R4.1).",
        "Draw from where? Type draw stock or draw discard (R4.1).",
        "Draw from where? Type draw stock or draw discard (R4.1).",
        f"{elsewhere} is not on top of the discard pile; draw stock or draw discard (R4.1).",
        HELP.rstrip("\n"),
        "Hint: expert would draw ",
        f"You took {top_code} from the discard pile.",
        "You have drawn this turn (R4.1): now meld, lay off, or discard a card to end your turn.",
        f"Not allowed: discard {top_code}: taken from the discard pile this turn (R4.5).",
        "Not a card: card code '1S' is not a card; a code is a rank (A 2-9 T or 10 J Q K) and a suit "
        "(C D H S), such as 'AS' or '10D' (R1.2).",
        f"Not allowed: discard {elsewhere}: not a card in your holding (R4.3).",
        "Discard what? For example: discard KD.",
        "Not allowed: meld ",
        f"Not a card: card {mine[0]} is given twice; the deck has one of each (R1.2).",
        f"{elsewhere} not in your holding (R4.2).",
        f"Not allowed: {mine[0]} fits no meld on the table: a lay-off is the fourth card of a group or extends "
        "a sequence at either end (R6.1).",
        f"Not allowed: {elsewhere} is not in your holding (R6.1).",
        "There is no meld [3]; the melds on the table are none yet (R6.1).",
        "Nothing to undo: you have not melded or laid off this turn.",
        "Hint: expert would ",
        "Table:",
        "Game stopped (you quit). Scores: you 0, seat 1 (greedy) 0.",
    ]
    position = 0
    for text in expected:
        found = answers.find(text, position)
        assert found >= 0, (text, answers[position:])
        position = found + len(text)
    assert answers.count("draw> ") == 10 and answers.count("play> ") == 15


def test_the_end_of_the_input_stops_the_game_with_a_message():
    result = CliRunner().invoke(main, ["play", "--seed", "4"], input="draw stock\n")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert result.output.splitlines()[-1] == "Game stopped (the input ended). Scores: you 0, seat 1 (greedy) 0."


def test_a_real_process_reading_a_pipe_ends_cleanly_at_the_end_of_its_input():
    done = subprocess.run(
        [sys.executable, "-m", "rummysim", "play", "--seed", "4"],
        input="help\ndraw stock\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines()[-1] == "Game stopped (the input ended). Scores: you 0, seat 1 (greedy) 0."


def test_ctrl_c_at_a_prompt_stops_the_game_with_a_message():
    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    out: list[str] = []
    assert play_session(seed=4, read=interrupt, write=out.append) is None
    assert out[-1] == "Game stopped (interrupted). Scores: you 0, seat 1 (greedy) 0."


def test_a_bug_in_a_command_is_reported_and_the_game_goes_on(monkeypatch):
    import rummysim.terminal as terminal

    real, calls = terminal.apply_plays, []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("boom")
        return real(*args, **kwargs)

    monkeypatch.setattr(terminal, "apply_plays", flaky)
    start = Deal.of(["7H 8H 9H 2C", "AS 5D 9C"], discard_pile="KD", stock="QS")
    text, _, _ = play_stacked(start, ["draw stock", "meld 7H 8H 9H", "meld 7H 8H 9H", "discard QS", "quit"])
    assert "Sorry, that command failed (ValueError: boom); the game goes on, please try another." in text
    assert "You meld 7H 8H 9H as meld [1]." in text


# --- the rules, move by move, on stacked deals (R4-R7) ------------------------------------------


def test_r4_5_the_card_taken_may_not_be_discarded():
    start = Deal.of(["7H 8H 2C 5D 9S", "AS 5C 9C"], discard_pile="KS")
    text, _, bot = play_stacked(start, ["draw discard", "discard KS", "discard 9S"])
    assert "play> discard KS\nNot allowed: discard KS: taken from the discard pile this turn (R4.5).\nplay> " in text
    assert bot.views[0].discard_pile[-1] == 38 + 9  # 9S, the discard that was allowed


def test_r4_6_the_empty_discard_pile_can_not_be_drawn():
    start = Deal.of(["7H 8H 2C", "AS 5C 9C"], discard_pile="", stock="KD")
    text, _, _ = play_stacked(start, ["draw discard", "draw stock", "discard KD"])
    assert "Draw a card: draw stock (the discard pile is empty, R4.6)." in text
    assert "Not allowed: draw discard: the discard pile is empty, so the card must come from the stock (R4.6)." in text
    assert "You drew KD from the stock." in text


def test_r4_7_plays_may_not_leave_only_the_card_taken():
    start = Deal.of(["7H 8H 9H", "AS 5C 9C"], discard_pile="KS")
    text, _, bot = play_stacked(start, ["draw discard", "meld 7H 8H 9H", "discard 7H"])
    assert (
        "Not allowed: the plays leave only KS, taken from the discard pile this turn, which may not be discarded "
        "(R4.7)." in text
    )
    assert bot.views[0].table == ()


def test_going_out_by_a_meld_ends_the_hand_without_a_discard_and_may_go_rummy():
    start = Deal.of(["7H 8H 9H", "AS 5C 9C"], discard_pile="KS", stock="TH")
    text, result, _ = play_stacked(start, ["draw stock", "meld 7H 8H 9H TH"])
    assert result.winner == 0 and str(result.went_out_by) == "meld" and result.went_rummy
    assert result.points == 2 * (1 + 5 + 9)
    assert "=== end of the hand: You go out by melding the last card, going rummy: points doubled (R8.3), " in text
    assert "  seat 1 (greedy) holds 5C 9C | AS: 15 points" in text


def test_r7_2_with_discard_to_go_out_the_last_card_must_be_discarded():
    rules = Rules(going_out="discard")
    start = Deal.of(["7H 8H 9H", "AS 5C 9C"], discard_pile="KS", stock="TH")
    text, result, _ = play_stacked(
        start, ["draw stock", "meld 7H 8H 9H TH", "meld 7H 8H 9H", "discard TH"], rules=rules
    )
    assert (
        "Not allowed: the plays leave no card, but with going_out: discard the last card must be discarded (R7.2)."
        in text
    )
    assert result.winner == 0 and str(result.went_out_by) == "discard"


def test_r6_1_lay_offs_find_their_meld_or_ask_which_and_can_be_undone():
    start = Deal.of(
        ["6C 7C 2D KH", "AS 5D 9C"], discard_pile="2S", stock="QS", table=[("6D 6H 6S", 1), ("3C 4C 5C", 1)]
    )
    script = [
        "draw stock",
        "layoff 6C",
        "lay off 6C 2",
        "undo",
        "table",
        "layoff 6C 7C",
        "layoff 6C 7C 2",
        "discard KH",
    ]
    text, _, bot = play_stacked(start, script)
    assert "6C fits more than one meld; say which: layoff 6C 1 or layoff 6C 2." in text
    assert "You lay off 6C on meld [2] 3C 4C 5C 6C.\nYour holding: 7C | 2D | KH | QS" in text
    assert "Taken back: layoff 6C 2.\nYour holding: 6C 7C | 2D | KH | QS" in text
    assert "You lay off 6C on meld [2] 3C 4C 5C 6C.\nYou lay off 7C on meld [2] 3C 4C 5C 6C 7C.\n" in text
    table = bot.views[0].table
    assert [t.laid_off for t in table] == [(), ((5, 0), (6, 0))]


# --- the house rules (R12) at the terminal --------------------------------------------------------


def test_r12_1_with_lay_off_after_meld_you_lay_off_once_you_have_melded():
    rules = Rules(lay_off="after_meld")
    start = Deal.of(["6C 2D KH 7H 8H 9H", "AS 5D 9C"], discard_pile="2S", stock="QS", table=[("3C 4C 5C", 1)])
    script = ["help", "draw stock", "layoff 6C", "meld 7H 8H 9H", "layoff 6C", "discard KH"]
    text, _, bot = play_stacked(start, script, rules=rules)
    assert "House rules at this table:\nYou lay off only once you have melded this hand; a meld earlier in" in text
    assert (
        "play> layoff 6C\nNot allowed: with lay_off: after_meld you lay off only once you have melded this hand "
        "(R12.1).\nplay> meld 7H 8H 9H\n" in text
    )
    assert "You lay off 6C on meld [1] 3C 4C 5C 6C." in text
    assert [t.laid_off for t in bot.views[0].table] == [((5, 0),), ()]


def test_r12_2_with_take_discard_must_use_you_take_the_discard_only_to_play_it():
    rules = Rules(take_discard="must_use")
    start = Deal.of(["7H 8H 2C 2D 2S 5D KC", "AS 5C 9C"], discard_pile="KS 9H", stock="QD")
    script = ["draw discard", "meld 2C 2D 2S", "discard 5D", "meld 7H 8H 9H", "discard 5D"]
    text, _, bot = play_stacked(start, script, rules=rules)
    assert "Draw a card: draw stock, or draw discard to take 9H (only to meld or lay it off this turn, R12.2)." in text
    assert "You meld 2C 2D 2S as meld [1]." in text  # a play before the card taken's: the turn goes on
    assert (
        "play> discard 5D\nNot allowed: the plays keep 9H, taken from the discard pile this turn; with take_discard: "
        "must_use it must be melded or laid off in the same turn (R12.2).\nplay> meld 7H 8H 9H\n" in text
    )
    assert [meld_text(t.cards) for t in bot.views[0].table] == ["2C 2D 2S", "7H 8H 9H"]
    start = Deal.of(["7H 8H 2C 5D 9S", "AS 5C 9C"], discard_pile="KS", stock="QD")
    text, _, _ = play_stacked(start, ["draw discard", "draw stock", "discard QD"], rules=rules)
    assert (
        "draw> draw discard\nNot allowed: draw discard: KS could not be melded or laid off this turn, and with "
        "take_discard: must_use the top discard is taken only to play it (R12.2).\ndraw> draw stock\n" in text
    )


def test_r12_2_the_top_discard_can_be_played_by_a_meld_or_a_lay_off_after_the_cards_between():
    rules = Rules(take_discard="must_use", lay_off="after_meld")
    table = [parse_cards("3C 4C 5C")]
    common = {"table": table, "melded": False, "rules": rules}
    assert could_play(parse_card("7C"), holding=parse_cards("6C 9D 9H 9S KD"), **common)  # 9s first, then 6C 7C
    assert not could_play(parse_card("7C"), holding=parse_cards("6C 9D KD"), **common)  # no meld: no lay-off (R12.1)
    assert could_play(parse_card("7C"), holding=parse_cards("6C 9D KD"), **{**common, "melded": True})
    assert could_play(parse_card("7C"), holding=parse_cards("8C 9C KD"), **common)  # a meld with it
    discard = Rules(take_discard="must_use", going_out="discard")  # a meld may not empty the holding (R7.2)
    assert not could_play(parse_card("7C"), holding=parse_cards("8C 9C"), table=[], melded=False, rules=discard)


def test_r12_3_with_block_rummy_an_empty_stock_ends_the_hand_and_the_lowest_hand_value_wins():
    rules = Rules(stock_out="block")
    named = {"AS", "2C", "KH", "QH", "KD"}
    rest = " ".join(code for code in CODES if code not in named)  # everything else in the discard pile
    start = Deal.of(["AS 2C", "KH QH"], discard_pile=rest, stock="KD")
    text, result, _ = play_stacked(start, ["draw stock", "discard KD"], rules=rules)
    assert result.winner == 0 and str(result.went_out_by) == "block" and result.points == 20 - 3
    assert "=== end of the hand: blocked: the stock ran out, lowest hand value wins: You score 17 (R12.3) ===" in text
    assert "  You hold 2C | AS: 3 points\n  seat 1 (greedy) holds QH KH: 20 points" in text


def test_hints_say_what_greedy_would_do_as_commands_to_type():
    start = Deal.of(["7H 8H 4C KD 5S", "AS 5D 9C"], discard_pile="9H", table=[("AC 2C 3C", 1)])
    text, _, _ = play_stacked(start, ["hint", "draw discard", "hint", "quit"])
    assert "draw> hint\nHint: greedy would draw discard (take 9H)." in text
    assert "play> hint\nHint: greedy would meld 7H 8H 9H, then layoff 4C, then discard KD." in text


def test_the_table_shows_melds_with_their_owners_the_piles_and_the_sorted_holding():
    start = Deal.of(["KH 2C 9S 2H TD", "AS 5D 9C"], discard_pile="4D 8S", stock="QS 3D", table=[("7C 7D 7S", 1)])
    text, _, _ = play_stacked(start, ["quit"])
    assert text.splitlines()[:10] == [
        "",
        "=== hand 1: seat 1 (greedy) deals, you play first ===",
        "",
        "--- hand 1, turn 1: your turn ---",
        "Table:",
        "  [1] 7C 7D 7S        melded by seat 1 (greedy)",
        f"Discard pile: 8S on top (2 cards); stock: {52 - 5 - 3 - 2 - 3} cards",
        "Cards held: seat 1 (greedy) 3",
        "Scores: you 0, seat 1 (greedy) 0 (first to 150 points wins)",
        "Your holding: 2C | TD | 2H KH | 9S",
    ]


def test_the_bots_moves_are_told_as_they_happen():
    start = Deal.of(["2C 9S", "7H 8H 9H KD"], discard_pile="4D", stock="QS TH")
    bot = Scripted(draws=["stock"], plays=[[Meld.of("7H 8H 9H"), LayOff.of("TH", 0)]], discards=["KD"])
    text, result, _ = play_stacked(start, ["draw stock", "discard 9S"], bot=bot)
    assert "seat 1 (greedy) draws from the stock\nseat 1 (greedy) melds 7H 8H 9H as meld [1]" in text
    assert "seat 1 (greedy) lays off TH on meld [1]\nseat 1 (greedy) discards KD" in text
    assert result.winner == 1


# --- the command's options: one-line errors ----------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "7"], "--players: 7 players given, rummy takes 2 to 6, you included (R1.1)"),
        (["--players", "1"], "--players: 1 players given, rummy takes 2 to 6, you included (R1.1)"),
        (
            ["--players", "2", "--against", "greedy,uniform"],
            "--against: 2 bots named for --players 2 (1 opponents); name 1, or one to play them all",
        ),
        (["--against", "gredy"], "strategy 'gredy' is unknown (did you mean 'greedy'?); strategies are "),
        (["--rules", "target_scor=50"], "target_scor: not a rule setting; did you mean 'target_score'?"),
        (["--rules", "fast"], "--rules 'fast': expected KEY=VALUE, such as target_score=50"),
        (
            ["--rules", "n_players=3"],
            "--rules n_players: the number of players comes from --players and --against (R1.1)",
        ),
        (["--rules", "ace=hi"], "ace: 'hi' is not one of low, high_or_low (R5.3, R9.1)"),
        (["--seed", "-1"], "--seed: -1 is below the smallest valid value, 0"),
    ],
)
def test_bad_options_are_one_line_errors(args, message):
    result = CliRunner().invoke(main, ["play", *args], input="quit\n")
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"Error: {message}"), result.output
    assert result.output.count("\n") == 1
    assert "Traceback" not in result.output


def test_a_random_seed_is_chosen_and_printed():
    typist = Typist(["quit"])
    play_session(read=typist.read, write=typist.write, choose_seed=lambda: 4242)
    assert "Seed 4242: play these deals again with --seed 4242." in typist.text
    assert typist.out[-1] == "Game stopped (you quit). Scores: you 0, seat 1 (greedy) 0."


# --- the documented transcripts are real --------------------------------------------------------


def sample(path: str, command: str) -> tuple[list[str], list[str]]:
    """Return the arguments and the lines of the shown output of a ``$ rummysim ...`` sample in a doc."""
    text = (ROOT / path).read_text()
    start = text.index(f"$ rummysim {command}")
    block = text[start : text.index("```", start)].splitlines()
    args = block[0].split("#")[0].split()[1:]
    lines = []
    for line in block[1:]:
        if line.startswith("$ "):
            break
        lines.append(line)
    return args, lines


def assert_shown_in_order(shown: list[str], output: list[str]) -> None:
    """Assert each run of shown lines between ``...`` is a run of the output, in order."""
    runs: list[list[str]] = [[]]
    for line in shown:
        if line == "...":
            runs.append([])
        else:
            runs[-1].append(line)
    position = 0
    for run in filter(None, runs):
        found = next((i for i in range(position, len(output)) if output[i : i + len(run)] == run), None)
        assert found is not None, (run, output[position:])
        position = found + len(run)


@pytest.mark.parametrize("path", ["README.md", "docs/watch-and-play.md"])
def test_the_documented_game_is_what_the_command_prints(path):
    args, shown = sample(path, "play")
    typed = [line.split("> ", 1)[1] for line in shown if line.startswith(("draw> ", "play> "))]
    result = CliRunner().invoke(main, args[1:], input="\n".join([*typed, "quit"]) + "\n")
    assert result.exit_code == 0, result.output
    commands = iter(typed)
    output = re.sub(r"(draw|play)> ", lambda m: f"{m.group(0)}{next(commands, '')}\n", result.output)
    assert_shown_in_order(shown, output.splitlines())
