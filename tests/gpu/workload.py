#!/usr/bin/env python3
"""memwall's GPU workloads: train and serve GPT-style decoders over a grid of
configurations and record what PyTorch and the driver measure.

One command on any NVIDIA machine with PyTorch:

    python3 tests/gpu/workload.py --quick      # a few minutes
    python3 tests/gpu/workload.py              # the full grid

The grid (tests/gpu/grids/*.json) is written by the Rust harness from
planner-core model specs (`memwall-harness write-grids`); the run set this
script writes is what `memwall-harness import` records as a fixture, and
`memwall-harness measure` runs this script itself.

Per configuration it records peak allocated and reserved bytes
(torch.cuda.max_memory_allocated/max_memory_reserved after a reset at
steady state), the device memory in use (NVML and cudaMemGetInfo), step
time or TTFT/TPOT (CUDA events, median after warm-up), and for the run set
the provenance: GPU, driver, CUDA, cuDNN, PyTorch and Python versions,
date, command, configuration, and a hash of this code.

Without PyTorch or without a CUDA device it says why and exits 0 without
writing anything. `--selftest` checks the code on the CPU instead.
"""

import argparse
import contextlib
import ctypes
import datetime
import gc
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNSET_FORMAT = "memwall-gpu-runset/1"
GRID_FORMAT = "memwall-gpu-grid/1"


def say(msg):
    print(f"memwall gpu workload: {msg}", flush=True)


def skip(reason):
    say(f"skipped, nothing measured or written: {reason}")
    sys.exit(0)


# --------------------------------------------------------------------------
# NVML through ctypes (standard library only): driver version and device
# memory in use, before and after the workload touches CUDA.


class Nvml:
    def __init__(self):
        self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        if self.lib.nvmlInit_v2() != 0:
            raise OSError("nvmlInit_v2 failed")

    def driver(self):
        buf = ctypes.create_string_buffer(80)
        if self.lib.nvmlSystemGetDriverVersion(buf, ctypes.c_uint(80)) != 0:
            return None
        return buf.value.decode()

    def _handles(self):
        n = ctypes.c_uint(0)
        if self.lib.nvmlDeviceGetCount_v2(ctypes.byref(n)) != 0:
            return []
        out = []
        for i in range(n.value):
            h = ctypes.c_void_p()
            if self.lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(i), ctypes.byref(h)) == 0:
                out.append(h)
        return out

    def _uuid(self, h):
        buf = ctypes.create_string_buffer(96)
        if self.lib.nvmlDeviceGetUUID(h, buf, ctypes.c_uint(96)) != 0:
            return None
        return buf.value.decode()

    def _used(self, h):
        class Memory(ctypes.Structure):
            _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]

        m = Memory()
        if self.lib.nvmlDeviceGetMemoryInfo(h, ctypes.byref(m)) != 0:
            return None
        return int(m.used)

    def used_by_uuid(self):
        """{uuid without the GPU- prefix: bytes in use} for every device."""
        out = {}
        for h in self._handles():
            u = self._uuid(h)
            if u is not None:
                out[u.removeprefix("GPU-")] = self._used(h)
        return out


def open_nvml():
    try:
        return Nvml()
    except (OSError, AttributeError):
        return None


# --------------------------------------------------------------------------
# Grid and provenance


def load_grid(path):
    with open(path) as f:
        grid = json.load(f)
    if grid.get("format") != GRID_FORMAT:
        raise SystemExit(f"{path}: not a {GRID_FORMAT} file")
    return grid


