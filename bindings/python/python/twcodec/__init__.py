"""Teeworlds and DDNet maps, datafiles, snapshots, demos and ghosts, read and written by twcodec.

The classes and functions are the Rust library's, bound with PyO3 (module
``twcodec._twcodec``); ``twcodec.dask`` spreads ``scan`` over a Dask cluster.
``__init__.pyi`` documents every signature.

    >>> import twcodec
    >>> m = twcodec.Map.sample()
    >>> [layer.kind for layer in m.layers][:3]
    ['quads', 'sounds', 'game']
"""

from ._twcodec import (
    BusyError,
    Datafile,
    Demo,
    DemoFrames,
    DemoWriter,
    Diff,
    Envelope,
    Error,
    Ghost,
    Group,
    Image,
    IoError,
    IsDirectoryError,
    Layer,
    Map,
    NotFoundError,
    PackWarning,
    PermissionDeniedError,
    RenderWarning,
    Renderer,
    Replay,
    Snapshot,
    SnapshotDelta,
    Sound,
    Teehistorian,
    TeehistorianRecords,
    Tick,
    __version__,
    find,
    sample,
    scan,
    scan_file,
    tile_ids,
    tile_name,
)

__all__ = [
    "BusyError",
    "Datafile",
    "Demo",
    "DemoFrames",
    "DemoWriter",
    "Diff",
    "Envelope",
    "Error",
    "Ghost",
    "Group",
    "Image",
    "IoError",
    "IsDirectoryError",
    "Layer",
    "Map",
    "NotFoundError",
    "PackWarning",
    "PermissionDeniedError",
    "RenderWarning",
    "Renderer",
    "Replay",
    "Snapshot",
    "SnapshotDelta",
    "Sound",
    "Teehistorian",
    "TeehistorianRecords",
    "Tick",
    "__version__",
    "find",
    "sample",
    "scan",
    "scan_file",
    "tile_ids",
    "tile_name",
]
