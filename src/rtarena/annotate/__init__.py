"""Failure-mode annotation of runs: the codebook, rule-based and model annotators, agreement, review.

`rtarena annotate RUN` writes `annotations/rules.parquet` (and `annotations/model.parquet` with
`--model`) in the run folder, one row per episode, controller and code; `--review` serves a local page
whose verdicts go to `annotations/review.parquet`. Reports read these files by name (`eval` does not
import this package).
"""
