"""The gateway: web client, WebSocket protocol, table loops and clocks, persistence."""
