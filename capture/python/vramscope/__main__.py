"""python -m vramscope record [-o FILE] [--live SOCKET] [--stacks python|all|none] -- script.py ARGS"""
import argparse
import os
import runpy
import sys
import types


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" in argv:
        i = argv.index("--")
        ours, program = argv[:i], argv[i + 1:]
    else:
        ours, program = argv, []
    p = argparse.ArgumentParser(prog="python -m vramscope",
                                description="Record a PyTorch program's CUDA allocator events to a .vscap file.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="run a Python script under the recorder")
    r.add_argument("-o", "--output", help="the .vscap file (default vramscope-PID.vscap)")
    r.add_argument("--live", default=os.environ.get("VRAMSCOPE_LIVE"),
                   help="also stream to the vramscope viewer listening on this socket (Capture > Listen)")
    r.add_argument("--stacks", choices=["python", "all", "none"], default="python")
    r.add_argument("--no-native", action="store_true", help="use the pure-Python polling recorder")
    r.add_argument("--native", action="store_true",
                   help="also record every CUDA driver allocation (cuBLAS, cuDNN, NCCL, extensions...) with native "
                        "stacks through the CUPTI agent, in the same file")
    r.add_argument("-m", dest="module", help="run a module (like python -m) instead of a script")
    args = p.parse_args(ours)
    if not program and not args.module:
        p.error("give the program after --, e.g. python -m vramscope record -o run.vscap -- train.py")

    import vramscope
    level = None
    if args.native:
        from .nativelevel import NativeLevel
        try:
            level = NativeLevel()
        except RuntimeError as e:
            p.error(str(e))
        level.inject()  # before anything initialises CUDA
    rec = vramscope.start(args.output, live=args.live, stacks=args.stacks, use_native=not args.no_native,
                          native_level=level)
    code = 0
    # The program's globals stay alive until the recorder stops, as module __main__, as they are at
    # atexit time in a plain `python script.py` (runpy drops its module and hands back a copy):
    # the final state and the retention graph at exit see what the program kept.
    namespace, our_main = None, sys.modules.get("__main__")
    try:
        if args.module:
            sys.argv = [args.module] + program
            namespace = runpy.run_module(args.module, run_name="__main__", alter_sys=True)
        else:
            sys.argv = program
            sys.path.insert(0, os.path.dirname(os.path.abspath(program[0])))
            namespace = runpy.run_path(program[0], run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        if namespace is not None:
            program_main = types.ModuleType("__main__")
            program_main.__dict__.update(namespace)
            sys.modules["__main__"] = program_main
        try:
            vramscope.stop()
        finally:
            if our_main is not None:
                sys.modules["__main__"] = our_main
            namespace = program_main = None
        print("vramscope: wrote %s (%d chunks, %d bytes, recorder: %s)"
              % (rec.path, rec.chunks, rec.bytes_written, rec.source.mode), file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
