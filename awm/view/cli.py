"""``awm view`` (registered by ``awm.cli``; the web app is imported inside the command)."""

from __future__ import annotations

import threading
import time
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from awm.console import make_console

console = make_console()


def view_cmd(
    runs: Annotated[
        list[Path] | None,
        typer.Argument(help="runs to show: awm eval run directories, folders of them, or trajectory JSONL files"),
    ] = None,
    host: Annotated[str, typer.Option(help="bind address (loopback by default)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port (0: any free port)")] = 8765,
    path: Annotated[
        list[str] | None, typer.Option("--path", "-p", help="extra root holding envs/ and verifiers/")
    ] = None,
    show_answers: Annotated[
        bool, typer.Option("--show-answers", help="also show gold solutions, checks and answer checks")
    ] = False,
    no_open: Annotated[bool, typer.Option("--no-open", help="do not open a browser")] = False,
) -> None:
    """A web page to browse environments and step through the episodes of runs (why each one failed)."""
    import uvicorn

    from awm.listen import bind, is_loopback
    from awm.model.registry import Registry
    from awm.view.app import create_view_app

    app = create_view_app(Registry(path or []), runs or [], show_answers=show_answers)
    sock = bind(host, port)  # a busy port is an error before anything is announced
    sock.listen(128)  # the address printed below accepts connections at once (the server answers when up)
    bound_port = sock.getsockname()[1]
    url = f"http://[{host.strip('[]')}]:{bound_port}/" if ":" in host else f"http://{host}:{bound_port}/"
    if not is_loopback(host):
        console.print(f"[yellow]note: {host} is reachable from other hosts; the viewer has no token[/yellow]")
    n = len(app.state.viewer.runs)
    console.print(f"AWM Gym viewer: {url}  ({n} run{'s' if n != 1 else ''}; Ctrl-C to stop)", markup=False)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2))
    if not no_open:

        def open_when_up() -> None:
            for _ in range(200):
                if server.started:
                    webbrowser.open(url)
                    return
                time.sleep(0.05)

        threading.Thread(target=open_when_up, daemon=True).start()
    server.run(sockets=[sock])
