"""The read-only guard and safe templates: what doctor may run, request, and name."""

from __future__ import annotations

import pytest

from bundler.collect.errors import Skip
from bundler.collect.plan import CommandStep, ForEach, HttpStep, Plan
from bundler.collect.readonly import ProgramRule, command_violation, path_violation, plan_violations
from bundler.collect.templates import (
    TemplateError,
    check_member_template,
    quote_path_value,
    render,
    render_member,
)

FLUX_MUTATING = (
    "/workers/{name}/connect",
    "/workflows/{ns}/{wf}/cancel/{execution_id}",
    "/admin/secrets*",
)


@pytest.mark.parametrize(
    "argv",
    [
        ["cat", "/etc/os-release"],
        ["journalctl", "-u", "flux", "--since", "@1700000000", "-n", "100", "--no-pager"],
        ["systemctl", "status", "flux-worker"],
        ["systemctl", "show", "flux", "-p", "ActiveState"],
        ["sqlite3", "-readonly", "/srv/flux.db", "select name, last_seen_at from workers"],
        ["sqlite3", "-readonly", "-json", "db", "PRAGMA table_info(workers)"],
        ["find", "/srv/flux", "-name", "*.sock", "-type", "s"],
        ["ls", "-la", "/srv"],
        ["date", "+%s"],
        ["ip", "-j", "addr", "show"],
        ["/usr/bin/stat", "-c", "%s", "/x"],
    ],
)
def test_read_only_commands_pass(argv: list[str]) -> None:
    assert command_violation(argv) is None


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["rm", "-rf", "/"], "never allowed"),
        (["sh", "-c", "cat x"], "never allowed"),
        (["env", "cat", "x"], "never allowed"),
        (["sudo", "cat", "x"], "never allowed"),
        (["curl", "http://x"], "not on the read-only allow-list"),
        (["find", "/", "-delete"], "-delete"),
        (["find", "/", "-exec", "rm", "{}", "+"], "-exec"),
        (["systemctl", "restart", "flux"], "subcommand"),
        (["systemctl", "--no-pager"], "subcommand"),
        (["journalctl", "--vacuum-time=1s"], "--vacuum-time"),
        (["journalctl", "-f"], "-f"),
        (["tail", "-f", "/var/log/x"], "-f"),
        (["sqlite3", "db", "select 1"], "requires -readonly"),
        (["sqlite3", "-readonly", "db", ".shell rm x"], "dot-commands"),
        (["sqlite3", "-readonly", "db", "delete from workers"], "only SELECT"),
        (["sqlite3", "-readonly", "db", "vacuum into '/tmp/x'"], "only SELECT"),
        (["sqlite3", "-readonly", "db", "select writefile('/tmp/x', 'y')"], "can write"),
        (["sqlite3", "-readonly", "db", "select 1; drop table x"], "can write"),
        (["sqlite3", "-readonly", "db", "pragma journal_mode=wal"], "can write"),
        (["sqlite3", "-readonly", "-cmd", ".shell x", "db"], "-cmd"),
        (["date", "-s", "2020-01-01"], "-s"),
        (["date", "0101000020"], "set the clock"),
        (["hostname", "newname"], "no operands"),
        (["ip", "link", "set", "eth0", "down"], "not read-only"),
        (["cat", "x", ">", "/etc/passwd"], "shell operator"),
        (["cat", "x", "2>&1"], "shell operator"),
        (["cat", "x", "|", "tee"], "shell operator"),
        (["cat", "$(reboot)"], "shell operator"),
    ],
)
def test_mutating_or_unknown_commands_are_refused(argv: list[str], why: str) -> None:
    reason = command_violation(argv)
    assert reason is not None
    assert why in reason


