"""A sparse, text-like two-class data set for the linear solvers (benchmarks only).

Documents are bags of words over a vocabulary of ``d`` words: most tokens come from a
Zipf-distributed background shared by both classes, a minority from a few hundred words typical
of the document's class (its "topic"). Counts become ``log(1 + count) * idf`` and rows are
scaled to unit length, as text classifiers usually see them (the DA paper's linear
experiments, papers/003 §4, and svmlin's text sets). About 53 distinct words per document with
the defaults, so n = 2000 gives ~106k nonzeros.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from toy_data import pick_labeled


def make_sparse_text(n: int, d: int = 10_000, *, tokens_per_doc: int = 84,
                     topic_share: float = 0.25, topic_words: int = 300, zipf: float = 1.1,
                     random_state: int = 0) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(X, y)``: ``X`` a CSR matrix of shape ``(n, d)`` with unit rows, ``y`` in {0, 1}.

    Parameters
    ----------
    n, d : documents and vocabulary size.
    tokens_per_doc : tokens drawn per document (repeats merge into counts).
    topic_share : fraction of tokens drawn from the class's topic words.
    topic_words : number of words typical of each class (disjoint, drawn from the
        vocabulary's middle frequencies so that they are neither stop words nor hapaxes).
    zipf : exponent of the background word frequencies ``p_k ~ 1 / k^zipf``.
    random_state : seed.
    """
    rng = np.random.default_rng(random_state)
    y = rng.integers(0, 2, n)
    background = 1.0 / np.arange(1, d + 1) ** zipf
    background /= background.sum()
    middle = rng.permutation(np.arange(d // 20, d // 2))[: 2 * topic_words]
    topics = middle.reshape(2, topic_words)
    n_tokens = n * tokens_per_doc
    docs = np.repeat(np.arange(n), tokens_per_doc)
    words = rng.choice(d, size=n_tokens, p=background)
    from_topic = rng.random(n_tokens) < topic_share
    topic_rank = np.minimum(rng.zipf(1.5, size=n_tokens) - 1, topic_words - 1)
    words[from_topic] = topics[y[docs[from_topic]], topic_rank[from_topic]]
    counts = sp.csr_matrix((np.ones(n_tokens), (docs, words)), shape=(n, d))
    counts.sum_duplicates()
    document_frequency = np.bincount(counts.indices, minlength=d)
    idf = np.log((1.0 + n) / (1.0 + document_frequency)) + 1.0
    counts.data = np.log1p(counts.data) * idf[counts.indices]
    norms = np.sqrt(np.asarray(counts.multiply(counts).sum(axis=1)).ravel())
    X = sp.csr_matrix(sp.diags(1.0 / np.maximum(norms, 1e-300)) @ counts)
    X.sort_indices()
    return X, y


def sparse_text_problem(n: int, n_labeled: int = 50, *, d: int = 10_000,
                        random_state: int = 0):
    """``(X, y, labels)`` with ``n_labeled`` labels (half per class), ``-1`` elsewhere."""
    X, y = make_sparse_text(n, d, random_state=random_state)
    return X, y, pick_labeled(y, n_labeled // 2, random_state=random_state)
