"""A real HTTP server on loopback answering OpenAI-style ``/v1/completions`` with prompt
log-probabilities computed by llama.cpp on the packaged SmolLM2, in vLLM's shape
(``prompt_logprobs``, ``/tokenize``) or the legacy ``echo`` shape, or refusing both.

Its values come from its own llama.cpp instance (tokenize, evaluate, log-softmax here), so
a client that reads them right gets what the ``local`` backend computes."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Mode = Literal["vllm", "echo", "none"]


class _Scorer:
    def __init__(self) -> None:
        from llama_cpp import Llama

        from creval.models.local import default_model_path

        self.llm = Llama(model_path=str(default_model_path()), n_ctx=512, n_threads=1,
                         n_threads_batch=1, logits_all=True, verbose=False)
        self.lock = threading.Lock()

    def tokenize(self, text: str) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def piece(self, ids: list[int], i: int) -> str:
        return str(self.llm.detokenize([ids[i]], prev_tokens=ids[:i]).decode("utf-8", errors="replace"))

    def score(self, ids: list[int]) -> tuple[list[float], int, float]:
        """Log-probability of ids[1:] given those before, and the most probable next token."""
        import numpy as np

        with self.lock:
            self.llm.reset()
            self.llm.eval(ids)
            rows = np.asarray(self.llm.scores[: len(ids)], dtype=np.float64)
            self.llm.reset()
        logz = np.log(np.exp(rows - rows.max(axis=1, keepdims=True)).sum(axis=1)) + rows.max(axis=1)
        logprobs = rows - logz[:, None]
        values = [float(logprobs[i, ids[i + 1]]) for i in range(len(ids) - 1)]
        best = int(np.argmax(logprobs[-1]))
        return values, best, float(logprobs[-1, best])


class PromptServer:
    """``POST /v1/completions`` and ``POST /tokenize``; ``script`` holds status codes consumed
    one per completions request (non-200 answers are errors with Retry-After: 0)."""

    def __init__(self, mode: Mode, script: list[int] | None = None) -> None:
        self.mode = mode
        self.script = list(script or [])
        self.bodies: list[dict[str, Any]] = []
        self.scorer = _Scorer()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("retry-after", "0")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                self._send(200, {"object": "list", "data": []})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                if self.path == "/tokenize" and owner.mode == "vllm":
                    self._send(200, {"tokens": owner.scorer.tokenize(body["prompt"])})
                    return
                if self.path != "/v1/completions" or owner.mode == "none":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                owner.bodies.append(body)
                status = owner.script.pop(0) if owner.script else 200
                if status != 200:
                    self._send(status, {"error": {"message": f"scripted {status}"}})
                    return
                self._send(200, owner.answer(body))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = body["prompt"]
        ids = list(prompt) if isinstance(prompt, list) else self.scorer.tokenize(prompt)
        values, best, best_logprob = self.scorer.score(ids)
        pieces = [self.scorer.piece(ids, i) for i in range(len(ids))]
        nxt = str(self.scorer.llm.detokenize([best], prev_tokens=ids).decode("utf-8", errors="replace"))
        choice: dict[str, Any] = {"index": 0, "finish_reason": "length", "text": nxt, "logprobs": None}
        if self.mode == "vllm" and body.get("prompt_logprobs") is not None:
            choice["prompt_logprobs"] = [None] + [
                {str(ids[i + 1]): {"logprob": v, "rank": 1, "decoded_token": pieces[i + 1]}}
                for i, v in enumerate(values)
            ]
        if self.mode == "echo" and body.get("logprobs") is not None:
            tokens, logprobs, offsets = [nxt], [best_logprob], [len("".join(pieces))]
            if body.get("echo"):
                starts = [len("".join(pieces[:i])) for i in range(len(pieces))]
                tokens, logprobs, offsets = pieces + tokens, [None, *values] + logprobs, starts + offsets
                choice["text"] = "".join(pieces) + nxt
            choice["logprobs"] = {"tokens": tokens, "token_logprobs": logprobs, "text_offset": offsets,
                                  "top_logprobs": None}
        return {"id": "x", "object": "text_completion", "created": 0, "model": body["model"],
                "choices": [choice],
                "usage": {"prompt_tokens": len(ids), "completion_tokens": 1, "total_tokens": len(ids) + 1}}

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.scorer.llm.close()
