"""Models the notebooks train (every model here is plumbing; the lesson is the input pipeline).

* `digits` -- small MLP digit classifiers, graph, eager and Keras (notebooks 05 and 06);
* `language` -- LSTM language models on PTB windows (notebook 09);
* `linesearch` -- the Morse energy model and the backtracking line search that fits it (notebook 08).
"""

from tutorial_lib.models.digits import EagerMLP, keras_mlp, staged_mlp  # noqa: F401
from tutorial_lib.models.language import lstm_language_model, stateful_lstm_language_model  # noqa: F401
