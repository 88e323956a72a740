"""What the corpus scripts share: a recording as a path the CLI opens (the CLI refuses .xz on purpose,
so an .xz recording is decompressed into the caller's temporary folder)."""
import lzma
import shutil
from pathlib import Path


def opened(path, tmp):
    path = Path(path)
    if path.suffix != ".xz":
        return str(path)
    out = Path(tmp) / path.stem
    with lzma.open(path) as s, open(out, "wb") as d:
        shutil.copyfileobj(s, d, 1 << 20)
    return str(out)
