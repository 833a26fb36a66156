"""What the server asks of uvicorn, as the protocol classes it runs: the limits on what a client may send before
its request reaches the application (request_limits), a response written in one system call (http_protocol), and
a websocket protocol that sends a page of messages at once (websocket_protocol, whose extension the ACS stream
looks for). They know uvicorn and nothing of the participant."""
