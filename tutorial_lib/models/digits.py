"""Small digit classifiers used where the model is not the lesson (notebooks 05 and 06; dashboards, benchmarks,
`workload`).

Every model here is built with `models.scale.scaled_units(hidden_units)` hidden units: exactly `hidden_units`
unless the TUTORIAL_STEP_COST setting asks for a slower or cheaper step (see `tutorial_lib.workload`).
"""

from __future__ import annotations

from typing import Any

from tutorial_lib.env import import_tensorflow
from tutorial_lib.models.scale import scaled_units

tf = import_tensorflow()
v1 = tf.compat.v1


def staged_mlp(images: tf.Tensor, labels: tf.Tensor, hidden_units: int, device: str = "/CPU:0",
               learning_rate: float = 0.05) -> tuple[tf.Operation, tf.Operation, tf.Tensor]:
    """Build a 3-layer MLP that trains on a staged copy of the batch; return (stage_op, train_op, loss).

    Running `stage_op` dequeues one batch into non-trainable variables (the time spent there is time
    waiting for input); running `train_op` then computes on that batch only.
    """
    batch_size = images.shape[0]
    hidden_units = scaled_units(hidden_units)
    with tf.device(device):
        staged_images = v1.Variable(tf.zeros([batch_size, 784]), trainable=False, name="staged_images")
        staged_labels = v1.Variable(tf.zeros([batch_size], tf.int64), trainable=False, name="staged_labels")
        stage = tf.group(staged_images.assign(images), staged_labels.assign(labels), name="stage")
        w1 = v1.get_variable("w1", [784, hidden_units])
        w2 = v1.get_variable("w2", [hidden_units, hidden_units])
        w3 = v1.get_variable("w3", [hidden_units, 10])
        hidden = tf.nn.relu(tf.matmul(tf.nn.relu(tf.matmul(staged_images, w1)), w2))
        logits = tf.matmul(hidden, w3)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=staged_labels, logits=logits))
        train = v1.train.GradientDescentOptimizer(learning_rate).minimize(loss)
    return stage, train, loss


class EagerMLP(tf.Module):
    """The same MLP for TF2: `train_step(images, labels)` is a tf.function returning the loss."""

    def __init__(self, hidden_units: int, device: str = "/CPU:0", learning_rate: float = 0.05, seed: int = 0):
        super().__init__()
        init = tf.keras.initializers.GlorotUniform(seed=seed)
        hidden_units = scaled_units(hidden_units)
        self.device, self.learning_rate = device, learning_rate
        with tf.device(device):
            self.weights = [tf.Variable(init([784, hidden_units])), tf.Variable(init([hidden_units, hidden_units])),
                            tf.Variable(init([hidden_units, 10]))]

    @tf.function(reduce_retracing=True)
    def train_step(self, images: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
        with tf.device(self.device), tf.GradientTape() as tape:
            hidden = tf.nn.relu(tf.matmul(tf.nn.relu(tf.matmul(images, self.weights[0])), self.weights[1]))
            logits = tf.matmul(hidden, self.weights[2])
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        for weight, grad in zip(self.weights, tape.gradient(loss, self.weights), strict=True):
            weight.assign_sub(self.learning_rate * grad)
        return loss


def keras_mlp(hidden_units: int, learning_rate: float = 0.05, seed: int = 0) -> Any:
    """Return the same 3-layer MLP as a compiled Keras model (notebooks 05 and 06 train it with `fit`)."""
    import keras

    keras.utils.set_random_seed(seed)
    hidden_units = scaled_units(hidden_units)
    model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(hidden_units, activation="relu"),
                              keras.layers.Dense(hidden_units, activation="relu"), keras.layers.Dense(10)])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model
