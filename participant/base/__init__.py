"""What every layer of the participant may use: Canton's errors, the ledger's data (contracts, transactions,
reassignments), offsets and timestamps as the API states them, and the settings a server is started with. Nothing
here imports the rest of the participant."""
