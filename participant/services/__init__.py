"""Use cases of the Ledger API, one module per family: what a request does once it is decoded and the caller's
claims are known. Routes decode, read the claims, call a service and render its answer; services know nothing
of HTTP or websockets. Each is handed the running participant's parts in a `context.Context`."""