def test_product_cli_needs_explicit_subcommands() -> None:
    rules = {
        "flux": ProgramRule(subcommands=(("worker", "list"), ("worker", "status"), ("health",)))
    }
    assert command_violation(["flux", "worker", "list", "--format", "json"], rules) is None
    assert command_violation(["flux", "health"], rules) is None
    assert "subcommand" in (command_violation(["flux", "worker", "pause", "w1"], rules) or "")
    assert "must list" in (command_violation(["tool", "x"], {"tool": ProgramRule()}) or "")
    # a profile cannot allow a denied program or override a built-in rule
    assert "never allowed" in (
        command_violation(["rm", "x"], {"rm": ProgramRule(subcommands=(("x",),))}) or ""
    )
    relaxed = {"find": ProgramRule(subcommands=None)}
    assert command_violation(["find", "/", "-delete"], relaxed) is not None


@pytest.mark.parametrize(
    "path",
    [
        "/workers/{name}/connect",
        "/workers/w1/connect",
        "/workers/w1/connect/",
        "/workflows/default/wf/cancel/abc",
        "/admin/secrets",
        "/admin/secrets/db",
    ],
)
def test_mutating_routes_are_refused(path: str) -> None:
    assert "mutating route" in (path_violation(path, FLUX_MUTATING) or "")


@pytest.mark.parametrize("path", ["/workers", "/workers/{name}", "/workers/w1", "/health"])
def test_read_routes_pass(path: str) -> None:
    assert path_violation(path, FLUX_MUTATING) is None


@pytest.mark.parametrize("path", ["workers", "/x?y=1", "/a/../b", "/a/./b", "/x#f"])
def test_malformed_paths_are_refused(path: str) -> None:
    assert path_violation(path, ()) is not None


def test_fan_out_values_cannot_form_a_path() -> None:
    value = quote_path_value("w1/connect")
    path = render("/workers/{name}", {"name": value})
    assert path == "/workers/w1%2Fconnect"
    assert path_violation(path, FLUX_MUTATING) is None
    assert quote_path_value("..") == "%2E%2E"
    assert quote_path_value("a?b#c d") == "a%3Fb%23c%20d"


def test_member_templates_never_take_target_values() -> None:
    check_member_template("hosts/{alias}/logs/{log_index}.log")
    check_member_template("raw/http/workers/{index}.json")
    for leaking in ("raw/http/workers/{name}.json", "hosts/{worker}/x.txt", "hosts/{state_dir}"):
        with pytest.raises(TemplateError):
            check_member_template(leaking)
    assert (
        render_member("hosts/{alias}/x.txt", {"alias": "h01", "worker": "w1"}) == "hosts/h01/x.txt"
    )


def test_missing_variables_skip_with_their_names() -> None:
    with pytest.raises(Skip, match="db_path"):
        render("{db_path}/x", {"alias": "h01"}, what="path")
    with pytest.raises(TemplateError):
        render("{a.b}", {"a": "x"})
    assert render("{a}", {"a": "{b} $(x)"}) == "{b} $(x)"


def test_plan_walk_reports_every_violation() -> None:
    plan = Plan(
        profile="bad",
        steps=[
            HttpStep(id="ok", path="/workers", member="raw/http/workers.json"),
            HttpStep(
                id="connect",
                path="/workers/{name}/connect",
                member="raw/http/c/{index}.json",
                for_each=ForEach(step="ok", bind={"name": "/name"}),
            ),
            HttpStep(
                id="leak",
                path="/workers/{name}",
                member="raw/http/{name}.json",
                for_each=ForEach(step="ok", bind={"name": "/name"}),
            ),
            CommandStep(id="rm", argv=["rm", "-rf", "{state_dir}"], member="hosts/{alias}/rm.txt"),
            CommandStep(id="tpl", argv=["{tool}"], member="hosts/{alias}/t.txt"),
            CommandStep(id="fine", argv=["cat", "{state_dir}/x"], member="hosts/{alias}/x.txt"),
        ],
    )

    class Profile:
        mutating_routes = FLUX_MUTATING

    problems = plan_violations(plan, Profile())
    assert [p.split(":")[0] for p in problems] == ["connect", "leak", "rm", "tpl"]
