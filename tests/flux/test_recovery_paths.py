"""Flux's own words for the generic recovery paths: remove, replace, placement, connectivity,
outcome (and the commands of those of Flux's own texts listed in ``OWN_TEXTS``).

A generic finding on a Flux fleet (an idle offline worker, no matching worker, a server the
collector could not reach) read the product-neutral text: "remove the worker record through
the product's UI or CLI" sends a Flux operator looking for a command Flux does not have.
Flux's texts name Flux's commands and settings, and every command they name is one the real
flux-core CLI has: each is asked for its ``--help``, with every option the text gives it.
"""

from __future__ import annotations

import re
import subprocess
from itertools import takewhile

import pytest

from bundler.analyze.recovery import CODE_PATHS, PATHS, recovery_for
from bundler.products.flux import PROFILE as FLUX
from bundler.products.flux import recovery
from samples.flux_lab import FluxInstall
from schemas import Recovery

OWN_PATHS = ("remove", "replace", "placement", "connectivity", "outcome")


def _text(rec: Recovery) -> str:
    return " ".join([rec.summary, *rec.steps, *rec.cautions])


@pytest.mark.parametrize("path", OWN_PATHS)
def test_every_code_on_the_path_reads_fluxs_own_text(path: str) -> None:
    """No generic code is on ``connectivity`` now (TLS_INSECURE_IN_USE is doctor's own
    connection: server-tls); Flux's text for it is read by the settings test below."""
    assert path in PATHS
    codes = [code for code, on in CODE_PATHS.items() if on == path]
    for code in codes:
        rec = recovery_for(code, FLUX.recovery_paths)
        assert rec is not None
        assert rec != PATHS[path], code
        assert rec.reference is not None
        assert "Worker observability" in rec.reference, code


def test_removal_says_flux_keeps_the_record_and_how_to_drain() -> None:
    rec = FLUX.recovery_paths["remove"]
    text = _text(rec)
    assert "product's UI or CLI" not in text
    assert "no command that deletes a worker's record" in text
    for needle in ("flux worker pause NAME", "flux worker status NAME", "SIGTERM", "drain"):
        assert needle in text


def test_placement_and_connectivity_name_fluxs_settings() -> None:
    placement = _text(FLUX.recovery_paths["placement"])
    assert "affinity" in placement
    assert "flux execution show ID --detailed" in placement
    connectivity = _text(FLUX.recovery_paths["connectivity"])
    assert "FLUX_WORKERS__SERVER_URL" in connectivity
    assert "heartbeat_interval" in connectivity


def test_a_failed_run_is_read_and_run_again_in_flux_not_proven_by_a_canary() -> None:
    """Flux has no canary and no receipt: its proof is the workflow's next execution
    COMPLETED, as its acceptance checklist says."""
    outcome = _text(FLUX.recovery_paths["outcome"])
    for absent in ("canary", "receipt"):
        assert absent not in outcome.lower()
    for needle in (
        "flux execution show ID --detailed",
        "flux workflow run NAME INPUT",
        "COMPLETED",
    ):
        assert needle in outcome


OWN_TEXTS = (
    recovery.eligible_unavailable(offline=["w1"], unhealthy=["w2"], paused=["w3"], draining=["w4"]),
)
"""Flux's own texts whose commands are checked here too, built with every branch said."""


def _commands() -> list[str]:
    return sorted(
        {
            found
            for rec in (*FLUX.recovery_paths.values(), *OWN_TEXTS)
            for found in re.findall(r"`(flux [^`]+)`", _text(rec))
        }
    )


def test_the_commands_are_collected() -> None:
    """The check below would pass vacuously on texts that name no command."""
    commands = _commands()
    assert "flux worker pause NAME" in commands
    assert "flux server join-token --subject NAME" in commands
    assert "flux workflow run NAME INPUT --mode sync" in commands
    assert "flux worker resume NAME" in commands  # FLUX_ELIGIBLE_WORKERS_UNAVAILABLE's
    assert len(commands) >= 8


def test_every_flux_command_a_path_names_exists(flux_install: FluxInstall) -> None:
    for command in _commands():
        words = command.split()[1:]
        sub = list(takewhile(_sub, words))
        options = [w for w in words if w.startswith("--")]
        result = subprocess.run(
            [str(flux_install.flux), *sub, "--help"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, (command, result.stderr)
        assert "Usage: flux " + " ".join(sub) in result.stdout, command
        for option in options:
            assert option in result.stdout, (command, option)


def _sub(word: str) -> bool:
    """A subcommand's name (``worker``, ``join-token``), not an argument (``NAME``, ``ID``)."""
    return re.fullmatch(r"[a-z][a-z-]*", word) is not None
