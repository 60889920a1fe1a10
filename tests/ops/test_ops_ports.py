"""``lexio_common.procs.free_port``: the ports the tests, ``make run`` and the benches give the
processes they start. A port is only free until someone binds it, so it is picked where no
one else will bind it in the meantime."""

from __future__ import annotations

import socket
from pathlib import Path

from lexio_common.procs import free_port


def test_free_ports_are_never_handed_out_twice_and_never_ephemeral() -> None:
    """Never twice in a process (the kernel's own pick can repeat), and below the ephemeral
    range, where outgoing connections take their local ports (a port picked there was once
    taken by a connection before the gateway could listen on it)."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    assert low >= 21000, "this machine's ephemeral range leaves no room below it"
    ports = [free_port() for _ in range(500)]
    assert len(set(ports)) == len(ports)
    assert all(1024 <= port < low for port in ports)
    # Free indeed: a server can listen on one.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", ports[-1]))
        listener.listen()
