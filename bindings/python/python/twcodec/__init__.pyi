"""Type stubs of twcodec's Python bindings (the extension module ``twcodec._twcodec``).

Arrays marked "view" are read-only numpy arrays over the Rust map's own memory, without a
copy; while any exists, methods that modify the map (``Map.convert``, ``Layer.set_tiles``)
raise ``BufferError``. ``Map.views`` counts them.

Threads: long calls (loading, ``Map.render``, ``Map.save``, ``Map.to_bytes``,
``Map.extract``, ``Map.convert``, a replay's ``next()``) release the GIL, so other threads
run meanwhile, and may use the same object. Reading calls share a map; ``Map.convert`` and
``Layer.set_tiles`` need it alone. A call that finds the map in use by another thread in a
way it cannot share raises ``BusyError`` at once (a ``twcodec.Error`` and a
``RuntimeError``); it never waits, and the map is left as it was. So ``set_tiles`` during
another thread's ``save`` raises, and every call on the map (``repr`` and ``views`` aside)
raises during another thread's ``convert``. Waiting would make the order of a change and a
save a race, and would deadlock a thread that calls back into a map it holds; share a map
that threads change under one ``threading.Lock``. Arrays and rendered pictures already
handed out stay valid: they are views that block changes (``BufferError``) or copies.
"""

import os
from typing import Any, Dict, Iterator, List, Literal, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, os.PathLike[str]]
_Form = Literal["ddnet", "teeworlds07", "teeworlds03"]
_Protocol = Literal["ddnet", "teeworlds07"]
_Item = Tuple[int, int, List[int]]
# An envelope point: a dict as ``Envelope.points`` gives it, or (time_ms, values[, curve]).
_Curve = Union[int, Literal["step", "linear", "slow", "fast", "smooth", "bezier"]]
_Point = Union[Dict[str, Any], Tuple[int, Sequence[int]], Tuple[int, Sequence[int], _Curve]]
# A picture: uint8 RGBA of shape (height, width, 4), a PNG file's bytes, or its path.
_Picture = Union[npt.ArrayLike, bytes, bytearray, memoryview, _Path]

class Error(ValueError):
    """A twcodec error; ``str()`` is the Rust library's message (what, where, which)."""

    kind: Literal[
        "malformed",
        "unsupported",
        "limit_exceeded",
        "io",
        "invalid_edit",
        "invalid_options",
        "busy",
        "other",
    ]
    """Who is at fault: the input, the library's coverage, a limit, I/O, an edit, options,
    another thread's call (``BusyError``)."""
    offset: Optional[int]
    """The byte offset in the input, when known."""
    path: Optional[str]
    """The file, when known."""

class IoError(Error, OSError):
    """A file could not be read or written (``errno``, ``strerror`` and ``filename`` set when
    known). The kinds that Python's builtins tell apart are subclasses: ``NotFoundError``,
    ``PermissionDeniedError``, ``IsDirectoryError``."""

class NotFoundError(IoError, FileNotFoundError):
    """A file or directory does not exist (``errno`` ENOENT)."""

class PermissionDeniedError(IoError, PermissionError):
    """No permission to read or write a file (``errno`` EACCES or EPERM)."""

class IsDirectoryError(IoError, IsADirectoryError):
    """A directory where a file is read or written (``errno`` EISDIR)."""

class BusyError(Error, RuntimeError):
    """The map (or replay) is in use by another thread's call that released the GIL
    (``Map.render``, ``Map.save``, ``Map.convert``, ...), and this call cannot share it:
    a change during a read or a write, anything during ``Map.convert``. Raised at once,
    never waited for; nothing was changed. ``kind`` is 'busy'; ``str()`` names the other
    call: ``Layer.set_tiles: the map is in use by another thread (Map.save); ...``."""

class RenderWarning(UserWarning):
    """Something ``Map.render`` drew differently from what the map asks."""

class PackWarning(UserWarning):
    """What ``Map.pack`` did because of a deletion in the directory (``twcodec pack``'s notes):
    a reference to a deleted item that became none, an auto-mapper configuration that went
    with its layer, a data item no item names any more."""

_Kind = Literal["game", "front", "tele", "speedup", "switch", "tune"]

def tile_name(id: int, kind: _Kind = "game") -> Optional[str]:
    """The name of tile ``id`` in a layer of ``kind`` ('freeze', 'start', ...), or None."""

def tile_ids(name: str, kind: _Kind = "game") -> List[int]:
    """The ids of the tiles of that name in a layer of ``kind`` (5, 6, 66, 67 for 'hook-through')."""

def sample() -> bytes:
    """The built-in sample map's bytes: a small DDNet map using every feature twcodec knows."""

def find(paths: Sequence[_Path]) -> List[str]:
    """Every ``.map`` and ``.demo`` file under ``paths`` (recursively), sorted within each path."""

def scan_file(path: _Path, *, deep: bool = False) -> Dict[str, Any]:
    """One file's row, with the keys of ``twcodec scan``'s JSONL; a failed file has ``error``."""

def scan(
    paths: Sequence[_Path], *, deep: bool = False, jobs: Optional[int] = None
) -> List[Dict[str, Any]]:
    """The rows of every map and demo under ``paths``, in the files' order, on ``jobs`` threads."""

