"""What the recorder cost the program it recorded, as far as it can time itself: its start (and of it
importing torch and initialising CUDA, which the program does anyway), its stop until the file's End
record (of it the retention graph at exit; a --native CUDA-level part appended after it is not
counted), and the CPU time of its writer thread beside the program (its retention graphs, which pause
the program, are counted as pauses, not here).
Written into the capture as the meta record `recorder_cost` (`vramscope-cli summary` and the GUI's
Capture Facts show it). What each allocator event costs (the stacks, the tracker's hook) is spread
over the program's own steps and is not timed here (timing every event would add to it):
docs/recorder.md has it per event, measured on the H200. Pure Python, no torch: tested offline."""
import time


class RecorderCost:
    def __init__(self, clock=time.perf_counter):
        self.clock = clock
        self.start_s = None       # Recorder.start(), whole
        self.import_s = None      # of it: import torch (0 when the program had imported it)
        self.cuda_init_s = None   # of it: torch.cuda.is_available() and init()
        self._stopping = None
        self.stop_s = None        # Recorder.stop() until the End record
        self.exit_graph_s = None  # of it: the retention graph at exit
        self.writer_cpu_s = None  # the writer thread's CPU seconds (drain, symbolize, compress, write)

    def stopping(self):
        self._stopping = self.clock()

    def stopped(self):
        if self._stopping is not None:
            self.stop_s = self.clock() - self._stopping

    def line(self):
        """One line for the capture, e.g. "start 0.236 s (0.201 s of it initialising CUDA, which the
        program does anyway); stop 0.144 s (0.141 s of it the retention graph at exit); writer
        thread 0.040 s of CPU beside the program; ...". Never raises (it ends every recording)."""
        try:
            return "; ".join(self._parts())
        except Exception as e:
            return "not known (%s)" % type(e).__name__

    def _parts(self):
        parts = []
        if self.start_s is not None:
            # parts under half a millisecond are left out: torch imported and CUDA up already
            anyway = [("%.3f s of it %s" % (s, what)) for s, what in ((self.import_s, "importing torch"),
                                                                      (self.cuda_init_s, "initialising CUDA"))
                      if s is not None and s >= 0.0005]
            parts.append("start %.3f s" % self.start_s + (
                " (%s, which the program does anyway)" % " and ".join(anyway) if anyway else ""))
        if self.stop_s is not None:
            graph = self.exit_graph_s
            parts.append("stop %.3f s" % self.stop_s + (
                " (%.3f s of it the retention graph at exit)" % min(graph, self.stop_s) if graph else ""))
        if self.writer_cpu_s is not None:
            parts.append("writer thread %.3f s of CPU beside the program" % self.writer_cpu_s)
        parts.append("per allocator event not timed (docs/recorder.md)")
        return parts
