"""The `human` render mode: a pygame-ce window showing every agent's view side by side (split screen)
next to the spectator's map. Works headless with `SDL_VIDEODRIVER=dummy`."""

from __future__ import annotations

import os

import numpy as np


class HumanWindow:
    """A resizable-on-demand window that shows RGB frames; `closed` turns True when the user closes it."""

    def __init__(self, title: str = "rtarena arena", min_width: int = 800) -> None:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        self.pygame = pygame
        self.title = title
        self.min_width = min_width
        self.screen = None
        self.closed = False

    def show(self, frame: np.ndarray) -> None:
        pg = self.pygame
        if self.closed:
            return
        h, w = frame.shape[:2]
        scale = min(4, max(1, -(-self.min_width // max(w, 1))))  # small frames are shown enlarged
        size = (w * scale, h * scale)
        if self.screen is None or self.screen.get_size() != size:
            if not pg.display.get_init():
                pg.display.init()
            self.screen = pg.display.set_mode(size)
            pg.display.set_caption(self.title)
        surface = pg.surfarray.make_surface(np.ascontiguousarray(frame.swapaxes(0, 1)))
        if scale > 1:
            surface = pg.transform.scale(surface, size)
        self.screen.blit(surface, (0, 0))
        pg.display.flip()
        for event in pg.event.get():
            if event.type == pg.QUIT:
                self.close()

    def close(self) -> None:
        if self.screen is not None and not self.closed:
            self.pygame.display.quit()
        self.screen = None
        self.closed = True
