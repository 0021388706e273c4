"""creval: measure the creativity of language models.

The public surface is small; heavy parts load only when used::

    from creval.models import get_model, GenerateRequest
    from creval.embed import get_embedder, get_word_vectors
    from creval.metrics import mean_pairwise_cosine_distance
    from creval.benchmarks import get_benchmark, registry
"""

__version__ = "0.1.0"