class Map:
    """A map: items resolved into groups, layers, images, envelopes and sounds.

    Threads may share a map: calls that read it run together (several renders and saves at
    once); ``convert`` and ``Layer.set_tiles`` raise ``BusyError`` while another thread's
    call holds the map, and every call but ``repr`` and ``views`` raises it during another
    thread's ``convert``. Nothing waits; serialise changes with a ``threading.Lock``.
    """

    @staticmethod
    def load(
        path: _Path, *, strict: bool = False, decode: Literal["lazy", "layers", "all"] = "layers"
    ) -> Map:
        """Reads a map file; ``strict`` fails on the first error instead of keeping problems."""
    @staticmethod
    def parse(
        data: bytes, *, strict: bool = False, decode: Literal["lazy", "layers", "all"] = "layers"
    ) -> Map:
        """Reads a map from its bytes."""
    @staticmethod
    def sample() -> Map:
        """The built-in sample map."""
    def copy(self) -> Map:
        """A copy, with no arrays viewing it."""
    @property
    def form(self) -> _Form:
        """'ddnet', 'teeworlds07' or 'teeworlds03'."""
    @property
    def version(self) -> Optional[int]:
        """The version item's version."""
    @property
    def info(self) -> Optional[Dict[str, Any]]:
        """author, version, credits, license (str or None) and settings (list of str)."""
    @property
    def problems(self) -> List[Dict[str, str]]:
        """What the resolver found: dicts of 'severity' ('warning', 'error') and 'text'."""
    @property
    def groups(self) -> List[Group]: ...
    @property
    def layers(self) -> List[Layer]: ...
    @property
    def game_layer(self) -> Optional[Layer]: ...
    @property
    def front_layer(self) -> Optional[Layer]: ...
    @property
    def tele_layer(self) -> Optional[Layer]: ...
    @property
    def speedup_layer(self) -> Optional[Layer]: ...
    @property
    def switch_layer(self) -> Optional[Layer]: ...
    @property
    def tune_layer(self) -> Optional[Layer]: ...
    @property
    def images(self) -> List[Image]: ...
    @property
    def envelopes(self) -> List[Envelope]: ...
    @property
    def sounds(self) -> List[Sound]: ...
    @property
    def views(self) -> int:
        """How many numpy arrays view the map's memory now (answers during a ``convert``)."""
    def to_bytes(self, level: Optional[int] = None) -> bytes:
        """The map file; unmodified, the bytes read. ``level`` (0-9) recompresses all data."""
    def save(self, path: _Path, level: Optional[int] = None) -> None:
        """Writes the map file atomically."""
    def optimize(
        self,
        *,
        skip: Sequence[str] = (),
        keep_images: bool = False,
        level: int = 9,
        dry_run: bool = False,
    ) -> Dict[str, Any]:
        """Makes the map smaller without changing how it looks or plays: the report."""
    def convert(self, form: Literal["ddnet", "teeworlds07", "0.7"]) -> None:
        """Converts the map in place to DDNet's or Teeworlds 0.7's form ('0.7' is 'teeworlds07',
        as ``twcodec resave --to`` spells it). ``BufferError`` while
        arrays view the map, ``BusyError`` while another thread's call uses it; other
        threads' calls on the map raise ``BusyError`` until it is done."""
    def transform(
        self, mirror: bool = False, flip: bool = False, rotate: Literal[0, 90, 180, 270] = 0
    ) -> None:
        """Mirrors left-right, flips top-bottom and rotates clockwise by ``rotate`` degrees,
        in that order: tiles with their flags, physics with the game's directions (speedup
        angles, stoppers, checkpoints, rotating lasers), quads, sound sources, group offsets,
        parallax and clips, position envelopes. Tiles layers of the game group larger than
        the game layer move first to new groups just before or after it that draw as it
        draws, keeping the draw order. Raises ``twcodec.Error`` (kind 'invalid_edit') and
        changes nothing when the map cannot be transformed (a physics layer of another size
        than the game layer, such a larger tiles layer between two physics layers)."""
    def reframe(
        self, left: int = 0, top: int = 0, right: int = 0, bottom: int = 0, *, group: Optional[int] = None
    ) -> None:
        """Crops (negative) or extends (positive) every tile layer of ``group`` (default: the
        game group) by these margins in tiles, keeping the world in place. Added physics
        tiles are air; other layers repeat their edge."""
    def crop(self, x: int, y: int, width: int, height: int, *, group: Optional[int] = None) -> None:
        """Crops every tile layer of ``group`` (default: the game group) to ``width`` x
        ``height`` tiles from column ``x``, row ``y`` of the group's frame (the game layer for
        the game group), keeping the world in place."""
    def shift(self, dx: int, dy: int, *, group: Optional[int] = None) -> None:
        """Moves the tiles of ``group`` (default: the game group) ``dx`` columns right and
        ``dy`` rows down inside their layers, which keep their size and place."""
    def scale_time(self, factor: float) -> None:
        """Multiplies every envelope time by ``factor`` (2 plays them half as fast): point
        times, bezier time tangents, envelope time offsets and sound source delays."""
    @overload
    def render(
        self,
        *,
        width: Optional[int] = None,
        scale: Optional[float] = None,
        size: Optional[Tuple[int, int]] = None,
        camera: Optional[Tuple[float, float, float]] = None,
        time: Optional[float] = None,
        time_ms: Optional[float] = None,
        entities: Union[bool, int] = 0,
        detail: bool = True,
        layers: Optional[Sequence[Union[int, str]]] = None,
        mapres: Optional[_Path] = None,
        entities_tileset: Optional[_Path] = None,
        background: Tuple[int, int, int, int] = (128, 128, 128, 255),
        png: Literal[False] = False,
        path: Optional[_Path] = None,
    ) -> npt.NDArray[np.uint8]:
        """Draws the map as the game does: an (height, width, 4) RGBA array (moved, no copy).

        The options of ``twcodec render``, in its units: ``time`` in seconds (``--time``) or
        ``time_ms`` in milliseconds, not both; ``camera`` is (x, y, zoom), the center in tiles;
        ``entities`` True draws the physics layers alone (``--entities``), an int 0-100 their
        opacity over the map (``--entities-overlay``). A bad option raises an error naming it:
        ``TypeError`` for a wrong type, ``twcodec.Error`` (kind 'invalid_options') for a wrong
        value. Pictures are read anew each call; a ``Renderer`` keeps them between renders."""
    @overload
    def render(
        self,
        *,
        width: Optional[int] = None,
        scale: Optional[float] = None,
        size: Optional[Tuple[int, int]] = None,
        camera: Optional[Tuple[float, float, float]] = None,
        time: Optional[float] = None,
        time_ms: Optional[float] = None,
        entities: Union[bool, int] = 0,
        detail: bool = True,
        layers: Optional[Sequence[Union[int, str]]] = None,
        mapres: Optional[_Path] = None,
        entities_tileset: Optional[_Path] = None,
        background: Tuple[int, int, int, int] = (128, 128, 128, 255),
        png: Literal[True] = ...,
        path: Optional[_Path] = None,
    ) -> bytes:
        """Draws the map as the game does: the PNG file's bytes, drawn and compressed piece by
        piece, never holding the whole picture (the same bytes as the array's PNG)."""
    def extract(
        self, directory: _Path, only: Literal["all", "images", "sounds"] = "all"
    ) -> List[Dict[str, Any]]:
        """Writes embedded images (PNG) and sounds (Opus); every asset's kind, index, name, file."""
    def replace_area(
        self, source: Map, from_area: Tuple[int, int, int, int], to: Tuple[int, int]
    ) -> Dict[str, Any]:
        """Copies ``source``'s area (x, y, width, height; game tiles) here at ``to``: the report."""
    def append(self, other: Map) -> Dict[str, Any]:
        """Appends ``other`` (images, sounds, envelopes, groups; shared when identical): the report."""
    @staticmethod
    def new(width: int = 100, height: int = 50) -> Map:
        """A DDNet map from nothing: an empty info and a group "Game" with a game layer of air."""
    def set_info(
        self,
        *,
        author: Optional[str] = None,
        version: Optional[str] = None,
        credits: Optional[str] = None,
        license: Optional[str] = None,
    ) -> None:
        """Sets the info texts given ('' removes one)."""
    def set_settings(self, settings: Sequence[str]) -> None:
        """Sets DDNet's server settings; an empty list removes them."""
    def add_group(
        self,
        name: str,
        *,
        offset: Tuple[int, int] = (0, 0),
        parallax: Tuple[int, int] = (100, 100),
        clip: Optional[Tuple[int, int, int, int]] = None,
        at: Optional[int] = None,
    ) -> Group:
        """Adds a group: the new Group. Handles made before it are gone."""
    def remove_group(self, group: Group) -> None:
        """Removes a group with its layers, renumbering every reference."""
    def add_layer(
        self,
        group: Group,
        kind: Literal[
            "tiles", "game", "front", "tele", "speedup", "switch", "tune", "quads", "sounds"
        ],
        name: Optional[str] = None,
        *,
        width: Optional[int] = None,
        height: Optional[int] = None,
    ) -> Layer:
        """Adds a layer at the end of ``group``: the new Layer."""
    def remove_layer(self, layer: Layer) -> None:
        """Removes a layer, renumbering every reference."""
    def add_external_image(self, name: str) -> Image:
        """Adds an external image (the client's own picture of that name)."""
    def add_embedded_image(self, name: str, pixels: _Picture) -> Image:
        """Adds an embedded image: RGBA pixels (uint8, (height, width, 4)), PNG bytes or a PNG path."""
    def remove_image(self, image: Image) -> None:
        """Removes an image; layers drawn with it are drawn without one."""
    def move_group(self, group: Group, to: int) -> Group:
        """Moves a group (its layers with it): the moved Group. Group and layer handles are gone."""
    def move_layer(self, layer: Layer, group: Group, at: Optional[int] = None) -> Layer:
        """Moves a layer to position ``at`` of ``group`` (None: the end): the moved Layer."""
    def move_image(self, image: Image, to: int) -> Image:
        """Moves an image; layers keep drawing it: the moved Image. Image handles are gone."""
    def add_envelope(
        self,
        kind: Literal["position", "color", "sound"],
        name: str = "",
        points: Optional[Sequence[_Point]] = None,
        *,
        bezier: Optional[Sequence[Dict[str, Any]]] = None,
        synchronized: bool = False,
        at: Optional[int] = None,
    ) -> Envelope:
        """Adds an envelope (points as ``Envelope.set_points`` takes them): the new Envelope."""
    def remove_envelope(self, envelope: Envelope) -> None:
        """Removes an envelope; references to it become none, later ones shift down."""
    def move_envelope(self, envelope: Envelope, to: int) -> Envelope:
        """Moves an envelope; every reference follows it: the moved Envelope."""
    def add_sound(self, name: str, data: bytes) -> Sound:
        """Adds a sound from an Ogg Opus file's bytes (checked): the new Sound."""
    def remove_sound(self, sound: Sound) -> None:
        """Removes a sound; sounds layers playing it play none."""
    def move_sound(self, sound: Sound, to: int) -> Sound:
        """Moves a sound; sounds layers keep playing it: the moved Sound."""
    def check(
        self, *, ddnet: bool = True, rules: Optional[_Path] = None
    ) -> List[Dict[str, Any]]:
        """What ``twcodec check`` finds: the reader's problems, the gameplay checks, a rules file's rules."""
    def automap(
        self,
        rules_dir: _Path,
        layer: Optional[Union[int, str]] = None,
        config: Optional[Union[int, str]] = None,
        seed: Optional[int] = None,
    ) -> List[Dict[str, Any]]:
        """Runs DDNet's automapper (``rules_dir/IMAGE.rules``) on ``layer`` (index or name),
        with ``config`` and ``seed`` from its automapper item unless given, or on every
        automatic layer: a dict per layer ('layer', 'name', 'config', 'seed', 'changed',
        'skipped'). An error changes nothing."""
    def fill_game_tiles(
        self,
        layer: Union[int, str],
        op: Literal[
            "air",
            "hookable",
            "death",
            "unhookable",
            "hookthrough",
            "freeze",
            "unfreeze",
            "deep-freeze",
            "deep-unfreeze",
            "blue-check-tele",
            "red-check-tele",
            "live-freeze",
            "live-unfreeze",
        ],
    ) -> Dict[str, Any]:
        """DDNet's "Game tiles" button: ``op``'s tile in the game layer (the tele layer for
        the check-teles) under every non-empty tile of ``layer``, at its group's offset; the
        report. An error (another parallax, an offset not of whole tiles) changes nothing."""
    def replace_tiles(
        self,
        layer: Union[int, str],
        from_: Union[int, Tuple[int, int]],
        to: Union[int, Tuple[int, int]],
        area: Optional[Tuple[int, int, int, int]] = None,
    ) -> Dict[str, Any]:
        """Replaces tile ``from_`` (id, or (id, flags)) by ``to`` in ``layer``, or in ``area``
        (x, y, width, height) of it; tele, speedup, switch and tune layers by type, keeping
        numbers and forces: the report. An error changes nothing."""
    def to_json(self) -> str:
        """The map as ``twcodec dump --format json`` prints it."""
    def to_dict(self) -> Dict[str, Any]:
        """The map as ``twcodec dump --format json`` prints it, as dicts and lists."""
    def diff(self, other: Union[Map, _Path]) -> Diff:
        """The differences from this map (old) to ``other`` (new; a Map, or the path of a map
        file or of a directory ``unpack`` wrote), as ``twcodec diff`` finds them."""
    def unpack(self, directory: _Path) -> Dict[str, int]:
        """Writes the map as a directory (``twcodec unpack``; docs/mapdir.md) that must be new
        or empty: 'items', 'data' and 'raw' (data files kept as raw bytes) written.
        ``Map.pack`` builds it back, the bytes of ``to_bytes()`` when nothing changed."""
    @staticmethod
    def pack(
        directory: _Path, *, strict: bool = False, decode: Literal["lazy", "layers", "all"] = "layers"
    ) -> Map:
        """Builds the map a directory describes (``twcodec pack``); what followed from a
        deletion is a ``PackWarning``, an error names the file and line and builds nothing."""
    def embed(self, mapres: Optional[_Path] = None, *, strict: bool = False) -> Dict[str, Any]:
        """Embeds every external image from ``mapres/NAME.png`` (default ``$TWCODEC_MAPRES``)
        as ``twcodec embed`` does: 'embedded', 'left_external' (with each 'reason') and
        'warnings'. ``strict``: an image left external is an error, and nothing changes."""

