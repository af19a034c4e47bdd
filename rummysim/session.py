"""A game at the terminal: a person (seat 0) against bots, hand after hand to the game's end (R11).

`play_session` checks the table's settings first (any error is one `ConfigError` line,
before a card is dealt), then plays one game with `play_game`: the person is a `Human`
strategy, the bots are built from their names with the streams of the seed, and the
engine enforces every rule. The seed is printed, so the same deals can be played
again. `quit`, the end of the input or Ctrl-C end the game with a message.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import yaml

from rummysim.errors import ConfigError, StrategyError, whole_number
from rummysim.game import GameResult, play_game
from rummysim.render import scores_text
from rummysim.rules import Rules
from rummysim.seeding import strategy_rng
from rummysim.specs import Spec
from rummysim.strategies import check_strategy, make_strategy, strategy_label
from rummysim.strategies.expert import Expert
from rummysim.terminal import EndSession, Human, Reader, Writer

DEFAULT_BOT = "greedy"
DEFAULT_ADVISER = "expert"
"""The bot whose moves ``hint`` tells, unless another is chosen: the strongest of the ladder."""
MAX_THINK = 60.0
"""The longest time budget a decision may have at the terminal (``--think``), in seconds."""


def parse_settings(items: Sequence[str]) -> dict[str, Any]:
    """Return rule settings from ``KEY=VALUE`` texts; values are read as YAML (``30``, ``null``)."""
    settings: dict[str, Any] = {}
    for item in items:
        key, equals, text = item.partition("=")
        key = key.strip()
        if not equals or not key:
            raise ConfigError(f"--rules {item!r}: expected KEY=VALUE, such as target_score=50")
        if key == "n_players":
            raise ConfigError("--rules n_players: the number of players comes from --players and --against (R1.1)")
        try:
            settings[key] = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError:
            settings[key] = text
    return settings


def lineup(*, players: int | None, against: Sequence[str]) -> list[str]:
    """Return the bots' names for seats 1 to N-1; one name given is repeated (R1.1)."""
    bots = [name.strip() for name in against if name.strip()]
    n = players if players is not None else (len(bots) + 1 if bots else 2)
    if not 2 <= n <= 6:
        raise ConfigError(f"--players: {n} players given, rummy takes 2 to 6, you included (R1.1)")
    if not bots:
        bots = [DEFAULT_BOT]
    if len(bots) == 1:
        bots = bots * (n - 1)
    if len(bots) != n - 1:
        raise ConfigError(
            f"--against: {len(bots)} bots named for --players {n} ({n - 1} opponents); "
            f"name {n - 1}, or one to play them all"
        )
    for name in bots:
        check_strategy(name)
    return bots


def play_session(
    *,
    players: int | None = None,
    against: Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
    seed: int | None = None,
    hint: Spec = DEFAULT_ADVISER,
    think: float | None = None,
    read: Reader = input,
    write: Writer = print,
    choose_seed: Callable[[], int] = lambda: random.SystemRandom().randrange(1_000_000),
) -> GameResult | None:
    """Play one game at the terminal: you in seat 0 against bots; return the result, or None if stopped.

    `players` counts you; `against` names the bots (one name is repeated); `rules` holds
    rule settings (``{"target_score": 50}``); `seed` fixes the deals (a random one is
    chosen and printed if None). `hint` names the bot whose moves ``hint`` tells; it plays
    from the stream seat 0 would have, so following every hint plays that bot's game.
    `think` gives each expert (the opponents and the adviser) about that many seconds a
    decision instead of its deals (`Expert.think_for`); None keeps its deals, the same
    moves on any machine.
    `read` and `write` are the terminal (``input`` and ``print`` by default).
    """
    bots = lineup(players=players, against=against)
    n = len(bots) + 1
    table_rules = Rules(n_players=n).replace(**dict(rules or {}))
    if seed is None:
        seed = choose_seed()
    whole_number(seed, name="--seed", low=0)
    who = ["you", *(f"seat {s} ({strategy_label(b)})" for s, b in enumerate(bots, start=1))]
    if think is not None and not (isinstance(think, (int, float)) and 0 < think <= MAX_THINK):
        raise ConfigError(f"--think: {think!r} seconds; give more than 0 and at most {MAX_THINK}")
    try:
        adviser = make_strategy(hint, rng=strategy_rng(seed, 0, 0))
    except ConfigError as error:
        raise ConfigError(f"--hint: {error}; name another adviser, such as --hint greedy") from None
    seated = [make_strategy(name, rng=strategy_rng(seed, 0, seat)) for seat, name in enumerate(bots, start=1)]
    for bot in (adviser, *seated):
        if think is not None and isinstance(bot, Expert):
            bot.think_for(think)
    human = Human(read=read, write=write, who=who, rules=table_rules, seat=0, adviser=adviser)
    write(f"Rummy: you (seat 0) against {', '.join(who[1:])}.")
    write(f"Rules: {_rules_text(table_rules)}. Seed {seed}: play these deals again with --seed {seed}.")
    write(f"Type help at any prompt for the commands, hint for {strategy_label(hint)}'s move, quit to stop.")
    try:
        result = play_game([human, *seated], rules=table_rules, seed=seed, game=0)
    except StrategyError as error:  # the engine reports what any seat raises as its failure; the person's quit too
        end = error.__cause__
        if error.seat != human.seat or not isinstance(end, EndSession):
            raise
        write("")
        write(f"Game stopped ({end.reason}). Scores: {scores_text(human.scores, who)}.")
        return None
    except KeyboardInterrupt:
        write("")
        write(f"Game stopped (interrupted). Scores: {scores_text(human.scores, who)}.")
        return None
    write("")
    write(f"=== game over after {result.games[0].n_hands} hands: {_verdict(result, who)} ===")
    write(f"Final scores: {scores_text(list(result.scores), who)}.")
    return result


def _verdict(result: GameResult, who: Sequence[str]) -> str:
    """Return who won (R11.1), who tied (R11.2), or that the game ended unfinished (R10.2)."""
    if any(g.stalled for g in result.games):
        return "unfinished, too many hands in a row stalled (R10.2)"
    winner = result.winner
    if winner == 0:
        return "you win!"
    if winner is not None:
        return f"{who[winner]} wins"
    tied = [who[g.seat] for g in result.games if g.tied]
    return f"a tie between {' and '.join(tied)} (R11.2)"


def _rules_text(rules: Rules) -> str:
    changed = [f"{k}={v}" for k, v in rules.changes().items()]
    variant = f"basic rummy with {', '.join(changed)}" if changed else "basic rummy"
    hands = f"{rules.max_hands} hand{'s' if rules.max_hands != 1 else ''}"
    if rules.max_hands is None:
        end = f"the first to {rules.target_score} points wins (R11.1)"
    elif rules.target_score is None:
        end = f"the most points after {hands} wins (R11.2)"
    else:
        end = f"the first to {rules.target_score} points wins, or the most points after {hands} (R11)"
    return f"{variant}; {rules.n_dealt} cards each; {end}"
