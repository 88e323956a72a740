"""What the allocator's own counters say about a stretch of the program (a test, an epoch): whether it
used the GPU, its growth and its peak. Read without touching anything: the peak counter is never
reset (a program that reads max_memory_allocated() sees what it would see unrecorded), so a stretch's
peak is exact when it set a new high, and otherwise known only to be at most the high before it."""
import dataclasses


@dataclasses.dataclass(frozen=True)
class Counters:
    current: tuple      # allocated bytes per device
    peak: tuple         # allocated_bytes.all.peak per device (since the process began)
    allocations: tuple  # allocations made per device (a cumulative count)


@dataclasses.dataclass(frozen=True)
class Stretch:
    used_gpu: bool
    growth: int          # allocated at the end minus at the start, all devices
    peak: int            # the highest device's peak (what runs out of memory is one device)
    peak_exact: bool     # False: the stretch's peak is at most `peak` (it set no new high)
    start: int           # allocated at the start, all devices

    def peak_text(self, sizes):
        return sizes.text(self.peak) if self.peak_exact else "<= " + sizes.text(self.peak)


def read(torch):
    """The caching allocator's counters of every device (its own statistics: no CUDA call)."""
    n = torch.cuda.device_count()
    stats = [torch.cuda.memory_stats(d) for d in range(n)]
    return Counters(tuple(s.get("allocated_bytes.all.current", 0) for s in stats),
                    tuple(s.get("allocated_bytes.all.peak", 0) for s in stats),
                    tuple(s.get("allocation.all.allocated", 0) for s in stats))


def between(before, after):
    """The stretch from `before` to `after` (both from read())."""
    used = after.allocations != before.allocations or after.current != before.current
    growth = sum(after.current) - sum(before.current)
    best, exact = 0, True
    for d, (p0, p1) in enumerate(zip(before.peak, after.peak)):
        # a new high during the stretch is its own peak; otherwise only a bound is known
        least = max(before.current[d], after.current[d])
        value, known = (p1, True) if p1 > p0 else (p0, p0 == least)
        if value > best:
            best, exact = value, known
    return Stretch(used, growth, best, exact, sum(before.current))
