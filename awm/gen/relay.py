"""A file relay that lets a person (or an agent session) be the model behind ``awm gen``.

``serve`` is an OpenAI-compatible endpoint on 127.0.0.1 (``POST /v1/chat/completions``, ``GET
/v1/models``). Each request is written to ``DIR/requests/NNNN-<stage>.md`` (the messages, readable) and
``.json`` (the request as sent); the relay then waits for ``DIR/answers/NNNN-<stage>.txt`` and returns
its text as the completion. ``next`` blocks until a request has no answer yet and prints both paths, so
whoever answers can loop on it. Token counts in the usage are estimates (characters / 4), marked as such
in ``DIR/log.jsonl``, which records every exchange (sizes, seconds waited).

The requests and answers are the run's transcript. ``replay`` serves a recorded transcript
(``transcript.jsonl.gz``: one ``{"request", "messages", "answer"}`` per line) offline: the n-th request
of a stage gets the n-th recorded answer of that stage, whatever the request says, so a run replays the
model's real output through the current checks; ``Replayer.diverged`` lists the requests whose text
differs from the recording (a prompt or a check's message changed since).

    python -m awm.gen.relay serve DIR --port 8765       # then: awm gen --base-url http://127.0.0.1:8765/v1 ...
    python -m awm.gen.relay next DIR --wait 600         # prints "REQUEST ANSWER" paths, exit 3 on timeout
    python -m awm.gen.relay replay TRANSCRIPT --port 8765
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

STAGE = re.compile(r"awm-gen-stage:\s*([a-z_]+)")
POLL_S = 0.5


def render(request: dict[str, Any]) -> str:
    """The messages of a chat request as one readable document."""
    parts = []
    for m in request.get("messages", []):
        parts.append(f"######## {str(m.get('role', '?')).upper()} ########\n{m.get('content', '')}\n")
    fmt = request.get("response_format")
    if fmt:
        parts.append(f"######## RESPONSE FORMAT ########\n{json.dumps(fmt)}\n")
    return "\n".join(parts)


class Relay:
    def __init__(self, directory: Path, *, timeout: float = 7200.0):
        self.dir = directory
        self.requests = directory / "requests"
        self.answers = directory / "answers"
        self.requests.mkdir(parents=True, exist_ok=True)
        self.answers.mkdir(parents=True, exist_ok=True)
        self.timeout = timeout
        self._lock = threading.Lock()

    def _number(self) -> int:
        return len(list(self.requests.glob("*.json"))) + 1

    def complete(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = request.get("messages") or []
        stage = stage_of(request)
        if len(messages) > 2:
            attempt = re.search(r"\(attempt (\d+) of", str(messages[-1].get("content", "")))
            stage += f"-retry{attempt.group(1) if attempt else '?'}"
        with self._lock:
            name = f"{self._number():04d}-{stage}"
            (self.requests / f"{name}.json").write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
            (self.requests / f"{name}.md").write_text(render(request), encoding="utf-8")
        answer_path = self.answers / f"{name}.txt"
        started = time.monotonic()
        while not answer_path.is_file():
            if time.monotonic() - started > self.timeout:
                raise TimeoutError(f"no answer for {name} within {self.timeout:g} s")
            time.sleep(POLL_S)
        time.sleep(0.2)  # a writer that is still flushing
        content = answer_path.read_text(encoding="utf-8")
        waited = time.monotonic() - started
        response = completion(f"relay-{name}", request, content)
        usage = response["usage"]
        chars_in = sum(len(str(m.get("content", ""))) for m in messages)
        with self._lock, (self.dir / "log.jsonl").open("a", encoding="utf-8") as log:
            log.write(
                json.dumps(
                    {
                        "request": name,
                        "stage": stage,
                        "chars_in": chars_in,
                        "chars_out": len(content),
                        "tokens_estimated": usage,
                        "seconds": round(waited, 1),
                    }
                )
                + "\n"
            )
        return response

    def pending(self) -> list[str]:
        done = {p.stem for p in self.answers.glob("*.txt")}
        return sorted(p.stem for p in self.requests.glob("*.json") if p.stem not in done)


def completion(response_id: str, request: dict[str, Any], content: str) -> dict[str, Any]:
    """The chat-completion response for ``content``; token counts estimated as characters / 4."""
    chars_in = sum(len(str(m.get("content", ""))) for m in request.get("messages") or [])
    usage = {"prompt_tokens": chars_in // 4, "completion_tokens": len(content) // 4}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return {
        "id": response_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "relay"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": usage,
    }


def stage_of(request: dict[str, Any]) -> str:
    system = next((str(m.get("content", "")) for m in request.get("messages") or [] if m.get("role") == "system"), "")
    m = STAGE.search(system)
    return m.group(1) if m else "chat"


class Replayer:
    """Answers from a recorded transcript, in order per stage (see the module's docstring)."""

    def __init__(self, transcript: Path):
        opener = gzip.open if transcript.suffix == ".gz" else open
        with opener(transcript, "rt", encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        self.queues: dict[str, list[dict[str, Any]]] = {}
        for r in records:  # a superseded answer replied to a check since fixed: the final run never asked it
            if r.get("answer") is not None and not r.get("superseded"):
                self.queues.setdefault(stage_of(r), []).append(r)
        self.served: dict[str, int] = {}
        self.diverged: list[str] = []
        self.exhausted: list[str] = []
        self._lock = threading.Lock()

    def complete(self, request: dict[str, Any]) -> dict[str, Any]:
        stage = stage_of(request)
        with self._lock:
            n = self.served.get(stage, 0)
            queue = self.queues.get(stage, [])
            if n >= len(queue):
                self.exhausted.append(stage)
                raise LookupError(f"the transcript has no answer #{n + 1} for stage {stage!r} ({len(queue)} recorded)")
            self.served[stage] = n + 1
            record = queue[n]
            if record["messages"] != request.get("messages"):
                self.diverged.append(record["request"])
        return completion(f"replay-{record['request']}", request, str(record["answer"]))


def start_replay(transcript: Path, port: int = 0) -> tuple[Replayer, ThreadingHTTPServer]:
    """A replay server on 127.0.0.1 in a daemon thread (``server.server_port``; ``server.shutdown()`` stops it)."""
    replayer = Replayer(transcript)
    server = ThreadingHTTPServer(("127.0.0.1", port), _handler(replayer))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return replayer, server


def replay_fixture(fixture: Path, out: Path) -> tuple[int, Replayer]:
    """Run ``awm gen`` again on a recorded run (``fixture``: ``run.json`` + ``transcript.jsonl.gz``) into the
    output root ``out``, with the saved settings and the transcript as the model. Returns the exit code."""
    from awm.gen.cli import _run_generate

    spec = json.loads((fixture / "run.json").read_text())
    replayer, server = start_replay(fixture / "transcript.jsonl.gz")
    settings = {**spec["settings"], "base_url": f"http://127.0.0.1:{server.server_port}/v1", "retries": 0}
    from awm.gen.records import ScenarioIdea

    ideas = [ScenarioIdea.model_validate(i) for i in spec["ideas"]]
    batch = {"version": 1, "settings": settings, "ideas": spec["ideas"]}
    try:
        code = _run_generate(out, settings, ideas, batch, None, None, True, None, True)
    finally:
        server.shutdown()
    return code, replayer


def _handler(relay: Relay | Replayer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, code: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": "relay", "object": "model"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            length = int(self.headers.get("Content-Length") or 0)
            try:
                request = json.loads(self.rfile.read(length))
                self._send(200, relay.complete(request))
            except TimeoutError as e:
                self._send(504, {"error": {"message": str(e)}})
            except LookupError as e:
                self._send(404, {"error": {"message": str(e)}})
            except (ValueError, OSError) as e:
                self._send(400, {"error": {"message": str(e)}})

    return Handler


def serve(directory: Path, port: int, timeout: float) -> None:
    relay = Relay(directory, timeout=timeout)
    server = ThreadingHTTPServer(("127.0.0.1", port), _handler(relay))
    print(f"relay on http://127.0.0.1:{server.server_port}/v1, files in {directory}", flush=True)
    server.serve_forever()


def next_request(directory: Path, wait: float) -> int:
    relay = Relay(directory)
    started = time.monotonic()
    while True:
        pending = relay.pending()
        if pending:
            name = pending[0]
            print(f"{relay.requests / (name + '.md')} {relay.answers / (name + '.txt')}")
            return 0
        if (directory / "DONE").exists():
            print("DONE")
            return 4
        if time.monotonic() - started > wait:
            print("no request yet")
            return 3
        time.sleep(POLL_S)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m awm.gen.relay", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="run the OpenAI-compatible endpoint")
    s.add_argument("dir", type=Path)
    s.add_argument("--port", type=int, default=8765)
    s.add_argument("--timeout", type=float, default=7200.0, help="seconds to wait for one answer")
    r = sub.add_parser("replay", help="serve a recorded transcript offline")
    r.add_argument("transcript", type=Path)
    r.add_argument("--port", type=int, default=8765)
    n = sub.add_parser("next", help="wait for the next unanswered request; print its path and the answer path")
    n.add_argument("dir", type=Path)
    n.add_argument("--wait", type=float, default=590.0)
    args = ap.parse_args(argv)
    if args.command == "serve":
        serve(args.dir, args.port, args.timeout)
        return 0
    if args.command == "replay":
        _, server = start_replay(args.transcript, args.port)
        print(f"replaying {args.transcript} on http://127.0.0.1:{server.server_port}/v1", flush=True)
        threading.Event().wait()
        return 0
    return next_request(args.dir, args.wait)


if __name__ == "__main__":
    sys.exit(main())
