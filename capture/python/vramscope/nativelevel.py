"""Both levels in one recording (`record --native`): the CUPTI agent, libvramscope_cupti.so, is
loaded into this process by the CUDA driver (CUDA_INJECTION64_PATH, read at cuInit: set before
torch touches CUDA) and records every driver allocation, PyTorch's segments and everyone else's,
with native stacks, to a file in a private directory. When the recording stops, the agent is told
to finish (vramscope_cupti_finish: it stops its callbacks and writes its final state) and its
chunks are appended to the PyTorch recording after a Part record, so that one .vscap holds both."""
import ctypes
import os
import shutil
import tempfile

from . import vscap

_HEADER = 16  # "VSCAP\0\r\n" · u16 major · u16 minor · u32 flags


def agent_path():
    """$VRAMSCOPE_CUPTI_LIB, else beside an installed or built vramscope-cli (as the CLI looks)."""
    env = os.environ.get("VRAMSCOPE_CUPTI_LIB")
    if env:
        return env
    cli = shutil.which("vramscope-cli")
    if cli:
        bindir = os.path.dirname(os.path.realpath(cli))
        for candidate in (os.path.join(bindir, "libvramscope_cupti.so"),
                          os.path.join(os.path.dirname(bindir), "lib", "vramscope", "libvramscope_cupti.so")):
            if os.path.exists(candidate):
                return candidate
    return None


class NativeLevel:
    def __init__(self):
        self.path = agent_path()
        if not self.path:
            raise RuntimeError("--native needs the CUPTI agent libvramscope_cupti.so: set VRAMSCOPE_CUPTI_LIB "
                               "or put vramscope-cli on PATH")
        self.dir = tempfile.mkdtemp(prefix="vramscope-native-")  # 0700, ours
        self.output = os.path.join(self.dir, "native.vscap")

    def inject(self):
        """Must run before CUDA is initialised in this process."""
        os.environ["CUDA_INJECTION64_PATH"] = os.path.abspath(self.path)
        os.environ["VRAMSCOPE_OUTPUT"] = self.output
        os.environ.pop("VRAMSCOPE_LIVE", None)  # the agent's part reaches a viewer through the recorder

    def finish_into(self, write_chunk_bytes):
        """Stops the agent and hands its chunks (after a Part record) to the recording. Returns a
        sentence for the user when the agent did not record."""
        try:
            agent = ctypes.CDLL(self.path)  # the handle the driver loaded: same library, same state
            finish = agent.vramscope_cupti_finish
        except (OSError, AttributeError) as e:
            return "the CUPTI agent could not be reached (%s); only PyTorch's allocator is recorded" % e
        if finish() != 1:
            return ("the CUPTI agent was not recording (another CUPTI client such as torch.profiler or Nsight "
                    "holds the process, or no driver); only PyTorch's allocator is recorded")
        try:
            with open(self.output, "rb") as f:
                data = f.read()
        except OSError as e:
            return "the CUPTI agent's recording could not be read (%s)" % e
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
        if len(data) <= _HEADER or not data.startswith(b"VSCAP\0\r\n"):
            return "the CUPTI agent's recording is empty"
        write_chunk_bytes(vscap.chunk(vscap.part_record(vscap.PART_NATIVE)), data[_HEADER:])
        return None
