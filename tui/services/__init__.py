"""What hexpost does, without a terminal: the service layer both faces stand on.

The command line (`tui.commands` and its siblings) and the Textual app (`tui.screens.session`)
used to make some decisions each on their own; here they make them once. Every module has one
job and follows the same rules:

- `home`: the identity, whether the key can sign now, unlocking it, the settings record;
- `transport`: the configured transport (the faces' default factory), the shared folder;
- `accounts`: the mail account, from answers to the ``[mail]`` table, and its login check;
- `start`: scenarios, a new game, joining, accepting or declining the key that joined;
- `games`, `show`, `log`: the games list, one game at a position, the packets and events;
- `orders`: parsing, checking and signing orders, with a verdict that says where;
- `chat`, `sync`, `review`, `trust`, `chain`: a chat line, one sync and its words, stepping
  through a game, evidence and late claims, verify/export/import;
- `ports`: the types of what is handed in (the clock, the transport factory);
- `fe_extras`: what still belongs to Federation & Empire alone (see below).

The rules:

- plain values in, typed results out (frozen msgspec structs; their JSON form,
  `jsonform.json_form`, is what the ``--json`` commands print);
- no Textual and no Rich, no printing, no argparse, no prompting and no exiting: asking for a
  passphrase, escaping other people's text for a terminal (`tui.safe_text`) and choosing an
  exit code are the faces' business;
- the wall clock and the transport are handed in (`ports.Clock`, `ports.TransportFactory`),
  so a test drives a service with a fixed time and a loopback network.

A user's mistake is a `HexpostError` with one line saying what was wrong, as everywhere else.
What belongs to Federation & Empire alone waits in `fe_extras` for the ruleset plug-ins.
"""
