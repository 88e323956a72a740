"""What the recorder cost the program it recorded, as far as it can time itself: its start (and of it
the CUDA initialisation that the program's first CUDA call would have done anyway), its stop (of it
the retention graph at exit), and the CPU time of its writer thread, which runs beside the program.
Written into the capture as the meta record `recorder_cost` (`vramscope-cli summary` and the GUI's
Capture Facts show it). What each allocator event costs (the stacks, the tracker's hook) is spread
over the program's own steps and is not timed here (timing every event would add to it):
docs/recorder.md has it per event, measured on the H200. Pure Python, no torch: tested offline."""
import time


class RecorderCost:
    def __init__(self, clock=time.perf_counter):
        self.clock = clock
        self.start_s = None       # Recorder.start(), whole
        self.cuda_init_s = None   # of it: torch.cuda.is_available() and init()
        self._stopping = None
        self.stop_s = None        # Recorder.stop() until the file's last chunk
        self.exit_graph_s = None  # of it: the retention graph at exit
        self.writer_cpu_s = None  # the writer thread's CPU seconds (drain, symbolize, compress, write)

    def stopping(self):
        self._stopping = self.clock()

    def stopped(self):
        if self._stopping is not None:
            self.stop_s = self.clock() - self._stopping

    def line(self):
        """One line for the capture, e.g. "start 0.236 s (0.201 s of it initialising CUDA, ...); stop
        0.144 s (0.141 s of it the retention graph at exit); writer thread 0.040 s of CPU beside the
        program"."""
        parts = []
        if self.start_s is not None:
            text = "start %.3f s" % self.start_s
            if self.cuda_init_s:
                text += " (%.3f s of it initialising CUDA, which the program's first CUDA call does anyway)" % (
                    min(self.cuda_init_s, self.start_s))
            parts.append(text)
        if self.stop_s is not None:
            text = "stop %.3f s" % self.stop_s
            if self.exit_graph_s:
                text += " (%.3f s of it the retention graph at exit)" % min(self.exit_graph_s, self.stop_s)
            parts.append(text)
        if self.writer_cpu_s is not None:
            parts.append("writer thread %.3f s of CPU beside the program" % self.writer_cpu_s)
        parts.append("per allocator event not timed (docs/recorder.md)")
        return "; ".join(parts)
