"""Inference replayed through a captured CUDA graph (torch.cuda.graph): static input and output
buffers, warm-up on a side stream, one capture, then each batch is copied into the static input and
the graph replayed. The graph's private memory pool is made once at capture. Clean.
    python cuda_graph_infer.py TRUTH.json [--steps BATCHES] [--step-ms MS]"""
import torch

from corpus_common import DEV, mlp, parser, pause, truth


def main():
    a = parser(__doc__, steps=110, step_ms=25, twin=False).parse_args()
    t = truth(a, __file__, clean=dict(holder="CUDA graph pool (made once)", unit="per batch", released="never",
                                      shape="cuda-graph-replay"))
    model = mlp(1024, 2048, 1000, depth=3).eval()
    static_in = torch.zeros(256, 1024, device=DEV)
    batches = torch.randn(10, 256, 1024, device=DEV)
    graph = None
    with torch.no_grad():
        if DEV.type == "cuda":
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    model(static_in)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_out = model(static_in).softmax(-1)
        top = []
        for i in range(a.steps):
            static_in.copy_(batches[i % 10])
            if graph is not None:
                graph.replay()
                out = static_out
            else:
                out = model(static_in).softmax(-1)
            top.append(out.max(-1).values.mean().item())
            pause(a)
            t.step(0, i)
    t.write()


if __name__ == "__main__":
    main()
