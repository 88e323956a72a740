"""Runs a program with PyTorch's own memory history on and dumps the snapshot when it ends:
    python with_history.py OUT.pickle PROGRAM.py ARGS...
(enabled="all", context="all", stacks="python"; the ring holds every event of these short runs)."""
import os
import runpy
import sys

import torch


def main():
    out, program = sys.argv[1], sys.argv[2]
    torch.cuda.init()
    torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks="python", max_entries=2_000_000)
    sys.argv = sys.argv[2:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    namespace = None  # the program's globals live until the dump, as at exit of a plain run
    try:
        namespace = runpy.run_path(program, run_name="__main__")
    finally:
        torch.cuda.synchronize()
        torch.cuda.memory._dump_snapshot(out)
        torch.cuda.memory._record_memory_history(enabled=None)
        del namespace


if __name__ == "__main__":
    main()
