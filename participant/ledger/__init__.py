"""The participant's ledger: who it is (identity), which Daml packages it runs (daml_packages), how a submission is
interpreted and committed (committer), and which contracts a command may use beyond what its submitters see
(disclosure, through the `createdEventBlob` format of blob)."""
