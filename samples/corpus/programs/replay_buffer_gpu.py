"""Off-policy RL with a replay buffer of GPU transitions from 64 vectorised environments. The leaking
buffer is a plain list (module-level REPLAY) that only grows: every environment step appends the
observations (1 MiB). --clean uses collections.deque(maxlen=24): it fills in the first 24 steps and
then each new transition pushes out the oldest.
    python replay_buffer_gpu.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import random
from collections import deque

import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

REPLAY = None


class VecEnv:
    def __init__(self, n, obs_dim, n_actions):
        self.w = torch.randn(n_actions, obs_dim, device=DEV) * 0.1
        self.obs = torch.randn(n, obs_dim, device=DEV)

    def step(self, action):
        obs = torch.tanh(self.obs + self.w[action] + 0.05 * torch.randn_like(self.obs))
        reward = obs[:, :8].mean(1)
        self.obs = obs
        return obs, reward


def main():
    global REPLAY
    a = parser(__doc__, steps=130, step_ms=22).parse_args()
    t = truth(a, __file__, leak=dict(holder="list REPLAY (transitions)", unit="per step", released="never",
                                     shape="replay-unbounded"),
              clean=dict(holder="deque REPLAY (maxlen=24)", unit="per step", released="never",
                         shape="cache-fills-early"))
    REPLAY = deque(maxlen=24) if a.clean else []
    rng = random.Random(a.seed)
    env = VecEnv(64, 4096, 16)
    q = mlp(4096, 512, 16)
    opt = torch.optim.Adam(q.parameters(), lr=1e-4)
    obs = env.obs
    for step in range(a.steps):
        with torch.no_grad():
            action = q(obs).argmax(-1)
        next_obs, reward = env.step(action)  # ALLOC-SITE: the new observations the buffer keeps
        REPLAY.append((obs, action, reward, next_obs))  # HOLD-SITE: a list, never trimmed
        obs = next_obs
        o, act, r, o2 = REPLAY[rng.randrange(len(REPLAY))]
        with torch.no_grad():
            target = r + 0.99 * q(o2).max(-1).values
        loss = F.smooth_l1_loss(q(o).gather(1, act[:, None]).squeeze(1), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
