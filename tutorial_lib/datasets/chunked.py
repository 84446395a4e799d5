"""Data generated on the fly, in chunks of unknown size, for validating during training (notebooks 07a, 07b).

Every example carries an integer id, so a test can prove that a validation pass saw every example exactly
once and in the same order as the pass before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

FEATURES = 8
_TRUE_WEIGHTS = np.random.default_rng(1234).normal(size=FEATURES).astype(np.float32)


def generate(seed: int, num_chunks: int, first_id: int = 0) -> Iterator[tuple[int, np.ndarray, int]]:
    """Yield (id, features float32 [8], label 0/1) from `num_chunks` source chunks of 1 to 7 examples each.

    How many examples a chunk holds is only known when it is generated, so the total is unknown in
    advance (and, in general, not a multiple of any batch size). The same seed yields the same stream.
    """
    rng = np.random.default_rng(seed)
    next_id = first_id
    for _ in range(num_chunks):
        for _ in range(int(rng.integers(1, 8))):
            features = rng.normal(size=FEATURES).astype(np.float32)
            noisy = features @ _TRUE_WEIGHTS + rng.normal(scale=0.5)
            yield next_id, features, int(noisy > 0)
            next_id += 1


def endless(seed: int, chunk_block: int = 50) -> Iterator[tuple[int, np.ndarray, int]]:
    """Yield training examples forever, block after block of fresh chunks, ids counting up."""
    block, next_id = 0, 0
    while True:
        for example in generate(seed + 7919 * block, chunk_block, next_id):
            next_id = example[0] + 1
            yield example
        block += 1


def dataset(seed: int = 0, num_chunks: int | None = None):
    """Return a tf.data.Dataset of (id int64, features float32 [8], label int64): `num_chunks` chunks, or endless."""
    from tutorial_lib.env import import_tensorflow

    tf = import_tensorflow()

    def source():
        return generate(seed, num_chunks) if num_chunks is not None else endless(seed)

    return tf.data.Dataset.from_generator(source, output_signature=(
        tf.TensorSpec([], tf.int64), tf.TensorSpec([FEATURES], tf.float32), tf.TensorSpec([], tf.int64)))


def batches(examples: Iterable[tuple[int, np.ndarray, int]],
            batch_size: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Batch a stream of examples as it arrives, holding one batch at most; the last batch may be smaller.

    Yields (ids int64 [n], features float32 [n, 8], labels int64 [n]). The stream's length is never needed.
    """
    pending: list[tuple[int, np.ndarray, int]] = []
    for example in examples:
        pending.append(example)
        if len(pending) == batch_size:
            yield _stack(pending)
            pending = []
    if pending:
        yield _stack(pending)


def _stack(examples: list[tuple[int, np.ndarray, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids, features, labels = zip(*examples, strict=True)
    return np.array(ids, np.int64), np.stack(features), np.array(labels, np.int64)


def chunk(seed: int, index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Generate source chunk `index` on its own: (ids int64 [n], features float32 [n, 8], labels int64 [n]), n in 1..7.

    A pure function of (seed, index), so several reader threads may call it at once. Ids are index * 8 + k,
    unique across chunks.
    """
    rng = np.random.default_rng([seed, int(index)])
    n = int(rng.integers(1, 8))
    features = rng.normal(size=(n, FEATURES)).astype(np.float32)
    labels = (features @ _TRUE_WEIGHTS + rng.normal(scale=0.5, size=n) > 0).astype(np.int64)
    return np.arange(n, dtype=np.int64) + 8 * int(index), features, labels


def end_marker() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the end-of-pass marker: an empty batch (zero ids, zero feature rows, zero labels)."""
    return np.zeros([0], np.int64), np.zeros([0, FEATURES], np.float32), np.zeros([0], np.int64)


def passes_with_marker(seed: int, num_chunks: int, batch_size: int) -> Iterator[tuple[np.ndarray, ...]]:
    """Yield validation batches pass after pass, forever, each pass followed by `end_marker()`.

    Every pass regenerates the same chunks, batching them as they come (the pass's size is never known in
    advance), so every pass is identical; the consumer learns that a pass ended from the marker, never from
    a closed queue.
    """
    while True:
        yield from batches(generate(seed, num_chunks), batch_size)
        yield end_marker()
