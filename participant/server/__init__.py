"""The program `ledger-participant`: its command line (cli), the HTTP application it serves (app, which wires the
store, the ledger, auth and the routes together), the demo data it seeds (demo), and one server per database as
other processes see it (serving)."""
