"""What the runner offers a person at the table: quitting mid-match, from its own turn
(``PlayerQuit``) or while the peer thinks (``quit_requested``), either way a forfeit the peer is
told of; a decision called off when the match ends under it; the view between decisions; and the
decision time limit, with its deadline for a player that shows it, and the first legal action played
when it runs out."""

from __future__ import annotations

import itertools

import trio
import trio.testing

from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.engine import AnyAction, Phase, Round, RuleSet, Termination, preset
from p2p_koikoi.net.runner import MatchReport, Player, PlayerQuit
from p2p_koikoi.session.events import SessionEnd, SessionEvent
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing.pairs import match_pair


class QuitsOnItsTurn:
    async def accept_rules(self, rules: RuleSet) -> bool:
        return True

    async def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        raise PlayerQuit("pressed q")

    async def notify(self, events: list[SessionEvent]) -> None:
        pass


class CanLeave(BotPlayer):
    """A quick player whose person may ask to leave at any time. It decides in the Trio thread, not
    a worker thread as a bot does: on the autojump clock, time would run on while a worker thinks."""

    def __init__(self, seat: int) -> None:
        super().__init__(RandomAgent(seat + 1), seat)
        self.quit_requested = trio.Event()

    async def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        await trio.lowlevel.checkpoint()
        return self.agent.choose(view, legal, context)


class Slow(BotPlayer):
    async def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        await trio.sleep(3600)
        return legal[0]


async def pair(
    host_player: Player, guest_player: Player, turn_limit: int = 0
) -> tuple[MatchReport, MatchReport, MatchSession]:
    played = await match_pair(preset("lemme"), (host_player, guest_player), turn_limit=turn_limit)
    return played.host, played.guest, played.sessions[0]


async def test_quitting_on_our_turn_forfeits_and_tells_the_peer() -> None:
    ours, theirs, session = await pair(QuitsOnItsTurn(), BotPlayer(RandomAgent(2), 1))
    assert ours.ended_by is SessionEnd.QUIT
    assert theirs.ended_by is SessionEnd.PEER_QUIT
    assert session.match is not None and session.match.outcome is not None
    assert session.match.outcome.winner == 1
    assert session.match.outcome.termination is Termination.FORFEIT
    assert session.chain.entries[-1].entry.kind == "goodbye"


async def leave_after(
    seconds: float, leaving: CanLeave, other: Player, turn_limit: int = 0
) -> tuple[MatchReport, MatchReport]:
    """Play ``leaving`` against ``other`` (which thinks for an hour on its turns); ``leaving`` asks to
    leave after ``seconds``, when the other is always the one thinking. Returns (leaving's, other's)."""
    reports: list[tuple[MatchReport, MatchReport, MatchSession]] = []

    async def play() -> None:
        players = (leaving, other) if leaving.seat == 0 else (other, leaving)
        reports.append(await pair(*players, turn_limit=turn_limit))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(play)
        await trio.sleep(seconds)
        leaving.quit_requested.set()
        with trio.fail_after(1):
            while not reports:
                await trio.sleep(0.01)
    host, guest, _session = reports[0]
    return (host, guest) if leaving.seat == 0 else (guest, host)


async def test_leaving_while_the_peer_thinks_without_a_time_limit_adjourns_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """No limit on thinking must not trap the one who waits: leaving then adjourns the match (nobody wins,
    both may take it up again), and neither side waits for the thinker."""
    ours, theirs = await leave_after(30, CanLeave(0), Slow(RandomAgent(2), 1))
    assert ours.ended_by is SessionEnd.ADJOURNED
    assert theirs.ended_by is SessionEnd.ADJOURNED


async def test_quitting_while_the_peer_thinks_under_a_time_limit_forfeits_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """With a time limit the thinker is bound by it, so leaving is the leaver's forfeit, at once."""
    ours, theirs = await leave_after(30, CanLeave(0), Slow(RandomAgent(2), 1), turn_limit=3600)
    assert ours.ended_by is SessionEnd.QUIT
    assert theirs.ended_by is SessionEnd.PEER_QUIT


