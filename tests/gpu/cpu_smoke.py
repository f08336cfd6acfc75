#!/usr/bin/env python3
"""CPU smoke test of the measuring code path, for machines without a GPU.

Runs workload.measure() over a shrunk copy of the quick grid on the CPU,
with torch.cuda stubbed out (availability, device properties, memory
counters, events). It checks that every configuration's code runs; the
numbers it produces are meaningless, so the run set goes to a temporary
file that is deleted, never to tests/gpu/fixtures/.

    python3 tests/gpu/cpu_smoke.py
"""

import contextlib
import json
import os
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    try:
        import torch
    except ImportError as e:
        print(f"cpu smoke: skipped: PyTorch is not installed ({e})")
        return
    sys.path.insert(0, HERE)
    import workload as W

    class Props:
        total_memory = 80 * 2**30
        major, minor = 9, 0
        multi_processor_count = 132
        uuid = "stub"

    class Event:
        def __init__(self, enable_timing=True):
            self.t = None

        def record(self):
            self.t = time.perf_counter()

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return (other.t - self.t) * 1e3

    class NoScaler:
        def __init__(self, *a, **k):
            pass

        def scale(self, x):
            return x

        def step(self, opt):
            opt.step()

        def update(self):
            pass

    c = torch.cuda
    stubs = {
        "is_available": lambda: True,
        "set_device": lambda d: None,
        "get_device_properties": lambda d=None: Props(),
        "get_device_name": lambda d=None: "CPU STUB (not a GPU)",
        "get_device_capability": lambda d=None: (9, 0),
        "is_bf16_supported": lambda *a, **k: True,
        "synchronize": lambda *a: None,
        "empty_cache": lambda: None,
        "reset_peak_memory_stats": lambda *a: None,
        "max_memory_allocated": lambda *a: 0,
        "max_memory_reserved": lambda *a: 0,
        "memory_stats": lambda *a: {"num_alloc_retries": 0},
        "mem_get_info": lambda *a: (0, 0),
        "Event": Event,
    }
    for k, v in stubs.items():
        setattr(c, k, v)
    W.cuda_device = lambda torch, i: torch.device("cpu")
    W.open_nvml = lambda: None
    torch.amp.GradScaler = NoScaler
    adamw = torch.optim.AdamW

    def plain_adamw(params, **k):
        # Fused and foreach kernels are CUDA paths; the stubbed CPU run
        # takes the plain loop.
        k.pop("fused", None)
        k["foreach"] = False
        return adamw(params, **k)

    torch.optim.AdamW = plain_adamw
    torch.optim.Optimizer._accelerator_graph_capture_health_check = lambda self: None

    grid = W.load_grid(os.path.join(HERE, "grids", "quick.json"))
    grid["settings"].update(warmup_steps=1, measure_steps=1, prefill_repeats=1, decode_repeats=1)
    for r in grid["runs"]:
        if r["kind"] == "train":
            r.update(micro_batch=1, seq_len=32)
        else:
            r.update(batch=2, prompt=8, output=2)
    for m in grid["models"].values():
        m["architecture"].update(layers=1)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stub-runset.json")
        W.measure(types.SimpleNamespace(only=[], device=0, out=out), grid)
        with open(out) as f:
            results = json.load(f)["results"]
    bad = [f"{r['id']}: {r['status']} {r.get('reason', '')}" for r in results if r["status"] != "ok"]
    if bad:
        print("cpu smoke FAILED:\n  " + "\n  ".join(bad))
        sys.exit(1)
    print(f"cpu smoke passed: {len(results)} configurations ran (numbers discarded)")


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
