#pragma once
// What the remote tests run on the loopback "host": the repository's Python recorder on the stand-in
// torch (capture/python/tests/faketorch, with FAKE_TORCH_TRACE: an alloc event per tensor), sent to
// every ssh session of the test server by SetEnv.
#include <QMap>
#include <QString>

namespace remote_test {

inline QMap<QString, QString> recorderEnvironment() {
    const QString python = QStringLiteral(VRAMSCOPE_SOURCE_DIR "/capture/python");
    return {{QStringLiteral("PYTHONPATH"), python + "/tests/faketorch:" + python},
            {QStringLiteral("FAKE_TORCH_TRACE"), QStringLiteral("1")},
            {QStringLiteral("VRAMSCOPE_PAUSE_BUDGET"), QStringLiteral("none")}};
}

// A training loop that keeps one 1 MiB tensor per step (a leak): `steps` steps, or, with a stop file
// as its argument, until that file exists. Exits with status 3 so that the status is seen to travel.
inline const char* kLeakyProgram = R"(import os, sys, time
import torch
stop = sys.argv[1] if len(sys.argv) > 1 else None
kept = []
while (stop and not os.path.exists(stop)) or (not stop and len(kept) < 20):
    kept.append(torch.Tensor(1 << 20))
    time.sleep(0.05 if stop else 0)
print("kept", len(kept), flush=True)
sys.exit(3)
)";

} // namespace remote_test
