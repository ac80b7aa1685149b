"""The arena's one top-down palette: the minimap, the spectator view and the pictures of map files
(`maps/topdown.py`) draw with these colours (RGB, 0-255), so a map looks the same in the editor, in
`rtarena map render` and in a match."""

from __future__ import annotations

FLOOR_RGB = (62, 66, 60)
GRID_RGB = (80, 85, 78)  # a line every 10 m on map pictures
WALL_RGB = (205, 205, 212)
CRATE_RGB = (176, 122, 64)
BOUNDARY_RGB = (160, 86, 70)
ZONE_RGB = (165, 60, 215)
COIN_RGB = (250, 205, 40)
AMMO_RGB = (110, 200, 70)
TURRET_RGB = (210, 40, 40)
CHICKEN_RGB = (245, 245, 235)
AREA_RGB = (150, 150, 150)  # outlines of chicken areas on map pictures (ammo areas take AMMO_RGB)
TEAM_RGB = ((40, 110, 235), (225, 50, 45), (40, 185, 75), (240, 200, 30), (170, 70, 220), (30, 200, 210),
            (245, 130, 30), (235, 90, 170))