class Diff:
    """The differences between two maps (``Map.diff``), as ``twcodec diff`` finds them: by
    place, in tiles, seconds and colors of 0..1. False for the same map; ``len()`` counts the
    changes listed; iterating gives each change as a dict: 'place', 'change' (its kind) and
    the keys of ``twcodec diff --format json``."""

    @property
    def places(self) -> List[str]:
        """The places that changed, in map order (``group #1 "Game" / layer #3 "Ground"``)."""
    @property
    def sections(self) -> List[Dict[str, Any]]:
        """Dicts of 'place' and 'changes', as ``twcodec diff --format json``."""
    @property
    def changes(self) -> List[Dict[str, Any]]:
        """Every change listed, as dicts with their 'place' and 'change' (kind)."""
    @property
    def counts(self) -> Dict[str, int]:
        """Changes listed per kind: 'added', 'removed', 'moved', 'field', 'tiles', 'pixels',
        'more', 'note'."""
    @property
    def tiles(self) -> int:
        """How many tiles changed, also those past a section's list of 200 changes."""
    def text(self) -> str:
        """The diff as ``twcodec diff`` prints it ('' for the same map)."""
    def to_json(self) -> str:
        """The diff as ``twcodec diff --format json`` prints it."""
    def __bool__(self) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Dict[str, Any]]: ...

