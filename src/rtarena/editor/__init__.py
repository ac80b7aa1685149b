"""The map editor (`rtarena edit`): a page on 127.0.0.1 (`page.html`) over a small JSON API (`server.py`)."""
