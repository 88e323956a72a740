"""A program that turns PyTorch's memory history on itself while `python -m vramscope record` records
it (history_guard.py): its call with PyTorch's default stacks="all" must import torch._inductor on
the program's own thread, before the recorder's writer thread symbolizes a C++ stack; the program
then dumps its own snapshot as it would unrecorded, and exits 0 with its output unchanged.
    python history_guard_check.py OUTDIR      (runs the program plain and recorded, compares)"""
import os
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent("""
    import sys, threading, torch
    IMPORTERS = []
    class Spy:  # which thread first asks for torch._inductor
        def find_spec(self, name, path=None, target=None):
            if name == "torch._inductor" and not IMPORTERS:
                IMPORTERS.append(threading.current_thread().name)
    sys.meta_path.insert(0, Spy())
    keep = [torch.empty(1 << 20, device="cuda") for _ in range(4)]
    torch.cuda.memory._record_memory_history(max_entries=10000)  # a memory_viz dump's usual call
    loaded = "torch._inductor" in sys.modules
    keep += [torch.empty(1 << 20, device="cuda") for _ in range(4)]
    snap = torch.cuda.memory._snapshot()
    frames = sum(len(b.get("frames", [])) for s in snap["segments"] for b in s["blocks"])
    print("blocks", sum(len(s["blocks"]) for s in snap["segments"]), "with frames", frames > 0)
    print("IMPORT", loaded, IMPORTERS, file=sys.stderr)
    """)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    prog = os.path.join(out, "own_history.py")
    with open(prog, "w") as f:
        f.write(PROGRAM)
    env = dict(os.environ)
    env.pop("VRAMSCOPE_QUIET", None)
    plain = subprocess.run([sys.executable, prog], capture_output=True, text=True, env=env, timeout=300)
    rec = subprocess.run([sys.executable, "-m", "vramscope", "record", "-o", os.path.join(out, "own_history.vscap"),
                          "--", prog], capture_output=True, text=True, env=env, timeout=300)
    said = [line for line in rec.stderr.splitlines() if line.startswith(("IMPORT", "vramscope: "))]
    print("plain: exit %d, %s | %s" % (plain.returncode, plain.stdout.strip(),
                                       [line for line in plain.stderr.splitlines() if line.startswith("IMPORT")]))
    print("recorded: exit %d, %s | %s" % (rec.returncode, rec.stdout.strip(), said))
    importers = [line for line in said if line.startswith("IMPORT")]
    ok = (rec.returncode == plain.returncode == 0 and rec.stdout == plain.stdout
          and importers == ["IMPORT True ['MainThread']"] and not any("warning" in line for line in said))
    print("history_guard_check:", "ok" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