class Renderer:
    """Draws maps as ``Map.render`` does, keeping the pictures it reads and decodes for its
    next render: external images' files, the entities tileset, embedded images' textures
    (found again by their pixels). Many frames or many maps make each once. At most 1 GiB
    of pixels is kept (those used longest ago go first); ``clear()`` drops them, to read
    changed files again. Threads may share one."""

    def __init__(self, mapres: Optional[_Path] = None, entities_tileset: Optional[_Path] = None) -> None:
        """``mapres`` (default ``$TWCODEC_MAPRES``) and ``entities_tileset`` for every render
        that names none."""
    @property
    def mapres(self) -> Optional[str]:
        """The folder of external images renders use unless they name another."""
    @property
    def entities_tileset(self) -> Optional[str]:
        """The entities tileset renders use unless they name another."""
    @property
    def cached(self) -> int:
        """How many pictures the renderer keeps now (files and embedded images)."""
    def clear(self) -> None:
        """Drops every picture kept."""
    @overload
    def render(
        self,
        map: Map,
        *,
        width: Optional[int] = None,
        scale: Optional[float] = None,
        size: Optional[Tuple[int, int]] = None,
        camera: Optional[Tuple[float, float, float]] = None,
        time: Optional[float] = None,
        time_ms: Optional[float] = None,
        entities: Union[bool, int] = 0,
        detail: bool = True,
        layers: Optional[Sequence[Union[int, str]]] = None,
        mapres: Optional[_Path] = None,
        entities_tileset: Optional[_Path] = None,
        background: Tuple[int, int, int, int] = (128, 128, 128, 255),
        png: Literal[False] = False,
        path: Optional[_Path] = None,
    ) -> npt.NDArray[np.uint8]:
        """Draws ``map`` as ``Map.render`` does (the same options and pixels), with the
        picture files this renderer keeps; ``mapres`` and ``entities_tileset`` default to the
        renderer's. An (height, width, 4) RGBA array."""
    @overload
    def render(
        self,
        map: Map,
        *,
        width: Optional[int] = None,
        scale: Optional[float] = None,
        size: Optional[Tuple[int, int]] = None,
        camera: Optional[Tuple[float, float, float]] = None,
        time: Optional[float] = None,
        time_ms: Optional[float] = None,
        entities: Union[bool, int] = 0,
        detail: bool = True,
        layers: Optional[Sequence[Union[int, str]]] = None,
        mapres: Optional[_Path] = None,
        entities_tileset: Optional[_Path] = None,
        background: Tuple[int, int, int, int] = (128, 128, 128, 255),
        png: Literal[True] = ...,
        path: Optional[_Path] = None,
    ) -> bytes:
        """Draws ``map`` as ``Map.render`` does: the PNG file's bytes."""
    def __repr__(self) -> str: ...

