"""Byte counts as people write them ("2 GiB", "16 MiB", "1.5G", 4096) and as a table shows them."""
import re

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1000, "kib": 1 << 10, "m": 1 << 20, "mb": 1000 ** 2, "mib": 1 << 20,
          "g": 1 << 30, "gb": 1000 ** 3, "gib": 1 << 30, "t": 1 << 40, "tb": 1000 ** 4, "tib": 1 << 40}


def parse(value):
    """A byte count from an int or a string with an optional unit (binary for K/M/G and KiB/MiB/GiB,
    decimal for KB/MB/GB, as vramscope-cli's --max-growth takes them)."""
    if isinstance(value, bool):
        raise ValueError("a size, not %r" % (value,))
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError("a size cannot be negative: %r" % (value,))
        return int(value)
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*", str(value))
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError("not a size: %r (write e.g. 4096, \"16 MiB\" or \"2 GiB\")" % (value,))
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def text(n):
    """1.50 GiB, 16.00 MiB, 512 B (the CLI's spelling), signed when negative."""
    if n is None:
        return "?"
    sign, n = ("-" if n < 0 else ""), abs(n)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return "%s%.2f %s" % (sign, n / size, unit)
    return "%s%d B" % (sign, n)
