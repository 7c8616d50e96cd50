"""A stop (Ctrl-C, SIGTERM) ends a command with nothing written, even where it got lost on its way."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys

import pytest

from pushgen import stopping
from pushgen.commands import main
from pushgen.data import generator
from pushgen.data.dataset import atomic_folder
from pushgen.model.compiled import Kernel


def stop_lost_on_its_way() -> None:
    """A SIGTERM whose exception is cleared, as C code that swallows errors would."""
    with contextlib.suppress(KeyboardInterrupt):
        signal.raise_signal(signal.SIGTERM)


def users_simulated(monkeypatch, at: int, then: type[BaseException] | None = None) -> list[int]:
    """``generator.simulate_user`` counting its calls; the ``at``-th loses a stop (and raises ``then``)."""
    calls: list[int] = []
    simulate_user = generator.simulate_user

    def counting(user_id, *args):
        calls.append(user_id)
        if len(calls) == at:
            stop_lost_on_its_way()
            if then is not None:
                raise then("CPUDispatcher(<function f>) returned a result with an exception set")
        return simulate_user(user_id, *args)

    monkeypatch.setattr(generator, "simulate_user", counting)
    return calls


@pytest.mark.parametrize(("users", "at"), [(6, 2), (3, 3)])
def test_a_lost_stop_still_stops_make_and_nothing_is_written(tmp_path, monkeypatch, capsys, users, at):
    calls = users_simulated(monkeypatch, at)
    code = main(["make", "--users", str(users), "--days", "3", "--jobs", "1", "--out", str(tmp_path / "d")])
    assert code == 130
    assert capsys.readouterr().err == "Interrupted; nothing was written.\n"  # one line, no blank one first
    assert len(calls) == at  # the next user is never started
    assert list(tmp_path.iterdir()) == []


def test_an_error_the_stop_caused_is_reported_as_the_stop(tmp_path, monkeypatch, capsys):
    users_simulated(monkeypatch, 1, then=SystemError)
    code = main(["make", "--users", "2", "--days", "3", "--out", str(tmp_path / "d")])
    err = capsys.readouterr().err
    assert code == 130 and err == "Interrupted; nothing was written.\n"
    assert list(tmp_path.iterdir()) == []


def test_the_same_error_without_a_stop_is_not_hidden(tmp_path, monkeypatch):
    calls: list[int] = []

    def failing(user_id, *args):
        calls.append(user_id)
        raise SystemError("a real fault")

    monkeypatch.setattr(generator, "simulate_user", failing)
    with pytest.raises(SystemError, match="a real fault"):
        main(["make", "--users", "2", "--days", "3", "--out", str(tmp_path / "d")])
    assert calls == [0] and list(tmp_path.iterdir()) == []


def test_an_output_is_not_put_in_place_after_a_lost_stop(tmp_path):
    out = tmp_path / "out"
    with stopping.stoppable(), pytest.raises(KeyboardInterrupt), atomic_folder(out) as work:
        (work / "MANIFEST.json").write_text("{}")
        stop_lost_on_its_way()
    assert list(tmp_path.iterdir()) == []
    assert not stopping.asked()  # forgotten once the command ends


def test_stoppable_handles_both_signals_only_inside_and_leaves_an_ignored_ctrl_c_ignored():
    before_term = signal.getsignal(signal.SIGTERM)
    before_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with stopping.stoppable():
            assert signal.getsignal(signal.SIGTERM) is stopping.ask
            assert signal.getsignal(signal.SIGINT) is stopping.ask
        assert signal.getsignal(signal.SIGTERM) is before_term
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with stopping.stoppable():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is stopping.ask
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before_int)


def test_a_ctrl_c_while_held_is_acted_on_at_the_end_and_a_process_started_meanwhile_blocks_it():
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = "import signal; print(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))"
    reached = []
    try:
        with pytest.raises(KeyboardInterrupt), stopping.held():
            signal.raise_signal(signal.SIGINT)
            reached.append("after the Ctrl-C")
            child = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True,
                                   timeout=120)
        assert reached == ["after the Ctrl-C"]
        assert child.stdout.split() == ["True"], child.stderr
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
        with stopping.held():
            reached.append("no Ctrl-C")
        assert reached[-1] == "no Ctrl-C"
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_kernel_interrupted_while_boxing_its_result_raises_the_stop():
    def boxing_interrupted(*args):
        set_anyway = "returned a result with an exception set"
        try:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as stop:
                raise SystemError(f"<function _numba_unpickle> {set_anyway}") from stop
        except SystemError as inner:
            raise SystemError(f"CPUDispatcher(<function f>) {set_anyway}") from inner

    def faulty(*args):
        raise SystemError("a kernel's own fault")

    kernel = Kernel(lambda x: x)
    kernel._compiled = boxing_interrupted
    with pytest.raises(KeyboardInterrupt) as raised:
        kernel(1)
    assert raised.value.__suppress_context__
    kernel._compiled = faulty
    with pytest.raises(SystemError, match="a kernel's own fault"):
        kernel(1)
