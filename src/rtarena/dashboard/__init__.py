"""`rtarena dashboard`: a local web app over the results store (runs, compare, episode replay, improvement)."""
