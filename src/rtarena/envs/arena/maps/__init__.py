"""Arena maps: the file format, validation, procedural generation and top-down pictures.

- `format.py`: what a map file holds (its docstring is the format's documentation), reading and writing;
- `validate.py`: one `Problem` line per thing wrong with a map;
- `generate.py`: seeded procedural maps (`open`, `rooms`, `maze`), mirror-symmetric for team levels;
- `resolve.py`: what a level's `map=` accepts (a table, a file, `procedural:SEED[:STYLE]`);
- `topdown.py`: a top-down picture of a map, for `rtarena map render` and the editor.
"""

from rtarena.envs.arena.maps.format import MAP_KEYS, parse_procedural, read_map_file, to_toml, write_map_file
from rtarena.envs.arena.maps.generate import STYLES, MapSettings, generate_map, settings_for_level
from rtarena.envs.arena.maps.validate import Problem, check_map, validate_map

__all__ = [
    "MAP_KEYS", "STYLES", "MapSettings", "Problem", "check_map", "generate_map", "parse_procedural",
    "read_map_file", "settings_for_level", "to_toml", "validate_map", "write_map_file",
]