def source_hash():
    h = hashlib.sha256()
    for name in ("workload.py", "model.py"):
        with open(os.path.join(HERE, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def git_commit():
    try:
        out = subprocess.run(
            ["git", "-C", HERE, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def provenance(torch, device, nvml, used_before, int8_kernel, date):
    props = torch.cuda.get_device_properties(device)
    uuid = str(getattr(props, "uuid", "") or "") or None
    driver = nvml.driver() if nvml else None
    if driver is None:
        try:
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=30,
            )
            driver = out.stdout.strip().splitlines()[0] if out.stdout.strip() else None
        except (OSError, subprocess.SubprocessError):
            driver = None
    before = None
    if uuid and used_before:
        before = used_before.get(uuid.removeprefix("GPU-"))
    try:
        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    except (RuntimeError, ValueError):
        cudnn = None
    return {
        "date": date,
        "command": [sys.executable] + sys.argv,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda_runtime": torch.version.cuda,
        "cudnn": None if cudnn is None else str(cudnn),
        "driver": driver,
        "gpu": {
            "name": torch.cuda.get_device_name(device),
            "total_memory": int(props.total_memory),
            "compute_capability": f"{props.major}.{props.minor}",
            "multiprocessors": int(props.multi_processor_count),
            "uuid": uuid,
        },
        "platform": platform.platform(),
        "allocator_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF"),
        "tf32": True,
        "device_used_before": before,
        "int8_kernel": int8_kernel,
        "workload_sha256": source_hash(),
        "git_commit": git_commit(),
    }


# --------------------------------------------------------------------------
# Measuring


def fused_backends(SDPBackend):
    # cuDNN attention arrived in PyTorch 2.4; older releases lack the name.
    names = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION")
    return [getattr(SDPBackend, n) for n in names if hasattr(SDPBackend, n)]


def bf16_native(torch):
    """BF16 tensor cores (compute capability 8.0 and later); newer PyTorch
    reports emulated BF16 as supported on older parts."""
    return torch.cuda.get_device_capability()[0] >= 8


def backends(SDPBackend, choice):
    return fused_backends(SDPBackend) if choice == "flash" else [SDPBackend.MATH]


def is_oom(torch, e):
    oom = getattr(torch.cuda, "OutOfMemoryError", None)
    return (oom is not None and isinstance(e, oom)) or "out of memory" in str(e)


def cleanup(torch):
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def device_used(torch, nvml, uuid):
    cuda = None
    try:
        free, total = torch.cuda.mem_get_info()
        cuda = int(total - free)
    except RuntimeError:
        pass
    nv = None
    if nvml and uuid:
        nv = nvml.used_by_uuid().get(uuid.removeprefix("GPU-"))
    return nv, cuda


def memory_figures(torch, nvml, uuid):
    torch.cuda.synchronize()
    nv, cuda = device_used(torch, nvml, uuid)
    stats = torch.cuda.memory_stats()
    return {
        "peak_allocated": int(torch.cuda.max_memory_allocated()),
        "peak_reserved": int(torch.cuda.max_memory_reserved()),
        "device_used_nvml": nv,
        "device_used_cuda": cuda,
        "alloc_retries": int(stats.get("num_alloc_retries", 0)),
    }


def timed(torch, fn, repeats):
    """Times `fn` with CUDA events `repeats` times; seconds each."""
    samples = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1e3)
    return samples


def train_run(torch, model_mod, SDPBackend, sdpa_kernel, grid, cfg, device, nvml, uuid):
    arch = grid["models"][cfg["model"]]["architecture"]
    s = grid["settings"]
    torch.manual_seed(s["seed"])
    precision = cfg["precision"]
    if precision == "amp-bf16" and not bf16_native(torch):
        return {"status": "skipped", "reason": "the GPU has no BF16"}
    amp_dtype = {"amp-bf16": torch.bfloat16, "amp-fp16": torch.float16}.get(precision)
    with torch.device(device):
        model = model_mod.Decoder(arch, cfg["checkpointing"], torch.float32)
    model.train()
    params = model_mod.count_parameters(model)
    if cfg["optimizer"] == "adamw":
        try:
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
            opt_impl = "AdamW(fused=True)"
        except (TypeError, RuntimeError):
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
            opt_impl = "AdamW"
    else:
        opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
        opt_impl = "SGD(momentum=0.9)"
    scaler = None
    if precision == "amp-fp16":
        scaler = torch.amp.GradScaler("cuda") if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler") else torch.cuda.amp.GradScaler()
    mb, seq, ga = cfg["micro_batch"], cfg["seq_len"], cfg["grad_accum"]
    gen = torch.Generator(device=device).manual_seed(s["seed"])
    batches = [
        torch.randint(0, arch["vocab"], (mb, seq + 1), device=device, generator=gen) for _ in range(ga)
    ]
    losses = []

    def step():
        with sdpa_kernel(backends(SDPBackend, cfg["attention"])):
            for b in batches:
                ids, tgt = b[:, :-1], b[:, 1:]
                ctx = torch.autocast("cuda", dtype=amp_dtype) if amp_dtype else contextlib.nullcontext()
                with ctx:
                    loss = model.loss(ids, tgt) / ga
                if scaler is not None:
                    scaler.scale(loss).backward()
                else:
                    loss.backward()
            if scaler is not None:
                scaler.step(opt)
                scaler.update()
            else:
                opt.step()
            # Gradients stay allocated and are zeroed in place, as DDP's
            # buckets and Megatron's main-grad buffer keep them.
            opt.zero_grad(set_to_none=False)
        losses.append(loss.detach())

    for _ in range(s["warmup_steps"]):
        step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    samples = timed(torch, step, s["measure_steps"])
    memory = memory_figures(torch, nvml, uuid)
    return {
        "status": "ok",
        "params": params,
        "memory": memory,
        "time": {"step_median": statistics.median(samples), "step_samples": samples},
        "details": {
            "optimizer": opt_impl,
            "sdpa_backends": [b.name for b in backends(SDPBackend, cfg["attention"])],
            "autocast": None if amp_dtype is None else str(amp_dtype),
            "grad_scaler": scaler is not None,
            "zero_grad_set_to_none": False,
            "last_loss": float(losses[-1]) if losses else None,
        },
    }


def infer_run(torch, model_mod, SDPBackend, sdpa_kernel, grid, cfg, device, nvml, uuid, int8_ok):
    arch = grid["models"][cfg["model"]]["architecture"]
    s = grid["settings"]
    if cfg["weights"] == "int8" and not int8_ok:
        return {"status": "skipped", "reason": "no INT8 weight kernel (torch._weight_int8pack_mm) on this GPU"}
    if not bf16_native(torch):
        return {"status": "skipped", "reason": "the GPU has no BF16"}
    torch.manual_seed(s["seed"])
    with torch.device(device):
        model = model_mod.Decoder(arch, "none", torch.bfloat16)
    model.eval()
    if cfg["weights"] == "int8":
        with torch.no_grad():
            model.quantize_int8()
        cleanup(torch)
    params = model_mod.count_parameters(model)
    B, P, O = cfg["batch"], cfg["prompt"], cfg["output"]
    gen = torch.Generator(device=device).manual_seed(s["seed"])
    prompt = torch.randint(0, arch["vocab"], (B, P), device=device, generator=gen)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    caches = model.make_caches(B, P + O, torch.bfloat16, device)
    prefill_kernels = fused_backends(SDPBackend)
    # A decode step's scores are one row per head: any kernel will do.
    decode_kernels = prefill_kernels + [SDPBackend.MATH]

    state = {}

    def prefill():
        with torch.inference_mode(), sdpa_kernel(prefill_kernels):
            state["logits"] = model.prefill(prompt, caches)

    def generate():
        # Decodes `output` tokens after the prompt; every repetition
        # rewrites the same cache positions, the prompt's stay as filled.
        with torch.inference_mode(), sdpa_kernel(decode_kernels):
            logits = state["logits"]
            for i in range(O):
                tok = logits.argmax(dim=-1, keepdim=True)
                logits = model.decode(tok, caches, P + i)

    prefill()  # warm-up
    ttft = timed(torch, prefill, s["prefill_repeats"])
    generate()  # warm-up
    tpot = [t / O for t in timed(torch, generate, s["decode_repeats"])]
    memory = memory_figures(torch, nvml, uuid)
    return {
        "status": "ok",
        "params": params,
        "memory": memory,
        "time": {
            "ttft_median": statistics.median(ttft),
            "ttft_samples": ttft,
            "tpot_median": statistics.median(tpot),
            "tpot_samples": tpot,
        },
        "details": {
            "kv_cache": "contiguous, prompt + output tokens per sequence, BF16",
            "logits": "last prompt token at prefill",
            "prefill_sdpa_backends": [b.name for b in prefill_kernels],
            "decode": "greedy, one token per sequence per step, eager PyTorch",
        },
    }


def cuda_device(torch, index):
    return torch.device("cuda", index)


def int8_kernel_works(torch, device):
    f = getattr(torch, "_weight_int8pack_mm", None)
    if f is None:
        return False
    try:
        x = torch.randn(4, 64, dtype=torch.bfloat16, device=device)
        w = torch.randint(-127, 127, (32, 64), dtype=torch.int8, device=device)
        sc = torch.rand(32, dtype=torch.bfloat16, device=device)
        f(x, w, sc)
        torch.cuda.synchronize()
        return True
    except RuntimeError:
        return False


def gib(b):
    return f"{b / 2**30:.2f} GiB"


def measure(args, grid):
    used_before = None
    nvml = open_nvml()
    if nvml:
        used_before = nvml.used_by_uuid()
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    try:
        import torch
    except ImportError as e:
        skip(f"PyTorch is not installed for {sys.executable} ({e})")
    if not torch.cuda.is_available():
        skip(f"PyTorch {torch.__version__} sees no CUDA device")
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        skip(f"PyTorch {torch.__version__} is too old: the workload needs torch.nn.attention.sdpa_kernel (PyTorch 2.3 or later)")

    sys.path.insert(0, HERE)
    import model as model_mod

    device = cuda_device(torch, args.device)
    torch.cuda.set_device(device)
    # FP32 GEMMs as TF32, which is what the planner assumes for FP32 compute.
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    int8_ok = int8_kernel_works(torch, device)
    prov = provenance(torch, device, nvml, used_before, "torch._weight_int8pack_mm" if int8_ok else None, date)
    uuid = prov["gpu"]["uuid"]
    runs = [r for r in grid["runs"] if not args.only or any(o in r["id"] for o in args.only)]
    say(f"{prov['gpu']['name']}, driver {prov['driver']}, CUDA {prov['cuda_runtime']}, PyTorch {prov['torch']}; {len(runs)} configurations of the {grid['name']} grid")
    results = []
    started = time.time()
    for n, cfg in enumerate(runs, 1):
        cleanup(torch)
        t0 = time.time()
        try:
            if cfg["kind"] == "train":
                r = train_run(torch, model_mod, SDPBackend, sdpa_kernel, grid, cfg, device, nvml, uuid)
            else:
                r = infer_run(torch, model_mod, SDPBackend, sdpa_kernel, grid, cfg, device, nvml, uuid, int8_ok)
        except Exception as e:  # noqa: BLE001 - a failed configuration is data
            if is_oom(torch, e):
                r = {
                    "status": "oom",
                    "reason": str(e).splitlines()[0][:300],
                    "details": {"peak_allocated_at_oom": int(torch.cuda.max_memory_allocated())},
                }
            else:
                r = {"status": "error", "reason": f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"}
        r = {"id": cfg["id"], **r}
        results.append(r)
        cleanup(torch)
        line = f"[{n}/{len(runs)}] {cfg['id']}: {r['status']}"
        if r["status"] == "ok":
            t = r["time"]
            tt = (
                f"step {t['step_median'] * 1e3:.1f} ms"
                if "step_median" in t
                else f"TTFT {t['ttft_median'] * 1e3:.1f} ms, TPOT {t['tpot_median'] * 1e3:.2f} ms"
            )
            line += f", allocated {gib(r['memory']['peak_allocated'])}, reserved {gib(r['memory']['peak_reserved'])}, {tt}"
        elif r.get("reason"):
            line += f" ({r['reason']})"
        say(f"{line} [{time.time() - t0:.1f} s]")
    out = {"format": RUNSET_FORMAT, "provenance": prov, "grid": grid, "results": results}
    path = args.out or os.path.join(
        HERE, "out", f"runset-{grid['name']}-{date.replace(':', '').replace('+0000', 'Z')}.json"
    )
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    say(f"wrote {path} ({len(results)} configurations in {time.time() - started:.0f} s)")


# --------------------------------------------------------------------------
# Self-test on the CPU: the code paths, not the numbers.


def shrink(arch):
    a = dict(arch)
    ratio = max(1, arch["heads"] // arch["kv_heads"])
    a.update(layers=2, hidden=64, heads=4, kv_heads=max(1, 4 // ratio), head_dim=16, ffn=128, vocab=256)
    if a["positions"] == "learned":
        a["max_positions"] = 128
    a["max_context"] = 128
    return a


def selftest(grid_paths):
    try:
        import torch
    except ImportError as e:
        skip(f"PyTorch is not installed for {sys.executable} ({e})")
    from torch.nn.attention import SDPBackend, sdpa_kernel

    sys.path.insert(0, HERE)
    import model as model_mod

    failures = []
    models = {}
    for p in grid_paths:
        g = load_grid(p)
        for name, m in g["models"].items():
            models[name] = m
    # 1. Every grid model has the parameters the planner counts.
    for name, m in sorted(models.items()):
        with torch.device("meta"):
            net = model_mod.Decoder(m["architecture"], "none", torch.float32)
        n = model_mod.count_parameters(net)
        ok = n == m["expected_params"]
        say(f"selftest: {name}: {n} parameters, planner {m['expected_params']}: {'ok' if ok else 'MISMATCH'}")
        if not ok:
            failures.append(f"{name} parameters")
    # 2. Every lever's code path on a shrunk copy, on the CPU.
    torch.manual_seed(0)
    for name, m in sorted(models.items()):
        arch = shrink(m["architecture"])
        for ckpt in ("none", "full", "selective"):
            for attn in ("flash", "math"):
                for amp in (None, torch.bfloat16):
                    net = model_mod.Decoder(arch, ckpt, torch.float32)
                    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
                    ids = torch.randint(0, arch["vocab"], (2, 33))
                    kernels = backends(SDPBackend, attn) + ([SDPBackend.MATH] if attn == "flash" else [])
                    with sdpa_kernel(kernels):
                        ctx = torch.autocast("cpu", dtype=amp) if amp else contextlib.nullcontext()
                        with ctx:
                            loss = net.loss(ids[:, :-1], ids[:, 1:])
                        loss.backward()
                    opt.step()
                    opt.zero_grad(set_to_none=False)
                    if not torch.isfinite(loss):
                        failures.append(f"{name} {ckpt} {attn} loss")
        # 3. The KV cache: prefill + decode equals one forward pass.
        for weights in ("bf16", "int8"):
            net = model_mod.Decoder(arch, "none", torch.float32).eval()
            if weights == "int8":
                net = net.to(torch.bfloat16)
                net.quantize_int8()
                dtype = torch.bfloat16
            else:
                dtype = torch.float32
            ids = torch.randint(0, arch["vocab"], (2, 12))
            with torch.inference_mode():
                caches = net.make_caches(2, 16, dtype, "cpu")
                net.prefill(ids[:, :8], caches)
                for i in range(8, 12):
                    last = net.decode(ids[:, i : i + 1], caches, i)
                full = net.logits(net.hidden_states(ids))[:, -1]
            tol = 1e-4 if weights == "bf16" else 5e-2
            err = (last.float() - full.float()).abs().max().item() / max(1e-6, full.float().abs().max().item())
            ok = err < tol
            say(f"selftest: {name} {weights} KV-cache decode vs full forward: relative error {err:.1e}: {'ok' if ok else 'MISMATCH'}")
            if not ok:
                failures.append(f"{name} {weights} decode")
    if failures:
        say(f"selftest FAILED: {', '.join(failures)}")
        sys.exit(1)
    say("selftest passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the quick grid (tests/gpu/grids/quick.json)")
    ap.add_argument("--grid", help="a grid file (default: tests/gpu/grids/full.json)")
    ap.add_argument("--out", help="where to write the run set (default: tests/gpu/out/)")
    ap.add_argument("--only", action="append", default=[], help="run only ids containing TEXT (repeatable)")
    ap.add_argument("--device", type=int, default=0, help="CUDA device index")
    ap.add_argument("--list", action="store_true", help="print the grid's run ids and exit")
    ap.add_argument("--selftest", action="store_true", help="check the code on the CPU (no GPU needed)")
    args = ap.parse_args()
    grids = os.path.join(HERE, "grids")
    if args.selftest:
        selftest([os.path.join(grids, "quick.json"), os.path.join(grids, "full.json")])
        return
    path = args.grid or os.path.join(grids, "quick.json" if args.quick else "full.json")
    grid = load_grid(path)
    if args.list:
        for r in grid["runs"]:
            print(r["id"])
        return
    measure(args, grid)


if __name__ == "__main__":
    main()
