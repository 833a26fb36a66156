"""`ledger-tui acs|contract|updates|submit|reassign|packages|parties|users|script`: the terminal client's engine without its screens, for
scripts. The same options, profiles, token sources and client as the TUI; JSON lines (or a plain table) on stdout;
exit codes 0 (done), 1 (the participant refused, or could not be reached: its error as JSON on stderr), 2 (usage).
Nothing here imports Textual or Rich, so a command starts in a fraction of the TUI's time."""

COMMANDS = ("acs", "contract", "updates", "submit", "reassign", "packages", "parties", "users", "script")
