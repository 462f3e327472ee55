"""``twcodec scan`` spread over a Dask cluster: each file's row computed on a worker.

The work is the Rust library's (``twcodec.scan_file``); Dask only schedules it. Workers
read the files by path, so on a real cluster every worker must see the same paths (a
shared file system)::

    from dask.distributed import Client
    import twcodec.dask

    client = Client("tcp://scheduler:8786")   # or LocalCluster() on this machine
    rows = twcodec.dask.scan(["/data/maps"], client=client)

Needs the ``dask`` extra: ``pip install 'twcodec[dask]'``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _twcodec

__all__ = ["scan", "scan_one"]


def scan_one(path: str, deep: bool = False) -> Dict[str, Any]:
    """The row of one file (``twcodec.scan_file``); what each Dask task runs."""
    return _twcodec.scan_file(path, deep=deep)


def scan(
    paths: Iterable[Union[str, "os.PathLike[str]"]],
    client: Optional[Any] = None,
    deep: bool = False,
) -> List[Dict[str, Any]]:
    """The rows of every map and demo under ``paths``, in the files' order, as
    ``twcodec scan`` prints them: files found with ``twcodec.find`` here, one Dask task
    per file (``client.map``), rows gathered in order.

    ``client``: a ``dask.distributed.Client``; None uses the current one
    (``Client.current()``, which raises when there is none).
    """
    from dask.distributed import Client  # only with the dask extra

    if client is None:
        client = Client.current()
    files = _twcodec.find([os.fspath(p) for p in paths])
    # pure=False: the row depends on the file's bytes, not only on its path.
    futures = client.map(scan_one, files, deep=deep, pure=False)
    return client.gather(futures)