class Group:
    """A group of layers. ``name``, ``offset``, ``parallax`` and ``clip`` are settable (the game
    group's offset, parallax and clip are fixed: DDNet resets them)."""

    @property
    def index(self) -> int: ...
    @property
    def name(self) -> str: ...
    @name.setter
    def name(self, name: str) -> None: ...
    @property
    def offset(self) -> Tuple[int, int]:
        """World units."""
    @offset.setter
    def offset(self, offset: Tuple[int, int]) -> None: ...
    @property
    def parallax(self) -> Tuple[int, int]:
        """Percent."""
    @parallax.setter
    def parallax(self, parallax: Tuple[int, int]) -> None: ...
    @property
    def clip(self) -> Optional[Tuple[int, int, int, int]]:
        """(x, y, width, height) when clipping is on."""
    @clip.setter
    def clip(self, clip: Optional[Tuple[int, int, int, int]]) -> None: ...
    @property
    def layers(self) -> List[Layer]: ...
    @property
    def item(self) -> Dict[str, Any]:
        """The group item as stored."""

class Layer:
    """A layer: tiles of one of seven kinds, quads, sound sources, or an unknown kind."""

    @property
    def index(self) -> int: ...
    @property
    def name(self) -> str: ...
    @name.setter
    def name(self, name: str) -> None: ...
    @property
    def color(self) -> Optional[Tuple[int, int, int, int]]:
        """A tiles layer's color (r, g, b, a), each 0 to 255; None for other kinds."""
    @color.setter
    def color(self, color: Tuple[int, int, int, int]) -> None: ...
    @property
    def kind(
        self,
    ) -> Literal[
        "tiles", "game", "front", "tele", "speedup", "switch", "tune", "quads", "sounds", "unknown"
    ]: ...
    @property
    def is_physics(self) -> bool: ...
    @property
    def detail(self) -> bool: ...
    @detail.setter
    def detail(self, detail: bool) -> None: ...
    @property
    def group(self) -> Optional[int]:
        """Index of the group holding the layer."""
    @property
    def image(self) -> Optional[Image]: ...
    @image.setter
    def image(self, image: Optional[Image]) -> None: ...
    @property
    def width(self) -> Optional[int]:
        """Tiles, for tile layers."""
    @property
    def height(self) -> Optional[int]:
        """Tiles, for tile layers."""
    @property
    def item(self) -> Optional[Dict[str, Any]]:
        """The layer item as stored, after its header."""
    def tiles(self, *, structured: bool = False) -> Optional[npt.NDArray[Any]]:
        """View: (height, width, bytes per tile) uint8, or (height, width) records
        (``id``, ``flags``, ...) with ``structured=True``; None when the data is broken."""
    def set_tiles(self, tiles: npt.ArrayLike) -> None:
        """Copies tiles of the shape ``tiles()`` gives into the map. ``BufferError`` while
        arrays view the map; ``BusyError`` while another thread's call (``render``, ``save``,
        ``convert``, ...) uses it, the map unchanged."""
    def quads(self) -> Optional[npt.NDArray[np.void]]:
        """View: one record per quad (points, colors, texture_coords, envelopes)."""
    def add_quad(
        self,
        x: float,
        y: float,
        width: float = 2.0,
        height: float = 2.0,
        *,
        color: Tuple[int, int, int, int] = (255, 255, 255, 255),
    ) -> int:
        """Adds a quad as DDNet's editor makes one (a rectangle in tiles, the whole image
        across it, no envelopes); returns its index in ``quads()``."""
    def set_quads(self, quads: npt.ArrayLike) -> None:
        """Replaces a quads layer's quads with records like ``quads()`` gives (copied): take
        ``q = layer.quads().copy()``, change fields, ``layer.set_quads(q)``."""
    @overload
    def sources(self, *, structured: Literal[False] = False) -> Optional[List[Dict[str, Any]]]:
        """The sound sources of a sounds layer as dicts (a copy)."""
    @overload
    def sources(self, *, structured: Literal[True]) -> Optional[npt.NDArray[np.void]]:
        """The sound sources of a sounds layer as records (a copy): ``position``, ``shape``, ..."""
    def set_sources(self, sources: Union[Sequence[Dict[str, Any]], npt.ArrayLike]) -> None:
        """Replaces a sounds layer's sources: dicts or records as ``sources()`` gives (keys left
        out of a dict take DDNet's editor defaults), or int32 of shape (n, 13)."""
    @property
    def color_envelope(self) -> Optional[Envelope]:
        """A tiles layer's color envelope."""
    @property
    def color_envelope_offset(self) -> Optional[int]:
        """A tiles layer's color envelope offset, ms."""
    def set_color_envelope(self, envelope: Optional[Envelope], offset: int = 0) -> None:
        """Sets a tiles layer's color envelope (a color one, or None) and its offset in ms."""
    @property
    def sound(self) -> Optional[Sound]:
        """The sound a sounds layer plays."""
    @sound.setter
    def sound(self, sound: Optional[Sound]) -> None: ...

