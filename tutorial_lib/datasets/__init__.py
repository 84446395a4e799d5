"""The data the course ships in `data/`: build it, verify it, read it (every notebook).

One module per family of files; every public name is also available here as `datasets.<name>`:

* `files` -- where the data lives (`data_dir`, `data_path`) and the errors readers raise;
* `digits` -- handwritten digits as CSV, fixed-length records and TFRecord (notebooks 00-05, 10);
* `corpus` -- a Penn-Treebank-format corpus (notebook 09);
* `molecules` -- variable-size molecules with Morse energies (notebook 08);
* `manifest` -- rebuild everything byte-identically and check it (`make data`, `make data-verify`);
* `chunked` -- examples generated on the fly in chunks of unknown size (notebook 07a; not re-exported).
"""

from tutorial_lib.datasets.corpus import (  # noqa: F401
    CORPUS_PREFIX,
    CORPUS_SEED,
    CORPUS_SENTENCES,
    EOS,
    MIN_COUNT,
    UNK,
    Corpus,
    build_vocab,
    generate_corpus,
    load_ptb,
    read_words,
    write_corpus,
)
from tutorial_lib.datasets.digits import (  # noqa: F401
    CIFAR10_SHAPE,
    DIGIT_FEATURES,
    DIGIT_FORMATS,
    DIGIT_SHAPE,
    DIGIT_SHARDS,
    NUM_CLASSES,
    SHUFFLE_SEED,
    Digits,
    csv_header,
    digit_example,
    digit_files,
    load_digits,
    mnist_5k_source,
    parse_digit_example,
    read_cifar10_bin,
    read_digits_csv,
    read_digits_tfrecord,
    read_fixed_length,
    record_bytes,
    report_skipped,
    source_digits,
    write_digits_csv,
    write_digits_tfrecord,
    write_fixed_length,
)
from tutorial_lib.datasets.files import (  # noqa: F401
    REBUILD_HINT,
    DataFileError,
    MissingDataError,
    check_exists,
    data_dir,
    data_path,
    empty_file_error,
    fix_hint,
    read_records,
)
from tutorial_lib.datasets.manifest import (  # noqa: F401
    MANIFEST,
    build,
    sha256,
    verify,
)
from tutorial_lib.datasets.molecules import (  # noqa: F401
    MAX_ATOMS,
    MIN_ATOMS,
    MOLECULE_SEED,
    MORSE_DEPTH,
    MORSE_RADIUS,
    MORSE_WIDTH,
    NUM_MOLECULES,
    SPECIES,
    Molecule,
    generate_molecules,
    molecule_example,
    molecules_file,
    morse_energy,
    parse_molecule,
    read_molecules,
    write_molecules,
)
