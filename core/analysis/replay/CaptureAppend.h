#pragma once
// Growing one capture from another that holds a superset of it (a live session's snapshots catch
// up with the newest one, and take the events just decoded). Every part of a capture only grows
// while a stream is read, so "catching up" is copying tails: O(what is new), never O(everything).
#include "analysis/replay/Replay.h"
#include "model/Capture.h"

namespace vs {

// Everything but the per-device event columns: intern tables (interned again in order, so ids
// stay equal), streams, settings, annotations, retention graphs, facts, final block lists.
// Devices missing from `dst` are added (without events). `src`'s devices start with `dst`'s.
void appendCaptureParts(Capture& dst, const Capture& src);

// Appends the events (and per-event texts) `src` holds beyond `dst`, whose are a prefix of `src`'s.
void catchUpEvents(DeviceTrace& dst, const DeviceTrace& src);
// Appends all of `delta`'s events and texts (the texts name absolute event indices already).
void appendDelta(DeviceTrace& dst, const DeviceTrace& delta);

// Appends what `src` (a replay of a longer trace with the same start) holds beyond `dst`.
void appendReplayTail(ReplayResult& dst, const ReplayResult& src);

} // namespace vs