async def test_a_decision_is_called_off_when_the_peer_leaves(autojump_clock: trio.testing.MockClock) -> None:
    """The peer leaves while our player is thinking: our run ends at once, not after an hour's move."""
    theirs, ours = await leave_after(30, CanLeave(1), Slow(RandomAgent(1), 0), turn_limit=3600)
    assert theirs.ended_by is SessionEnd.QUIT
    assert ours.ended_by is SessionEnd.PEER_QUIT


class Watcher(BotPlayer):
    """Notes every view it is shown, and the round of each of its decisions."""

    def __init__(self, seat: int) -> None:
        super().__init__(RandomAgent(seat + 7), seat)
        self.seen: list[Round] = []
        self.first_choice: dict[int, int] = {}  # round number -> how many views were seen by then

    def see(self, view: Round) -> None:
        self.seen.append(view)

    async def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        self.first_choice.setdefault(context.round_number, len(self.seen))
        assert self.seen and self.seen[-1].public_state() == view.public_state()
        return await super().choose(view, legal, context)


async def test_a_watching_player_sees_the_deal_before_its_first_decision() -> None:
    host, guest = Watcher(0), Watcher(1)
    ours, theirs, _session = await pair(host, guest)
    assert ours.ended_by == theirs.ended_by is SessionEnd.MATCH_OVER
    for watcher in (host, guest):
        assert watcher.first_choice
        for seen_before in watcher.first_choice.values():
            dealt = [v for v in watcher.seen[:seen_before] if v.phase is Phase.PLAY]
            assert dealt, "no view of the dealt round before the first decision"
        assert all(v.hands[watcher.seat].bit_count() + v.hidden[watcher.seat] <= 8 for v in watcher.seen)
    keys = [(v.public_state(), v.hands[0]) for v in host.seen]
    assert all(a != b for a, b in itertools.pairwise(keys)), "a view shown twice in a row"


class Dawdler(BotPlayer):
    """A person who lets the first decision run out, then decides at once; notes each deadline it was given."""

    def __init__(self, seat: int) -> None:
        super().__init__(RandomAgent(seat + 3), seat)
        self.deadlines: list[float | None] = []
        self.asked: list[tuple[float, AnyAction]] = []  # when the first decision came, and its first legal action
        self.cut_at: list[float] = []  # when the first decision was called off

    async def choose(  # type: ignore[override]
        self, view: Round, legal: list[AnyAction], context: MatchContext, *, deadline: float | None = None
    ) -> AnyAction:
        self.deadlines.append(deadline)
        if not self.asked:
            self.asked.append((trio.current_time(), legal[0]))
            try:
                await trio.sleep(3600)
            finally:
                self.cut_at.append(trio.current_time())
        await trio.lowlevel.checkpoint()
        return self.agent.choose(view, legal, context)


async def test_when_the_time_limit_passes_the_first_legal_action_is_played(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A player whose ``choose`` takes ``deadline`` is given it; at the deadline its decision is called
    off and the first legal action is played for it; the match goes on."""
    dawdler = Dawdler(0)
    ours, theirs, session = await pair(dawdler, CanLeave(1), turn_limit=30)
    assert ours.ended_by == theirs.ended_by is SessionEnd.MATCH_OVER
    (asked_at, first), *_ = dawdler.asked
    assert dawdler.deadlines[0] == asked_at + 30 and dawdler.cut_at == [asked_at + 30]
    assert all(d is not None for d in dawdler.deadlines)
    ours_moves = [e.entry.body[1] for e in session.chain.entries if e.entry.kind == "move" and e.entry.author == 0]
    assert str(first) in ours_moves


async def test_with_no_time_limit_the_player_is_never_timed() -> None:
    dawdler = Dawdler(0)
    dawdler.asked.append((0.0, Phase.PLAY))  # type: ignore[arg-type]  # (never dawdle)
    ours, _theirs, _session = await pair(dawdler, CanLeave(1))
    assert ours.ended_by is SessionEnd.MATCH_OVER
    assert dawdler.deadlines and all(d is None for d in dawdler.deadlines)
