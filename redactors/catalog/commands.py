"""Command names the catalog knows: whether a word after an assignment starts a command.

``NAME=value`` owning its line is an env file's entry, whose unquoted value runs to the end
of the line (``DB_PASSWORD=correct horse battery``); followed by a command it is a shell
assignment for that command (``PGPASSWORD=x psql mydb``), and the words after the value are
the command, not more of the password. Both are words after a blank, so only the word
itself tells them apart: a path to a program, or a name the catalog knows as a tool.
"""

from __future__ import annotations

from .cliflags import known_tool
from .shellwords import tool_name
from .userpass import NOT_A_PASSWORD_FLAG

__all__ = ["ENVIRONMENT_CLIENTS", "known_command"]

ENVIRONMENT_CLIENTS = frozenset(
    b"""psql pg_dump pg_dumpall pg_restore pg_basebackup pg_isready pg_ctl pg_upgrade createdb
    dropdb createuser dropuser vacuumdb reindexdb clusterdb pgbench mysql mysqldump mysqladmin
    mysqlimport mysqlshow mysqlcheck mariadb mariadb-dump mongosh mongo mongodump mongorestore
    redis-cli sqlcmd bcp sqlplus clickhouse-client cqlsh influx vault consul nomad terraform
    tofu packer aws az gcloud gsutil kubectl helm oc docker podman ansible ansible-playbook
    restic borg rclone duplicity gh glab git curl wget ssh sshpass rsync scp sftp lftp smbclient
    ldapsearch ldapmodify openssl gpg node deno bun python python3 ruby perl php java go dotnet
    bash sh zsh dash ksh fish env exec nohup sudo make npm npx yarn pnpm""".split()
)
"""Programs that read a credential from their environment (``PGPASSWORD``, ``MYSQL_PWD``,
``VAULT_TOKEN``, ``AWS_SECRET_ACCESS_KEY``, ``RESTIC_PASSWORD``...) and the interpreters,
shells and wrappers that run a script with it."""


def known_command(word: bytes) -> bool:
    """Whether ``word`` (as written) names a program: a path to one (``/usr/bin/psql``,
    ``./run.sh``, ``~/bin/x``) or a tool the catalog knows by name."""
    if word.startswith((b"/", b"./", b"../", b"~/")):
        return True
    name = tool_name(word)
    return name in ENVIRONMENT_CLIENTS or name in NOT_A_PASSWORD_FLAG or known_tool(name)
