"""Scripted bots, one module per env family."""
