"""Scripted answers to the identification probe (`probe/identify-v0`): the player's question and the judge's.

A scripted policy sees no image, so as the player it says it does not know the game. As the judge it
reads the numbered mechanics and the answer from the prompt and counts a mechanic as described when the
answer shares at least two of its content words (compared on their first four letters) -- a keyword
stand-in for a model judge, named as scripted.
"""

from __future__ import annotations

import re

PLAYER_ANSWER = "I do not know this game and cannot tell its rules from here (a scripted policy sees no image)."
STOP = {"that", "this", "with", "from", "then", "until", "after", "over", "some", "each", "other", "while",
        "when", "what", "your", "which", "their", "they", "them", "only", "makes", "game"}


def looks_like_probe(observation: str) -> bool:
    return "Name the game if you know it" in observation or "Mechanics:" in observation


def _stems(text: str) -> set[str]:
    return {w[:4] for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4 and w not in STOP}


def decide(observation: str) -> str:
    if "Mechanics:" not in observation or "Answer:" not in observation:
        return PLAYER_ANSWER if "Name the game" in observation else "none"
    listed, answer = observation.split("Mechanics:", 1)[1].split("Answer:", 1)
    said = _stems(answer)
    found = [number for number, text in re.findall(r"^(\d+)\. (.+)$", listed, flags=re.M)
             if len(_stems(text) & said) >= 2]
    return " ".join(found) or "none"
