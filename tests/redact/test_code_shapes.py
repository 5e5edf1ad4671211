"""Secrets assigned in code: configuration written as a program, debug dumps, prose.

Support bundles carry application configuration that is code (CodeIgniter's
``application/config/database.php``, Django's ``settings.py``, Rails initializers, shell
scripts, JavaScript config) and the debug output of programs. A subscript whose key names a
secret, followed by ``=``, ``=>``, ``||=`` or ``:`` and a value, is ``key = value``; so is a
typed dump's ``name (type) = value`` and an arrow's ``name -> value``. In prose, where
ordinary sentences name passwords, a value counts only when it looks like one (letters
mixed with digits or symbols) or a verb introduces it quoted. Each case runs both
passes over a small bundle: the secrets go from every member (also decoded), the evidence
stays as written, and no line is lost; review finds each input and passes each output.
"""

from __future__ import annotations

import pytest

from bundler.source import MemorySource
from redactors.review import review_source
from tests.support.redaction import ShapeFiles, assert_shape_redacted, redacted_lines_kept

Files = ShapeFiles
CASES: dict[str, tuple[Files, list[str], list[str]]] = {
    # name: (files, secrets that must go, evidence that must stay as written)
    "php-subscripts": (
        {
            "application/config/database.php": "<?php\n"
            "$db['default']['hostname'] = 'localhost';\n"
            "$db['default']['username'] = 'app';\n"
            "$db['default']['password'] = 'Hunter2-Php1b';\n"
            "$db['replica']['password'] = 'q';\n"
            "$db['backup']['password'] = getenv('BACKUP_DB_PASSWORD');\n"
            "$cfg['password'] = \"Hunter2-Php1\";\n"
            "$cfg['password_min_length'] = 8;\n",
        },
        ["Hunter2-Php1b", "Hunter2-Php1", "['password'] = 'q'"],
        [
            "$db['default']['username'] = 'app';\n",
            "$db['default']['password'] = '[REDACTED:password:",
            "$db['backup']['password'] = getenv('BACKUP_DB_PASSWORD');\n",
            "$cfg['password_min_length'] = 8;\n",
        ],
    ),
    "python-subscripts": (
        {
            "settings.py": "DATABASES['default']['PASSWORD'] = 'Hunter2-Py3'\n"
            "DATABASES['replica']['PASSWORD'] = os.environ.get('REPLICA_PASSWORD')\n"
            'config["password"] = "Hunter2-Py2"\n'
            'config["password_policy"] = "strict"\n'
            'os.environ["PASSWORD"] = "Hunter2-Env4"\n'
            "cfg['password']: str = 'Hunter2-Ann9'\n"
            "class Settings(BaseSettings):\n"
            '    db_password: str = "Hunter2-Pyd10"\n'
            "    replica_password: Optional[str] = None\n"
            'if config["password"] == "":\n'
            "    raise SystemExit(1)\n"
            "if password == other:\n"
            "    set_password(user, new)\n",
        },
        ["Hunter2-Py3", "Hunter2-Py2", "Hunter2-Env4", "Hunter2-Ann9", "Hunter2-Pyd10"],
        [
            "cfg['password']: str = '[REDACTED:password:",
            '    db_password: str = "[REDACTED:password:',
            "    replica_password: Optional[str] = None\n",
            "DATABASES['replica']['PASSWORD'] = os.environ.get('REPLICA_PASSWORD')\n",
            'config["password_policy"] = "strict"\n',
            'if config["password"] == "":\n',
            "if password == other:\n    set_password(user, new)\n",
        ],
    ),
    "ruby-and-javascript-subscripts": (
        {
            "config/initializers/secrets.rb": "ENV['DB_PASSWORD'] = 'Hunter2-Rb5'\n"
            "ENV['SECRET_KEY_BASE'] ||= 'Hunter2-Rails7'\n"
            "config[:password] = 'Hunter2-Rb20'\n"
            "config['api_key'] = ENV['API_KEY']\n"
            "secrets[:token] = params[:token]\n",
            "config.js": "process.env.DB_PASSWORD = 'Hunter2-Js6';\n"
            'const db = {[password]: "Hunter2-Js8", user: "app"};\n',
        },
        ["Hunter2-Rb5", "Hunter2-Rails7", "Hunter2-Rb20", "Hunter2-Js6", "Hunter2-Js8"],
        [
            "config['api_key'] = ENV['API_KEY']\n",
            "secrets[:token] = params[:token]\n",
            ', user: "app"};',
        ],
    ),
    "bash-subscripts": (
        {
            "deploy.sh": "#!/bin/bash\n"
            "cfg[password]=Hunter2-Bash12\n"
            "declare -A db=([user]=alice [password]=Hunter2-Bash13)\n"
            'if [ "${cfg[password]}" == "" ]; then exit 1; fi\n'
            'if cfg[password] == "":\n',
        },
        ["Hunter2-Bash12", "Hunter2-Bash13"],
        [
            "declare -A db=([user]=alice [password]=[REDACTED:password:",
            "])\n",
            'if [ "${cfg[password]}" == "" ]; then exit 1; fi\n',
            'if cfg[password] == "":\n',
        ],
    ),
    "typed-dumps-and-arrows": (
        {
            "debug.log": 'password (string) = "Hunter2-Dump14"\n'
            'password (string) = ""\n'
            "retries (int) = 3\n"
            "password -> Hunter2-Arrow16\n"
            "Map(user -> alice, password -> Hunter2-Scala15)\n"
            "Go to Settings -> Change Password -> Save\n",
            "print_r.txt": "Array\n(\n    [user] => alice\n    [password] => Hunter2-PrintR19\n)\n",
            "var_dump.txt": 'array(2) {\n  ["user"]=>\n  string(5) "alice"\n'
            '  ["password"]=>\n  string(16) "Hunter2-VarDump1"\n}\n',
            "README.txt": "[api-token]: https://docs.example.com/tokens\n",
        },
        [
            "Hunter2-Dump14",
            "Hunter2-Arrow16",
            "Hunter2-Scala15",
            "Hunter2-PrintR19",
            "Hunter2-VarDump1",
        ],
        [
            'password (string) = ""\n',
            "retries (int) = 3\n",
            "Map(user -> alice, password -> [REDACTED:password:",
            "Go to Settings -> Change Password -> Save\n",
            "    [user] => alice\n",
            '  string(5) "alice"\n',
            "[api-token]: https://docs.example.com/tokens\n",
        ],
    ),
    "prose": (
        {
            "notes.txt": "the admin password is set to Hunter2-Prose17\n"
            'the password was "Hunter2-Prose18"\n'
            "the new password is Tulip!meadow\n"
            "the password was changed yesterday\n"
            "password is required\n"
            "password is set to expire\n"
            "password is **required** for every user\n"
            "the password was auto-generated\n",
        },
        ["Hunter2-Prose17", "Hunter2-Prose18", "Tulip!meadow"],
        [
            "the password was changed yesterday\n",
            "password is required\n",
            "password is set to expire\n",
            "password is **required** for every user\n",
            "the password was auto-generated\n",
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_secrets_go_and_evidence_stays(name: str) -> None:
    assert_shape_redacted(*CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
def test_review_finds_the_input_and_passes_the_output(name: str) -> None:
    files, _, _ = CASES[name]
    assert review_source(MemorySource(dict(files))).findings
    outputs = redacted_lines_kept(files)
    assert review_source(MemorySource(outputs)).findings == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_redacting_the_output_again_changes_nothing(name: str) -> None:
    once = redacted_lines_kept(CASES[name][0])
    assert redacted_lines_kept(dict(once)) == once


@pytest.mark.parametrize(
    "line",
    [
        'password = os.environ.get("DB_PASSWORD")',
        "'PASSWORD': os.getenv('DB_PASSWORD'),",
        "api_key = ENV['API_KEY']",
        'db_password = $_SERVER["DB_PASSWORD"];',
        "token = params[:token]",
    ],
)
def test_a_value_that_fetches_the_secret_is_kept(line: str) -> None:
    """A call with the secret's name as its argument, a lookup by a quoted name (``ENV`` is
    upper case, as a password could be: a subscript with a quoted index is code, not a
    password) and a Ruby symbol index fetch a secret; they hold none."""
    text = line + "\n"
    assert redacted_lines_kept({"settings.py": text})["settings.py"] == text.encode()
    assert review_source(MemorySource({"settings.py": text})).findings == []


@pytest.mark.parametrize(
    "line",
    [
        "$cfg['password_min_length'] = 8;",
        'config["password_policy"] = "strict"',
        'if cfg[password] == "":',
        'password (string) = ""',
        "if password == other:",
        "if token === expected {",
        "set_password(user, new)",
        "Settings -> Password -> Reset",
        "the password was changed yesterday",
        "password is required",
        "password is set to expire",
        "[password]: #password",
    ],
)
def test_code_that_holds_no_secret_is_kept_whole(line: str) -> None:
    text = line + "\n"
    assert redacted_lines_kept({"a.txt": text})["a.txt"] == text.encode()
    assert review_source(MemorySource({"a.txt": text})).findings == []
