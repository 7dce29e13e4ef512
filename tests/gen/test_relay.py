"""The file relay: a request becomes a file, an answer file becomes the completion; a recorded transcript
replays in order per stage, skipping superseded answers and naming divergent requests."""

from __future__ import annotations

import gzip
import json
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import httpx

from awm.gen.relay import Relay, _handler, next_request, start_replay


def chat(port: int, stage: str, text: str) -> dict:
    body = {
        "model": "m",
        "messages": [
            {"role": "system", "content": f"awm-gen-stage: {stage}\nrules"},
            {"role": "user", "content": text},
        ],
    }
    return httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=body, timeout=30).json()


def test_a_request_waits_for_its_answer_file(tmp_path: Path, capsys) -> None:
    relay = Relay(tmp_path, timeout=20)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(relay))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    got: dict = {}
    t = threading.Thread(target=lambda: got.update(chat(server.server_port, "schema", "make tables")))
    t.start()
    try:
        assert next_request(tmp_path, wait=10) == 0
        request_md, answer = capsys.readouterr().out.split()
        assert "make tables" in Path(request_md).read_text() and answer.endswith("0001-schema.txt")
        Path(answer).write_text('{"schema_sql": "CREATE TABLE t (id INTEGER PRIMARY KEY);"}')
        t.join(20)
    finally:
        server.shutdown()
    assert got["choices"][0]["message"]["content"].startswith('{"schema_sql"')
    log = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert log[0]["stage"] == "schema" and log[0]["chars_out"] > 0
    (tmp_path / "DONE").touch()
    assert next_request(tmp_path, wait=1) == 4


def test_replay_answers_in_order_per_stage(tmp_path: Path) -> None:
    def rec(name: str, stage: str, text: str, answer: str, **extra: object) -> dict:
        messages = [{"role": "system", "content": f"awm-gen-stage: {stage}\nrules"}, {"role": "user", "content": text}]
        return {"request": name, "messages": messages, "answer": answer, **extra}

    records = [
        rec("0001-world", "world", "w", "W1"),
        rec("0002-tools", "tools", "t", "T1"),
        rec("0003-tools-retry2", "tools", "t2", "T-stale", superseded=True),
        rec("0004-tools-retry2", "tools", "t2", "T2"),
    ]
    path = tmp_path / "transcript.jsonl.gz"
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    replayer, server = start_replay(path)
    try:
        port = server.server_port
        assert chat(port, "tools", "t")["choices"][0]["message"]["content"] == "T1"
        assert chat(port, "world", "w")["choices"][0]["message"]["content"] == "W1"
        assert chat(port, "tools", "changed")["choices"][0]["message"]["content"] == "T2"  # the stale one skipped
        assert "no answer #3" in chat(port, "tools", "t3")["error"]["message"]
    finally:
        server.shutdown()
    assert replayer.diverged == ["0004-tools-retry2"] and replayer.exhausted == ["tools"]