class Image:
    """An image: embedded pixels, or a name the game loads from ``mapres``."""

    @property
    def index(self) -> int: ...
    @property
    def name(self) -> Optional[str]: ...
    @name.setter
    def name(self, name: str) -> None: ...
    @property
    def external(self) -> bool: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def item(self) -> Dict[str, Any]:
        """The image item as stored."""
    def rgba(self) -> npt.NDArray[np.uint8]:
        """(height, width, 4) RGBA: a view for RGBA images, RGB ones widened (a new array)."""
    def png(self) -> bytes:
        """The embedded image as a PNG file."""
    def set_pixels(self, pixels: _Picture) -> None:
        """Replaces the pixels (an external image becomes embedded); the image keeps its place."""

class Envelope:
    """An envelope: points animating a position, a color or a volume. ``name`` and
    ``synchronized`` are settable."""

    @property
    def index(self) -> int: ...
    @property
    def name(self) -> str: ...
    @name.setter
    def name(self, name: str) -> None: ...
    @property
    def channels(self) -> int: ...
    @property
    def kind(self) -> Literal["position", "color", "sound", "other"]: ...
    @property
    def synchronized(self) -> Optional[bool]: ...
    @synchronized.setter
    def synchronized(self, synchronized: bool) -> None: ...
    @property
    def points(self) -> List[Dict[str, Any]]:
        """'time' (ms), 'curve_type' and 'values' (4 ints, 22.10 fixed point) per point."""
    @property
    def bezier(self) -> Optional[List[Dict[str, Any]]]: ...
    @property
    def item(self) -> Dict[str, Any]:
        """The envelope item as stored."""
    def eval(self, time_ms: float) -> Optional[Tuple[float, float, float, float]]:
        """The four channels at ``time_ms``, as the game computes them."""
    def set_points(
        self, points: Sequence[_Point], bezier: Optional[Sequence[Dict[str, Any]]] = None
    ) -> None:
        """Replaces the points (``e.set_points(e.points, e.bezier)`` changes nothing)."""

class Sound:
    """A sound: Opus data embedded in the map. ``name`` is settable."""

    @property
    def index(self) -> int: ...
    @property
    def name(self) -> Optional[str]: ...
    @name.setter
    def name(self, name: str) -> None: ...
    @property
    def external(self) -> bool: ...
    def data(self) -> bytes: ...
    def set_data(self, data: bytes) -> None:
        """Replaces the sound's Ogg Opus data (checked); it keeps its name and place."""

