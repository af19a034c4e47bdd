"""A person at the terminal as a player: the table drawn for them, their moves typed as card codes.

`Human` is a `Strategy` like any bot, so the game goes through the normal engine and
its rules are enforced exactly. Its three decisions read commands (``draw stock``,
``meld 7H 8H 9H``, ``layoff 6C``, ``discard KD``; `rummysim.terminal_commands`) and check each
one with the same pure rules the engine uses (`rummysim.moves`): a bad command is answered with the rule it
breaks and the same prompt again, so the engine only ever receives legal moves. Melds
and lay-offs stay on the player's side until the discard ends the turn (``undo`` takes
one back); `hint` says what the adviser bot would do (`expert` in a session unless
another is chosen). `quit`, the end of the input or Ctrl-C raise `EndSession`, which
the session knows in the engine's report of the seat's failure.

The house rules (R12) are checked the same way: a lay-off before your first meld (R12.1)
is refused with its rule; with ``take_discard: must_use`` (R12.2) the top discard may be
taken only when some plays this turn could meld or lay it off, plays before it are let
through, and the discard is refused while the card taken is still held. With block rummy
(R12.3) the engine ends the hand when the stock is empty, and the player is told why.

`rummysim.session` runs a whole game with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rummysim.cards import card_code
from rummysim.core import keeps_taken
from rummysim.errors import RummysimError, nearest
from rummysim.moves import (
    Discarded,
    Event,
    HandEnded,
    HandStarted,
    Meld,
    Pile,
    Play,
    Rejected,
    StockRebuilt,
    check_discard,
    check_draw,
)
from rummysim.render import ending_lines, event_line, holding_text, piles_text, scores_text, table_lines
from rummysim.rules import Rules, TakeDiscard
from rummysim.strategies.base import PlayerView, Strategy
from rummysim.strategies.greedy import Greedy
from rummysim.table import Table, TableMeld, apply_event, apply_plays, event_of, taken_unused
from rummysim.terminal_commands import (
    ALIASES,
    COMMANDS,
    EXAMPLES,
    HELP,
    HOUSE_HELP,
    Retry,
    command_for,
    could_play,
    is_card,
    not_allowed,
    parse_lay_offs,
    play_text,
    to_card,
    to_cards,
)

Reader = Callable[[str], str]
"""Show a prompt and return the line typed; raise `EOFError` at the end of the input (like `input`)."""
Writer = Callable[[str], None]


class EndSession(BaseException):
    """The player quit or the input ended: stop the game.

    The engine reports it, as anything a seat raises, as that seat's `StrategyError`; the
    session (`rummysim.session.play`) knows it for the person's own (its cause, at the
    person's seat) and stops the game with a message. A `BaseException`, so that no code
    of the person's seat that catches `Exception` swallows it on the way.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _after(view: PlayerView, plays: Sequence[Play]) -> tuple[int, Table]:
    """Return the holding and the table once `plays` (already checked) are made."""
    holding = view.holding
    table: Table = view.table
    for play in plays:
        holding, table = apply_event(event_of(play, seat=view.seat, table=table), holding=holding, table=table)
    return holding, table


