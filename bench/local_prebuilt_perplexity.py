"""Can a prebuilt llama.cpp (``xllamacpp``, no compile) give today's prompt log-probabilities?

Today's values: creval's ``local`` backend (llama-cpp-python, compiled at set-up) scoring
each text in one batched evaluation with ``logits_all``. The same texts' token ids are then
scored with xllamacpp (PyPI's prebuilt CPU wheel) in a second interpreter that has it and the
``gguf`` package (``--xllamacpp-python``), three ways:

* ``forced``: the text generated again token by token, forced by a grammar of token ids
  (``<[id]>``), with each token's log-probability under the raw distribution (``n_probs``);
* ``embeddings, float``: the final hidden state of every token from one batched evaluation
  (the server's non-OpenAI ``/embedding`` with pooling ``none``) times the GGUF's output
  matrix, dequantised, in float64;
* ``embeddings, Q8_0``: the same product computed as ggml computes it for SmolLM2's Q8_0
  output matrix (activations quantised to Q8_0 by blocks of 32 with fp16 scales, integer dot
  products per block, scaled and summed in float32).

Flash attention is off on the xllamacpp side (llama-cpp-python's default); with it on, every
way is further off. Prints, per text, the largest per-token difference from today's values,
both perplexities and the CPU time of each side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import subprocess
import sys
import time
from pathlib import Path

TEXTS = [
    "The cat sat on the mat and fell asleep.",
    "mat asleep the fell sat and cat on The.",
    "In the morning the fishermen mend their nets on the harbour wall, and by noon the market is empty.",
    " ".join(f"On day {i} the small cat walked to the river and sat down." for i in range(12)),
]

XLLAMACPP_SIDE = r'''
import json, math, sys, time, urllib.request
import numpy as np, gguf, xllamacpp as xlc
gguf_path, data = sys.argv[1], json.load(sys.stdin)
reader = gguf.GGUFReader(gguf_path)
out_t = next((t for t in reader.tensors if t.name == "output.weight"), None) or next(
    t for t in reader.tensors if t.name == "token_embd.weight")
W = gguf.quants.dequantize(out_t.data, out_t.tensor_type).astype(np.float64)
q8 = out_t.tensor_type.name == "Q8_0"
if q8:
    raw = np.asarray(out_t.data).reshape(W.shape[0], W.shape[1] // 32, 34)
    Wd = raw[:, :, :2].copy().view(np.float16)[:, :, 0].astype(np.float32)
    Wq = raw[:, :, 2:].copy().view(np.int8).astype(np.float32)  # integer sums exact in float32

def q8_logits(H):
    Hb = H.astype(np.float32).reshape(len(H), -1, 32)
    d = (np.abs(Hb).max(axis=2) / 127).astype(np.float32)
    inv = np.where(d > 0, 1.0 / np.where(d > 0, d, 1), 0).astype(np.float32)
    x = Hb * inv[:, :, None]
    q = (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.float32)  # roundf
    dx = d.astype(np.float16).astype(np.float32)
    out = np.zeros((len(H), Wq.shape[0]), dtype=np.float32)
    for b in range(Hb.shape[1]):
        out += (dx[:, b][:, None] * Wd[:, b][None, :]) * (q[:, b, :] @ Wq[:, b, :].T)
    return out.astype(np.float64)

def logprobs(logits, ids):
    peak = logits.max(axis=1, keepdims=True)
    logz = np.log(np.exp(logits - peak).sum(axis=1, keepdims=True)) + peak
    return (logits[np.arange(len(ids) - 1), ids[1:]] - logz[:, 0]).tolist()

def server(embedding):
    p = xlc.CommonParams()
    p.model.path = gguf_path
    p.n_ctx = 4096
    p.n_batch = 4096
    p.cpuparams.n_threads = p.cpuparams_batch.n_threads = 1
    p.n_parallel = 1
    p.verbosity = -1
    p.flash_attn_type = xlc.llama_flash_attn_type.LLAMA_FLASH_ATTN_TYPE_DISABLED
    if embedding:
        p.embedding = True
        p.pooling_type = xlc.llama_pooling_type.LLAMA_POOLING_TYPE_NONE
        p.embd_normalize = -1
    return xlc.Server(p)

gen, emb = server(False), server(True)
results = []
for d in data:
    ids, row = d["ids"], {}
    t0 = time.process_time()
    r = gen.handle_completions({"prompt": ids[:1], "n_predict": len(ids) - 1, "n_probs": 1,
                                "grammar": "root ::= " + " ".join(f"<[{i}]>" for i in ids[1:]),
                                "temperature": 0, "post_sampling_probs": False, "cache_prompt": False})
    content = r["choices"][0]["logprobs"]["content"]
    assert [c["id"] for c in content][: len(ids) - 1] == ids[1:]
    row["forced"] = ([c["logprob"] for c in content][: len(ids) - 1], time.process_time() - t0)
    t0 = time.process_time()
    req = urllib.request.Request(emb.listening_address + "/embedding",
                                 data=json.dumps({"content": [ids]}).encode(),
                                 headers={"Content-Type": "application/json"})
    H = np.asarray(json.loads(urllib.request.urlopen(req).read())[0]["embedding"], dtype=np.float64)
    hidden = time.process_time() - t0
    t0 = time.process_time()
    row["embeddings, float"] = (logprobs(H[: len(ids) - 1] @ W.T, ids), hidden + time.process_time() - t0)
    if q8:
        t0 = time.process_time()
        row["embeddings, Q8_0"] = (logprobs(q8_logits(H[: len(ids) - 1]), ids), hidden + time.process_time() - t0)
    results.append(row)
json.dump(results, sys.stdout)
'''


async def todays_values() -> list[dict[str, object]]:
    from creval.models import ModelOptions, get_model
    from creval.models.local import LocalModel
    from creval.models.prompt_scoring import PromptRequest

    model = get_model("local", ModelOptions(threads=1))
    assert isinstance(model, LocalModel)
    await model.prompt_logprobs(PromptRequest(text="warm up"))
    out: list[dict[str, object]] = []
    for text in TEXTS:
        start = time.process_time()
        scores = await model.prompt_logprobs(PromptRequest(text=text))
        cpu = time.process_time() - start
        llm = model._llm_logits
        add_bos = bool(llm._model.add_bos_token()) and llm.token_bos() >= 0
        ids = llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=False)
        out.append({"ids": ids, "logprobs": scores.logprobs(), "cpu": cpu})
    await model.aclose()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--xllamacpp-python", required=True,
                        help="a Python with xllamacpp and gguf installed (e.g. a scratch venv)")
    args = parser.parse_args()
    from creval.models.local import default_model_path

    today = asyncio.run(todays_values())
    done = subprocess.run([args.xllamacpp_python, "-c", XLLAMACPP_SIDE, str(default_model_path())],
                          input=json.dumps(today), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(done.stderr[-3000:])
    other = json.loads(done.stdout)
    print("| text (tokens) | way | max abs difference per token | perplexity today | perplexity | CPU today | CPU |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for ref, row in zip(today, other, strict=True):
        ref_lp = list(ref["logprobs"])  # type: ignore[call-overload]
        ppl = math.exp(-sum(ref_lp) / len(ref_lp))
        for way, (values, cpu) in row.items():
            diff = max(abs(a - b) for a, b in zip(values, ref_lp, strict=True))
            print(f"| {len(ref['ids'])} | {way} | {diff:.2g} | {ppl:.6g} | "  # type: ignore[arg-type]
                  f"{math.exp(-sum(values) / len(values)):.6g} | {ref['cpu']:.2f} s | {cpu:.2f} s |")
    print(f"(model: {Path(default_model_path()).name})")


if __name__ == "__main__":
    main()
