"""What the test Dovecot is told, apart from how it is run: the loopback addresses the test
mail stack listens on, the system account Dovecot runs as and the text of its
``dovecot.conf``.

Plain data and text, no files written and no processes: `tests.mail.servers` writes this
configuration, starts Dovecot with it, starts the SMTP server on the same addresses and stops
both again. A module of its own so that the whole configuration (listeners, TLS, login rules,
the spam folder) reads in one place, apart from the process handling. The addresses live
here because the configuration binds its listeners to them; it imports nothing from
`tests.mail.servers`, which imports from here (and re-exports `HOST`, the name tests use).
"""

from __future__ import annotations

import grp
import os
import pwd
import uuid
from dataclasses import dataclass
from pathlib import Path

HOST = "127.0.0.1"
STARTTLS_HOST = "127.0.0.2"
"""Dovecot trusts a connection whose two ends have the same address (127.0.0.1 to 127.0.0.1) as
if it were encrypted. A client connecting to 127.0.0.2 still speaks from 127.0.0.1 (the kernel's
source address for the whole loopback net), so there Dovecot enforces STARTTLS before login."""
NO_TLS_HOST = "127.0.0.3"
"""On this address the STARTTLS IMAP listener offers no STARTTLS and accepts a login in clear:
the server a client set to require STARTTLS must refuse to talk to."""


@dataclass(frozen=True)
class Account:
    """The system account the mail users and Dovecot's unprivileged processes run as."""

    user: str
    group: str
    uid: int
    gid: int


def mail_account() -> Account:
    """Dovecot refuses mail users with uid 0: as root use `nobody`; otherwise the current user
    (an unprivileged Dovecot cannot change uid, so every process runs as that user)."""
    entry = pwd.getpwnam("nobody") if os.geteuid() == 0 else pwd.getpwuid(os.geteuid())
    return Account(entry.pw_name, grp.getgrgid(entry.pw_gid).gr_name, entry.pw_uid, entry.pw_gid)


def dovecot_config(
    directory: Path,
    account: Account,
    cert_file: Path,
    key_file: Path,
    imap_port: int,
    imaps_port: int,
    lmtp_port: int,
) -> str:
    mail_root = directory / "mail"
    return f"""\
# Throwaway Dovecot 2.3 instance for hexpost's tests; no system configuration is read.
instance_name = hexpost-test-{uuid.uuid4().hex[:12]}
base_dir = {directory}/run
state_dir = {directory}/state
log_path = {directory}/dovecot.log
listen = {HOST} {STARTTLS_HOST} {NO_TLS_HOST}
protocols = imap lmtp
shutdown_clients = yes
# No stats process: at shutdown its clients wait 5 s for a stats handshake.
stats_writer_socket_path =

ssl = required
ssl_cert = <{cert_file}
ssl_key = <{key_file}
disable_plaintext_auth = yes
auth_mechanisms = plain login
auth_username_format = %Ln
# Refuse a wrong password at once (default 2 s, doubled per failure by anvil's auth penalty).
auth_failure_delay = 0

default_internal_user = {account.user}
default_internal_group = {account.group}
default_login_user = {account.user}
first_valid_uid = {account.uid}
last_valid_uid = {account.uid}
first_valid_gid = {account.gid}

mail_location = maildir:{mail_root}/%n/Maildir
# Mail for bob+BOX@localhost goes to bob's folder BOX (if it exists; else to his INBOX), so
# tests sharing the servers can each have a mailbox of their own.
recipient_delimiter = +
lmtp_save_to_detail_mailbox = yes
# A spam folder the server flags (RFC 6154 SPECIAL-USE), as the big providers flag theirs.
namespace inbox {{
  inbox = yes
  mailbox Junk {{
    special_use = \\Junk
  }}
}}
imap_idle_notify_interval = 1 secs

passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%n {directory}/users
}}
userdb {{
  driver = passwd-file
  args = username_format=%n {directory}/users
}}

service imap-login {{
  chroot =
  inet_listener imap {{
    address = {HOST} {STARTTLS_HOST} {NO_TLS_HOST}
    port = {imap_port}
  }}
  inet_listener imaps {{
    address = {HOST}
    port = {imaps_port}
    ssl = yes
  }}
}}
# The server a client that requires STARTTLS must refuse: no STARTTLS offered, login in clear.
local {NO_TLS_HOST} {{
  ssl = no
  disable_plaintext_auth = no
}}

service pop3-login {{
  chroot =
}}
service lmtp {{
  inet_listener lmtp {{
    address = {HOST}
    port = {lmtp_port}
  }}
  unix_listener lmtp {{
    mode = 0666
  }}
}}
service anvil {{
  chroot =
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
service stats {{
  unix_listener stats-reader {{
    mode = 0666
  }}
  unix_listener stats-writer {{
    mode = 0666
  }}
}}
"""
