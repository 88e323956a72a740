"""python -m vramscope record [-o FILE] [--live SOCKET] [--stacks python|all|none] [--no-free-stacks] -- script.py ARGS
   (or -m module ARGS after the --, as after `python`)

The program runs as `python script.py ARGS` would, and ends the same way: its exit code (sys.exit(3)
-> 3, an uncaught exception -> 1 with the program's own traceback, the recorder's frames left out,
Ctrl-C -> killed by SIGINT after the traceback, os._exit(n) -> n), its stdout untouched. A recorder
that cannot start (no CUDA, no torch) says so in one line and runs the program unrecorded; a
recorder failure later is a warning in the capture, never the program's failure."""
import argparse
import atexit
import os
import runpy
import signal
import sys

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


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
    r.add_argument("--no-free-stacks", dest="free_stacks", action="store_false",
                   help="gather no stack when memory is freed (about 40 %% less of PyTorch's stack cost; frees "
                        "then have no stack of their own and releases are not explained)")
    r.add_argument("--no-native", action="store_true", help="use the pure-Python polling recorder")
    r.add_argument("--native", action="store_true",
                   help="also record every CUDA driver allocation (cuBLAS, cuDNN, NCCL, extensions...) with native "
                        "stacks through the CUPTI agent, in the same file")
    r.add_argument("-m", dest="module", help="run a module (like python -m) instead of a script")
    args = p.parse_args(ours)
    if not args.module and len(program) > 1 and program[0] == "-m":  # `-- -m pkg ARGS`, as after `python`
        args.module, program = program[1], program[2:]
    if not program and not args.module:
        p.error("give the program after --, e.g. python -m vramscope record -o run.vscap -- train.py")

    import vramscope
    quiet = os.environ.get("VRAMSCOPE_QUIET", "") not in ("", "0")
    level = None
    if args.native:
        from .nativelevel import NativeLevel
        try:
            level = NativeLevel()
        except RuntimeError as e:
            p.error(str(e))
        level.inject()  # before anything initialises CUDA
    rec = None
    try:
        rec = vramscope.start(args.output, live=args.live, stacks=args.stacks, free_stacks=args.free_stacks,
                              use_native=not args.no_native,
                              native_level=level, before_program=True)
    except Exception as e:  # no torch, no CUDA...: the program still runs, unrecorded
        if not quiet:
            _say("vramscope: not recording (%s: %s); running the program unrecorded" % (type(e).__name__, e))
    code, failure = 0, None
    # The program's globals stay alive until the recorder stops, as module __main__, as they are at
    # atexit time in a plain `python script.py`: runpy runs the program in a module of its own and
    # drops it from sys.modules at the end, handing back a copy of its globals. That module is put
    # back, with the very dict the program's functions see as their globals, so the final state and
    # the retention graph at exit find what the program kept under `module __main__` (a copy beside
    # it would be a second dict, reached from the functions only, named "held from C/C++").
    our_main, program_main = sys.modules.get("__main__"), None
    try:
        with _KeepProgramModule():
            if args.module:
                sys.argv = [args.module] + program
                runpy.run_module(args.module, run_name="__main__", alter_sys=True)
            else:
                sys.argv = program
                sys.path.insert(0, os.path.dirname(os.path.abspath(program[0])))
                runpy.run_path(program[0], run_name="__main__")
    except SystemExit as e:
        code = e.code  # sys.exit() turns it into the exit status as Python would (a text: printed, 1)
    except BaseException as e:  # the program's own failure: its traceback, then exit 1 (or SIGINT)
        failure = e
        code = 1
        _print_program_exception(e)
    finally:
        program_main = _PROGRAM_MODULE.pop("module", None)
        if program_main is not None:
            sys.modules["__main__"] = program_main
        try:
            vramscope.stop()  # never raises by design; belt and braces for the exit code's sake
        except BaseException:
            pass
        finally:
            if our_main is not None:
                sys.modules["__main__"] = our_main
            program_main = None
        if rec is not None and not quiet and os.getpid() == rec._pid:  # not in a forked child
            _say("vramscope: recorder cost: %s" % rec.cost.line())  # line() never raises
            warned = len(rec.warnings)
            _say("vramscope: wrote %s (%d chunks, %d bytes, recorder: %s%s)"
                 % (rec.path, rec.chunks, rec.bytes_written, rec.source.mode,
                    ", %d recorder warning%s in the file" % (warned, "" if warned == 1 else "s") if warned else ""))
    if isinstance(failure, KeyboardInterrupt):
        _exit_like_sigint()
    return code


_PROGRAM_MODULE = {}  # "module": the module runpy ran the program in


class _KeepProgramModule:
    """While the program starts: notes the module runpy runs it in (the one whose dict its code gets
    as globals), also when the program raises. Only the outermost run is the program: the wrapper
    takes itself out at its first call, so a program's own runpy use (a launcher running train.py)
    runs unwrapped and is never mistaken for it."""

    def __enter__(self):
        import runpy as _r
        _PROGRAM_MODULE.clear()
        self.real = real = _r._run_code

        def run_code(code, run_globals, *a, **kw):
            _r._run_code = real
            module = sys.modules.get(run_globals.get("__name__"))
            if module is not None and getattr(module, "__dict__", None) is run_globals:
                _PROGRAM_MODULE["module"] = module
            return real(code, run_globals, *a, **kw)
        _r._run_code = self.wrapper = run_code
        return self

    def __exit__(self, *exc):
        import runpy as _r
        if _r._run_code is self.wrapper:  # the program never started (it raised before runpy ran it)
            _r._run_code = self.real
        return False


def _say(text):
    try:
        print(text, file=sys.stderr, flush=True)
    except Exception:
        pass


def _ours(tb):
    try:
        name = tb.tb_frame.f_code.co_filename
    except Exception:
        return False
    return name.startswith(_PACKAGE)


def _runpy(tb):
    try:
        name = tb.tb_frame.f_code.co_filename
    except Exception:
        return False
    return name in (runpy.__file__, "<frozen runpy>") or name.endswith(os.sep + "runpy.py")


def _program_traceback(tb):
    """The traceback as `python script.py` shows it: runpy's and the recorder's frames left out."""
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    head = 0
    while head < len(entries) and (_ours(entries[head]) or _runpy(entries[head])):
        head += 1
    keep = [e for e in entries[head:] if not _ours(e)]
    try:
        for a, b in zip(keep, keep[1:]):
            a.tb_next = b
        if keep:
            keep[-1].tb_next = None
    except (AttributeError, TypeError, ValueError):  # Python < 3.7: tb_next is read-only
        return entries[0] if entries else None
    return keep[0] if keep else None


def _strip_chain(e, seen):
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        try:
            e.__traceback__ = _program_traceback(e.__traceback__)
        except Exception:
            pass
        if e.__cause__ is not None:
            _strip_chain(e.__cause__, seen)
        e = e.__context__


def _print_program_exception(e):
    _strip_chain(e, set())
    sys.last_type, sys.last_value, sys.last_traceback = type(e), e, e.__traceback__
    try:
        sys.excepthook(type(e), e, e.__traceback__)
    except BaseException:
        try:
            sys.__excepthook__(type(e), e, e.__traceback__)
        except BaseException:
            pass


def _exit_like_sigint():
    """What Python does after an uncaught KeyboardInterrupt: finalize (atexit), then die of SIGINT
    (the shell sees 130, subprocess -2)."""
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            pass
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except Exception:
        pass
    os._exit(130)


if __name__ == "__main__":
    sys.exit(main())