class Datafile:
    """A datafile: items as (type_id, id, ints), data items inflated on request."""

    @staticmethod
    def open(path: _Path) -> Datafile: ...
    @staticmethod
    def parse(data: bytes) -> Datafile: ...
    @property
    def version(self) -> int: ...
    @property
    def warnings(self) -> List[str]: ...
    def items(self) -> List[_Item]: ...
    def items_of_type(self, type_id: int) -> List[_Item]: ...
    def item(self, type_id: int, id: int) -> Optional[List[int]]: ...
    def uuid_types(self) -> List[Tuple[int, str]]: ...
    @property
    def data_count(self) -> int: ...
    def data(self, index: int) -> bytes:
        """A data item, inflated to exactly its declared size."""
    def data_size(self, index: int) -> Optional[int]: ...
    def to_bytes(self) -> bytes:
        """The file written back (the same bytes as read)."""
    def __len__(self) -> int: ...

class Snapshot:
    """A snapshot: items of (type_id, id, ints)."""

    def __init__(self, items: Sequence[Tuple[int, int, Sequence[int]]] = ...) -> None: ...
    @staticmethod
    def sample(tick: int) -> Snapshot: ...
    @staticmethod
    def from_bytes(data: bytes, *, packed: bool = False) -> Snapshot: ...
    def to_bytes(self, *, packed: bool = False) -> bytes: ...
    def items(self) -> List[_Item]: ...
    def objects(self, protocol: Literal["ddnet", "teeworlds07"] = "ddnet") -> List[Dict[str, Any]]:
        """The items as objects of the protocol: index, type_id, id, name, uuid, object, note."""
    def item(self, type_id: int, id: int) -> Optional[List[int]]: ...
    @property
    def checksum(self) -> int: ...
    def apply(self, delta: SnapshotDelta) -> Snapshot: ...
    def __len__(self) -> int: ...

class SnapshotDelta:
    """A snapshot delta: removed keys, changed items as wrapping differences."""

    @staticmethod
    def create(old: Snapshot, new: Snapshot) -> SnapshotDelta: ...
    @staticmethod
    def from_bytes(
        data: bytes, *, packed: bool = False, protocol: _Protocol = "ddnet"
    ) -> SnapshotDelta: ...
    def to_bytes(self, *, packed: bool = False, protocol: _Protocol = "ddnet") -> bytes: ...
    @property
    def is_empty(self) -> bool: ...
    @property
    def removed(self) -> List[Tuple[int, int]]: ...
    @property
    def updates(self) -> List[_Item]: ...

class Teehistorian:
    """A DDNet teehistorian file: the server's record of a game; header, records read lazily."""

    @staticmethod
    def open(path: _Path) -> Teehistorian: ...
    @staticmethod
    def parse(data: bytes) -> Teehistorian: ...
    @property
    def header(self) -> Dict[str, Any]: ...
    @property
    def map_name(self) -> Optional[str]: ...
    @property
    def game_uuid(self) -> Optional[str]: ...
    def to_bytes(self) -> bytes: ...
    def records(self) -> TeehistorianRecords:
        """Each record a dict: index, offset, tick, kind and its fields."""
    def __iter__(self) -> TeehistorianRecords: ...
    def summary(self) -> Dict[str, Any]:
        """Records by kind and extension, first and last tick, players, finished, error."""
    def to_demo(self, map: bytes, player: Optional[int] = None) -> bytes:
        """A demo of the game on the map: characters at the recorded positions."""

class TeehistorianRecords(Iterator[Dict[str, Any]]):
    """The records of a Teehistorian, as dicts."""

    def __iter__(self) -> TeehistorianRecords: ...
    def __next__(self) -> Dict[str, Any]: ...

class Demo:
    """A demo: header, embedded map, chunks read lazily."""

    @staticmethod
    def open(path: _Path) -> Demo: ...
    @staticmethod
    def parse(data: bytes) -> Demo: ...
    @property
    def version(self) -> int: ...
    @property
    def net_version(self) -> str: ...
    @property
    def protocol(self) -> _Protocol: ...
    @property
    def map_name(self) -> str: ...
    @property
    def map_size(self) -> int: ...
    @property
    def map_crc(self) -> int: ...
    @property
    def map_crc_matches(self) -> bool: ...
    @property
    def map_sha256(self) -> str: ...
    @property
    def map_sha256_matches(self) -> Optional[bool]: ...
    @property
    def recorded_by(self) -> str: ...
    @property
    def length(self) -> int: ...
    @property
    def timestamp(self) -> str: ...
    @property
    def timeline_markers(self) -> List[int]: ...
    def map_bytes(self) -> bytes: ...
    def map(self) -> Map: ...
    def chat(self, *, events: bool = False) -> List[Dict[str, Any]]:
        """The chat: tick, time, kind, client_id, name, target, text, line."""
    def export(self, objects: Optional[Sequence[str]] = None) -> List[Dict[str, Any]]:
        """One row per snapshot object per tick: tick, time, type, id, the fields."""
    def messages(self) -> List[Dict[str, Any]]:
        """Every message decoded: tick, chunk, message (kind and fields)."""
    def ticks(self) -> Replay:
        """The replay, one ``Tick`` per tick marker."""
    def to_bytes(self) -> bytes:
        """The demo written back: an unmodified demo gives back its bytes."""
    def save(self, path: _Path) -> None: ...
    @property
    def tick_range(self) -> Optional[Tuple[int, int]]: ...
    def resolve(self, point: Union[int, str]) -> int:
        """A tick: an int as it is, ``"12.5s"``, ``"1:02"``, ``"m2"``, ``"start"``, ``"end"``."""
    def cut(self, start: Union[int, str] = "start", end: Union[int, str] = "end") -> Demo:
        """The ticks from ``start`` to ``end`` as a demo that starts with a keyframe."""
    def replace_map(self, map: bytes, name: Optional[str] = None) -> Demo: ...
    def strip_map(self) -> Demo: ...
    def render(
        self,
        at: Union[int, str] = "start",
        *,
        width: int = 1280,
        height: int = 720,
        zoom: float = 1.0,
        follow: Optional[int] = None,
        camera: Optional[Tuple[float, float]] = None,
        data: Optional[_Path] = None,
        mapres: Optional[_Path] = None,
        names: bool = True,
        entities: int = 0,
        png: bool = False,
        path: Optional[_Path] = None,
    ) -> Any:
        """The game at the instant ``at`` as the client draws it: (height, width, 4) RGBA."""
    def frames(
        self,
        fps: float = 50.0,
        start: Union[int, str] = "start",
        end: Union[int, str] = "end",
        *,
        width: int = 1280,
        height: int = 720,
        zoom: float = 1.0,
        follow: Optional[int] = None,
        camera: Optional[Tuple[float, float]] = None,
        data: Optional[_Path] = None,
        mapres: Optional[_Path] = None,
        names: bool = True,
        entities: int = 0,
    ) -> DemoFrames:
        """The frames from ``start`` to ``end``: ``(tick, frame)`` pairs, drawn one at a time."""