class Human(Strategy):
    """A person at the terminal: reads commands, checks them by the rules, draws the table."""

    name = "human"
    description = "a person typing moves at the terminal"

    def __init__(
        self, *, read: Reader, write: Writer, who: Sequence[str], rules: Rules, seat: int = 0,
        adviser: Strategy | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.read, self.write, self.who, self.rules, self.seat = read, write, list(who), rules, seat
        self.scores = [0] * rules.n_players
        self.adviser = adviser if adviser is not None else Greedy()
        """The bot whose moves `hint` tells; it sees what this seat sees, events included."""
        self._hints: dict[tuple[int, int, int | None, int], str] = {}
        self._discard: int | None = None
        self._told: list[Event] = []
        """The events of plays a hint told the adviser before the engine did: each is not told again."""

    # -- the three decisions -------------------------------------------------------------
    def draw(self, view: PlayerView) -> Pile:
        """Ask for ``draw stock`` or ``draw discard`` (R4.1, R4.6)."""
        self.write("")
        self.write(f"--- hand {view.hand + 1}, turn {view.turn + 1}: your turn ---")
        self.show(view, view.holding, view.table)
        top = view.top_discard
        only = (
            " (only to meld or lay it off this turn, R12.2)" if self.rules.take_discard is TakeDiscard.MUST_USE else ""
        )
        self.write(
            f"Draw a card: draw stock, or draw discard to take {card_code(top)}{only}."
            if top is not None
            else "Draw a card: draw stock (the discard pile is empty, R4.6)."
        )
        while True:
            words = self._command("draw> ", view, [])
            if words is None:
                continue
            try:
                return self._draw(words, view)
            except Retry as retry:
                self.write(str(retry))
            except Exception as error:  # a bug here must not lose the player's game
                self.write(_sorry(error))

    def play(self, view: PlayerView) -> list[Play]:
        """Ask for melds and lay-offs until a discard ends the turn or the holding is empty (R4.2-R4.4)."""
        assert view.drawn is not None
        how = "took" if view.taken is not None else "drew"
        pile = "discard pile" if view.taken is not None else "stock"
        self.write(f"You {how} {card_code(view.drawn)} from the {pile}.")
        self.write(f"Your holding: {holding_text(view.holding)}")
        self.write("Meld and lay off if you like, then discard a card: meld 7H 8H 9H, layoff 6C, discard KD.")
        plays: list[Play] = []
        while True:
            words = self._command("play> ", view, plays)
            if words is None:
                continue
            try:
                done = self._play(words, view, plays)
            except Retry as retry:
                self.write(str(retry))
                continue
            except Exception as error:  # a bug here must not lose the player's game
                self.write(_sorry(error))
                continue
            if done:
                return plays

    def discard(self, view: PlayerView) -> int:
        """Return the card chosen with ``discard`` at the play prompt (checked there, R4.3, R4.5)."""
        card, self._discard = self._discard, None
        if card is None:  # never: play() returns only after a discard or with an empty holding
            raise RummysimError("the terminal player has no discard chosen")
        return card

    def observe(self, event: Event) -> None:
        """Tell the player what the other seats do, and how each hand ends; the adviser sees every event too."""
        if event in self._told:
            self._told.remove(event)  # the adviser saw it when it chose its discard (`_advice`)
        else:
            self.adviser.observe(event)
        if isinstance(event, HandStarted) or (isinstance(event, Discarded) and event.seat == self.seat):
            self._told.clear()  # what a hint told and the player did not play never comes (its turn is over)
        if isinstance(event, HandStarted):
            self.write("")
            first = (event.dealer + 1) % self.rules.n_players
            plays_first = "you play first" if first == self.seat else f"{self.who[first]} plays first"
            deals = "you deal" if event.dealer == self.seat else f"{self.who[event.dealer]} deals"
            self.write(f"=== hand {event.hand + 1}: {deals}, {plays_first} ===")
        elif isinstance(event, HandEnded):
            if event.winner is not None:
                self.scores[event.winner] += event.points
            self.write("")
            self.write(f"=== end of the hand: {ending_lines(event, self.who, ace_value=None, you=self.seat)[0]} ===")
            for line in ending_lines(event, self.who, ace_value=self.rules.ace_value, you=self.seat)[1:]:
                self.write(line)
            self.write(f"Scores: {scores_text(self.scores, self.who)}{self._target()}")
        elif isinstance(event, StockRebuilt) or event.seat != self.seat:
            self.write(event_line(event, self.who, you=self.seat))

    # -- drawing the table ---------------------------------------------------------------
    def show(self, view: PlayerView, holding: int, table: Sequence[TableMeld]) -> None:
        """Write the table: melds with their owners, the piles, the others' cards, scores, the holding."""
        self.write("Table:")
        for line in table_lines(table, self.who):
            self.write(f"  {line}")
        piles = piles_text(view.discard_pile, view.stock_size)
        self.write(piles[:1].upper() + piles[1:])
        others = [f"{self.who[s]} {n}" for s, n in enumerate(view.holding_sizes) if s != self.seat]
        self.write(f"Cards held: {', '.join(others)}")
        self.write(f"Scores: {scores_text(view.scores, self.who)}{self._target()}")
        self.write(f"Your holding: {holding_text(holding)}")

    def _target(self) -> str:
        parts = []
        if self.rules.target_score is not None:
            parts.append(f"first to {self.rules.target_score} points wins")
        if self.rules.max_hands is not None:
            n = self.rules.max_hands
            parts.append(f"at most {n} hand{'s' if n != 1 else ''}")
        return f" ({'; '.join(parts)})"

    # -- commands --------------------------------------------------------------------------
    def _read(self, prompt: str) -> str:
        try:
            return self.read(prompt)
        except EOFError:
            raise EndSession("the input ended") from None
        except KeyboardInterrupt:
            raise EndSession("interrupted") from None

    def _command(self, prompt: str, view: PlayerView, plays: list[Play]) -> list[str] | None:
        """Read a line; answer help, hint, table and quit here; return the words of any other command."""
        words = self._read(prompt).split()
        if not words:
            self.write("Type a command, or help for the list.")
            return None
        word = words[0].lower()
        word = ALIASES.get(word, word)
        if word == "layoff" and words[0].lower() == "lay" and len(words) > 1 and words[1].lower() == "off":
            words = words[1:]
        if word == "help":
            self.write(HELP.rstrip("\n"))
            house = [HOUSE_HELP[name] for name in HOUSE_HELP if name in self.rules.changes()]
            if house:
                self.write("House rules at this table:\n" + "\n".join(house))
        elif word == "quit":
            raise EndSession("you quit")
        elif word == "table":
            holding, table = _after(view, plays)
            self.show(view, holding, table)
        elif word == "hint":
            self.write(f"Hint: {self.adviser.name} would {self._hint(view, plays)}.")
        elif word in COMMANDS:
            return [word, *words[1:]]
        else:
            close = nearest(word, COMMANDS)
            guess = f": did you mean {close}?" if close else "."
            self.write(f"Unknown command {words[0]!r}{guess} Type help for the commands.")
        return None

    def _draw(self, words: list[str], view: PlayerView) -> Pile:
        command, args = words[0], [w.lower() for w in words[1:]]
        if command != "draw":
            raise Retry("Draw first: a turn starts by drawing a card from the stock or the discard pile (R4.1).")
        top = view.top_discard
        if args in (["stock"], ["s"]):
            pile = Pile.STOCK
        elif args in (["discard"], ["d"], ["pile"]) or (top is not None and args == [card_code(top).lower()]):
            pile = Pile.DISCARD
        elif len(args) == 1 and is_card(args[0]):
            raise Retry(f"{args[0].upper()} is not on top of the discard pile; draw stock or draw discard (R4.1).")
        else:
            raise Retry("Draw from where? Type draw stock or draw discard (R4.1).")
        try:
            pile = check_draw(pile, discard_pile_size=len(view.discard_pile))
        except Rejected as rejected:
            raise Retry(not_allowed(rejected)) from None
        if pile is Pile.DISCARD and self.rules.take_discard is TakeDiscard.MUST_USE and top is not None:
            melded = any(m.melded_by == view.seat for m in view.table)
            if not could_play(top, holding=view.holding, table=[m.cards for m in view.table], melded=melded,
                              rules=self.rules):  # fmt: skip
                raise Retry(
                    f"Not allowed: draw discard: {card_code(top)} could not be melded or laid off this turn, and with "
                    "take_discard: must_use the top discard is taken only to play it (R12.2)."
                )
        return pile

    def _play(self, words: list[str], view: PlayerView, plays: list[Play]) -> bool:
        """Do one command of the play phase; return True when the turn's plays are final."""
        command, args = words[0], words[1:]
        if command == "draw":
            raise Retry("You have drawn this turn (R4.1): now meld, lay off, or discard a card to end your turn.")
        if command == "undo":
            if not plays:
                raise Retry("Nothing to undo: you have not melded or laid off this turn.")
            undone = plays.pop()
            self.write(f"Taken back: {command_for(undone, _after(view, plays)[1], self.rules)}.")
            self._show_holding(view, plays)
            return False
        if not args:
            raise Retry(f"{command.capitalize()} what? For example: {EXAMPLES[command]}.")
        holding, table = _after(view, plays)
        if command == "discard":
            if len(args) != 1:
                raise Retry("Discard one card: for example discard KD (R4.3).")
            card = to_card(args[0])
            must_use = self.rules.take_discard is TakeDiscard.MUST_USE
            if view.taken is not None and keeps_taken(holding, view.taken, must_use):
                raise Retry(not_allowed(taken_unused(view.taken)))
            try:
                self._discard = check_discard(card, holding=holding, taken=view.taken)
            except Rejected as rejected:
                raise Retry(not_allowed(rejected, mine=True)) from None
            return True
        if command == "meld":
            new: list[Play] = [Meld(to_cards(" ".join(args)))]
        else:
            new = parse_lay_offs(args, holding=holding, table=table, seat=self.seat, rules=self.rules)
        try:
            apply_plays(
                [*plays, *new],
                seat=view.seat,
                holding=view.holding,
                table=view.table,
                rules=self.rules,
                taken=view.taken,
            )
        except Rejected as rejected:
            if rejected.rule != "R12.2":  # a card taken and not yet played: the turn goes on, the discard checks it
                raise Retry(not_allowed(rejected, mine=True)) from None
        for play in new:
            plays.append(play)
            holding, table = _after(view, plays)
            self.write(f"You {'meld' if isinstance(play, Meld) else 'lay off'} {play_text(play, table)}.")
        if not holding:
            return True  # gone out by a meld or lay-off: no discard (R4.4, R7.1)
        self._show_holding(view, plays)
        return False

    def _show_holding(self, view: PlayerView, plays: list[Play]) -> None:
        holding, _ = _after(view, plays)
        self.write(f"Your holding: {holding_text(holding)}")

    def _hint(self, view: PlayerView, plays: list[Play]) -> str:
        """Return what the adviser would do from here, as the commands to type (the same answer if asked again)."""
        at = (view.hand, view.turn, view.drawn, len(plays))
        if at not in self._hints:
            self._hints[at] = self._advice(view, plays)
        return self._hints[at]

    def _advice(self, view: PlayerView, plays: list[Play]) -> str:
        adviser = self.adviser
        if view.drawn is None:
            pile = adviser.draw(view)
            top = view.top_discard
            return "draw stock" if pile is Pile.STOCK or top is None else f"draw discard (take {card_code(top)})"
        now = _made(view, plays)
        steps = [m for m in adviser.play(now) if m is not None]
        final = _made(now, steps)
        said = [command_for(step, _after(now, steps[:i])[1], self.rules) for i, step in enumerate(steps)]
        if final.holding:
            # A bot sees its plays' events before it discards (the engine tells them first), so the adviser does too.
            made = [*plays, *steps]
            events = [event_of(p, seat=view.seat, table=_after(view, made[:i])[1]) for i, p in enumerate(made)]
            for event in events:
                if event not in self._told:
                    self._told.append(event)
                    adviser.observe(event)
            said.append(f"discard {card_code(adviser.discard(final))}")
        return ", then ".join(said)


def _made(view: PlayerView, plays: Sequence[Play]) -> PlayerView:
    """Return the view once `plays` are made: the seat's holding, the table, its size and whether it has melded."""
    if not plays:
        return view
    holding, table = _after(view, plays)
    sizes = list(view.holding_sizes)
    sizes[view.seat] = holding.bit_count()
    melded = list(view.has_melded)
    melded[view.seat] = True
    return view._replace(holding=holding, table=table, holding_sizes=tuple(sizes), has_melded=tuple(melded))


def _sorry(error: Exception) -> str:
    return f"Sorry, that command failed ({type(error).__name__}: {error}); the game goes on, please try another."
