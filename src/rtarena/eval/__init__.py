"""Experiments: config -> many matches -> results store -> reports."""