class DemoFrames(Iterator[Tuple[float, npt.NDArray[np.uint8]]]):
    """The frames of ``Demo.frames``."""

    def __iter__(self) -> DemoFrames: ...
    def __next__(self) -> Tuple[float, npt.NDArray[np.uint8]]: ...

class DemoWriter:
    """Records a demo as DDNet's recorder does; ``finish()`` gives the ``Demo``."""

    def __init__(
        self,
        map: Optional[bytes] = None,
        *,
        map_name: str = "",
        net_version: Optional[str] = None,
        version: int = 6,
        kind: Optional[str] = None,
        timestamp: str = "",
    ) -> None: ...
    def snapshot(self, tick: int, snapshot: Snapshot) -> None: ...
    def keyframe(self, tick: int, snapshot: Snapshot) -> None: ...
    def tick(self, tick: int, keyframe: bool = False) -> None: ...
    def message(self, data: bytes) -> None: ...
    def marker(self, tick: int) -> None: ...
    def finish(self) -> Demo: ...

class Ghost:
    """A DDNet ghost (``.gho``): header, characters decoded when asked for."""

    @staticmethod
    def open(path: _Path) -> Ghost: ...
    @staticmethod
    def parse(data: bytes) -> Ghost: ...
    @staticmethod
    def write(
        owner: str,
        map_name: str,
        characters: Sequence[Dict[str, Any]],
        *,
        time_ms: int,
        version: int = 6,
        start_tick: Optional[int] = None,
        skin: Union[str, Dict[str, Any], None] = None,
        map_sha256: Optional[str] = None,
        map_crc: Optional[int] = None,
    ) -> Ghost:
        """Writes a ghost as DDNet's recorder does; characters: dicts with ``rows()``' keys."""
    @property
    def version(self) -> int: ...
    @property
    def owner(self) -> str: ...
    @property
    def map_name(self) -> str: ...
    @property
    def map_sha256(self) -> Optional[str]: ...
    @property
    def map_crc(self) -> Optional[int]: ...
    @property
    def time_ms(self) -> int: ...
    @property
    def num_ticks(self) -> int: ...
    @property
    def start_tick(self) -> Optional[int]: ...
    @property
    def skin(self) -> Optional[Dict[str, Any]]: ...
    @property
    def ticks(self) -> List[int]: ...
    def rows(self) -> List[Dict[str, Any]]:
        """One row per tick: tick, time, x, y, vel_x, vel_y, angle, direction, weapon, ..."""
    def items(self) -> List[Dict[str, Any]]:
        """Every item: chunk, type, ints."""
    def map_matches(self, data: bytes) -> bool: ...
    def to_bytes(self) -> bytes: ...
    def save(self, path: _Path) -> None: ...
    def __iter__(self) -> Iterator[Dict[str, Any]]:
        """The rows, one per tick."""
    def __len__(self) -> int: ...

class Replay(Iterator[Tick]):
    """``next()`` while another thread's ``next()`` on the same replay runs raises
    ``BusyError`` (no tick is skipped), as a generator raises "already executing"."""

    def __iter__(self) -> Replay: ...
    def __next__(self) -> Tick: ...

class Tick:
    """One tick of a replay."""

    @property
    def tick(self) -> int: ...
    @property
    def keyframe(self) -> bool: ...
    @property
    def update(self) -> Literal["full", "delta", "unchanged"]: ...
    @property
    def snapshot(self) -> Optional[Snapshot]:
        """Shared with the ticks it did not change; None before the first snapshot."""
    @property
    def messages(self) -> List[bytes]:
        """Each the bytes of one network message (packed id and fields)."""
    @property
    def chunk(self) -> int: ...
