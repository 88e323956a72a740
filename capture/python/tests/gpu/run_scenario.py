"""GPU evidence: runs one public scenario (../shared/captures/scenarios.py) under the recorder and
writes NAME.vscap plus NAME.truth.json (memory_allocated()/memory_reserved() at each step).
    python run_scenario.py SCENARIOS_PY NAME OUTDIR [--no-native]"""
import importlib.util
import json
import os
import sys

import torch

import vramscope  # noqa: E402


def main():
    scenarios_py, name, outdir = sys.argv[1:4]
    spec = importlib.util.spec_from_file_location("scenarios", scenarios_py)
    sc = importlib.util.module_from_spec(spec)
    sys.modules["scenarios"] = sc  # imported as a program would: a module, a retention root
    spec.loader.exec_module(sc)
    plain_step = sc.Truth.step

    def step(self, i):
        plain_step(self, i)
        vramscope.mark("step", i)
        if i == 25 and "--retention" in sys.argv:
            vramscope.collect_retention()  # while the scenario's own frames are still alive
    sc.Truth.step = step
    torch.cuda.init()
    t = sc.Truth(name)
    with vramscope.record(os.path.join(outdir, name + ".vscap"), use_native="--no-native" not in sys.argv,
                          retention="--retention" in sys.argv) as rec:
        sc.SCENARIOS[name](t)
        torch.cuda.synchronize()
        t.d["final_allocated"] = torch.cuda.memory_allocated()
        t.d["final_reserved"] = torch.cuda.memory_reserved()
        t.d["final_stats"] = {k: v for k, v in torch.cuda.memory_stats().items()
                              if k.startswith(("allocated_bytes.all", "reserved_bytes.all"))}
    t.d["recorder"] = rec.source.mode
    t.d["retention_stats"] = rec.retention_stats
    with open(os.path.join(outdir, name + ".truth.json"), "w") as f:
        json.dump(t.d, f, indent=1)


if __name__ == "__main__":
    main()
