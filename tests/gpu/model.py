"""A GPT-style decoder built from the flat architecture the Rust harness
writes into a grid (see tests/harness/src/grid.rs, `Architecture`), so the
network PyTorch runs is the one planner-core's ModelSpec describes.

Plain eager PyTorch: no torch.compile, no CUDA graphs, no fused custom
kernels beyond what PyTorch ships. Imported only after the workload has
checked that PyTorch is installed.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

DROPOUT_P = 0.1


def _sdpa_supports_gqa():
    q = torch.zeros(1, 2, 2, 4)
    k = torch.zeros(1, 1, 2, 4)
    try:
        F.scaled_dot_product_attention(q, k, k, enable_gqa=True)
        return True
    except TypeError:
        return False


SDPA_GQA = _sdpa_supports_gqa()


def make_norm(arch, dtype):
    h = arch["hidden"]
    if arch["norm"] == "layernorm":
        return nn.LayerNorm(h, dtype=dtype)
    if arch["norm"] == "rmsnorm":
        if hasattr(nn, "RMSNorm"):
            return nn.RMSNorm(h, eps=1e-5, dtype=dtype)
        return _RmsNorm(h, dtype)
    raise ValueError(f"unknown norm {arch['norm']!r}")


class _RmsNorm(nn.Module):
    """RMSNorm for PyTorch releases without nn.RMSNorm (before 2.4)."""

    def __init__(self, h, dtype):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h, dtype=dtype))

    def forward(self, x):
        y = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5)
        return y.to(x.dtype) * self.weight


def rotary_tables(head_dim, positions, device):
    """cos and sin of the rotary angles, [positions, head_dim / 2] (base
    10,000, as Llama)."""
    inv = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
    t = torch.arange(positions, device=device).float()
    ang = torch.outer(t, inv)
    return ang.cos(), ang.sin()


def apply_rotary(x, cos, sin):
    """Rotates pairs (x1, x2) of the two halves of the head dimension;
    x is [batch, heads, tokens, head_dim]."""
    d = x.shape[-1] // 2
    x1, x2 = x[..., :d], x[..., d:]
    c = cos.to(x.dtype)
    s = sin.to(x.dtype)
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)


class Int8Linear(nn.Module):
    """A linear layer with INT8 weights and one BF16 scale per output
    channel, multiplied by `torch._weight_int8pack_mm` (weight-only INT8,
    activations stay BF16)."""

    def __init__(self, linear):
        super().__init__()
        w = linear.weight.detach()
        scale = w.float().abs().amax(dim=1).clamp(min=1e-8) / 127.0
        q = torch.round(w.float() / scale[:, None]).clamp(-127, 127).to(torch.int8)
        self.register_buffer("weight", q.contiguous())
        self.register_buffer("scale", scale.to(w.dtype))
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach())
        self.out_features = w.shape[0]

    def forward(self, x):
        shape = x.shape
        y = torch._weight_int8pack_mm(x.reshape(-1, shape[-1]), self.weight, self.scale)
        y = y.reshape(*shape[:-1], self.out_features)
        return y if self.bias is None else y + self.bias


class KvCache:
    """A contiguous cache of `capacity` tokens per sequence for one layer:
    K and V as [batch, kv_heads, capacity, head_dim]."""

    def __init__(self, batch, kv_heads, capacity, head_dim, dtype, device):
        shape = (batch, kv_heads, capacity, head_dim)
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)

    def write(self, k, v, pos):
        t = k.shape[2]
        self.k[:, :, pos : pos + t] = k
        self.v[:, :, pos : pos + t] = v
        return self.k[:, :, : pos + t], self.v[:, :, : pos + t]


class Attention(nn.Module):
    def __init__(self, arch, selective, dtype):
        super().__init__()
        h, H, K, D = arch["hidden"], arch["heads"], arch["kv_heads"], arch["head_dim"]
        self.H, self.K, self.D = H, K, D
        # One fused QKV projection: the same parameters as separate Q, K, V.
        self.qkv = nn.Linear(h, (H + 2 * K) * D, bias=arch["bias"] in ("qkv", "all"), dtype=dtype)
        self.proj = nn.Linear(H * D, h, bias=arch["bias"] == "all", dtype=dtype)
        self.dropout = DROPOUT_P if arch["dropout"] else 0.0
        self.rotary = arch["positions"] == "rotary"
        self.selective = selective

    def core(self, q, k, v, causal):
        p = self.dropout if self.training else 0.0
        if self.K != self.H:
            if SDPA_GQA:
                return F.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, dropout_p=p, enable_gqa=True
                )
            r = self.H // self.K
            k = k.repeat_interleave(r, dim=1)
            v = v.repeat_interleave(r, dim=1)
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, dropout_p=p)

    def forward(self, x, rope, cache=None, pos=0):
        B, T, _ = x.shape
        H, K, D = self.H, self.K, self.D
        q, k, v = self.qkv(x).split([H * D, K * D, K * D], dim=-1)
        q = q.view(B, T, H, D).transpose(1, 2)
        k = k.view(B, T, K, D).transpose(1, 2)
        v = v.view(B, T, K, D).transpose(1, 2)
        if self.rotary:
            cos, sin = rope
            q = apply_rotary(q, cos[pos : pos + T], sin[pos : pos + T])
            k = apply_rotary(k, cos[pos : pos + T], sin[pos : pos + T])
        if cache is not None:
            k, v = cache.write(k, v, pos)
        # Prefill (and training) attend causally; a decode step's single
        # query attends to every cached key.
        causal = T > 1
        if self.selective and self.training:
            y = checkpoint(self.core, q, k, v, causal, use_reentrant=False)
        else:
            y = self.core(q, k, v, causal)
        y = y.transpose(1, 2).reshape(B, T, H * D)
        y = self.proj(y)
        if self.dropout and self.training:
            y = F.dropout(y, DROPOUT_P)
        return y


class Mlp(nn.Module):
    def __init__(self, arch, dtype):
        super().__init__()
        h, f = arch["hidden"], arch["ffn"]
        self.gated = arch["gated"]
        self.act = arch["activation"]
        if self.gated:
            # Gate and up projections fused; gated FFNs carry no biases.
            self.up = nn.Linear(h, 2 * f, bias=False, dtype=dtype)
            self.down = nn.Linear(f, h, bias=False, dtype=dtype)
        else:
            self.up = nn.Linear(h, f, bias=arch["bias"] == "all", dtype=dtype)
            self.down = nn.Linear(f, h, bias=arch["bias"] == "all", dtype=dtype)
        self.dropout = arch["dropout"]

    def forward(self, x):
        u = self.up(x)
        if self.gated:
            g, u = u.chunk(2, dim=-1)
            a = F.silu(g) if self.act == "swiglu" else F.gelu(g)
            y = self.down(a * u)
        else:
            y = self.down(F.relu(u) if self.act == "relu" else F.gelu(u, approximate="tanh"))
        if self.dropout and self.training:
            y = F.dropout(y, DROPOUT_P)
        return y


class Block(nn.Module):
    def __init__(self, arch, selective, dtype):
        super().__init__()
        self.norm1 = make_norm(arch, dtype)
        self.attn = Attention(arch, selective, dtype)
        self.norm2 = make_norm(arch, dtype)
        self.mlp = Mlp(arch, dtype)

    def forward(self, x, rope, cache=None, pos=0):
        x = x + self.attn(self.norm1(x), rope, cache, pos)
        return x + self.mlp(self.norm2(x))


class Decoder(nn.Module):
    """The decoder. `checkpointing` is "none", "full" (every layer under
    torch.utils.checkpoint) or "selective" (the attention core only)."""

    def __init__(self, arch, checkpointing="none", dtype=torch.float32):
        super().__init__()
        self.arch = arch
        self.checkpointing = checkpointing
        h, V = arch["hidden"], arch["vocab"]
        self.embed = nn.Embedding(V, h, dtype=dtype)
        self.pos = None
        if arch["positions"] == "learned":
            self.pos = nn.Embedding(arch["max_positions"], h, dtype=dtype)
        elif arch["positions"] != "rotary":
            raise ValueError(f"unknown positions {arch['positions']!r}")
        self.blocks = nn.ModuleList(
            Block(arch, checkpointing == "selective", dtype) for _ in range(arch["layers"])
        )
        self.norm = make_norm(arch, dtype)
        self.head = None if arch["tied"] else nn.Linear(h, V, bias=False, dtype=dtype)
        self.rope = None
        if arch["positions"] == "rotary":
            cos, sin = rotary_tables(arch["head_dim"], arch["max_context"], self.embed.weight.device)
            self.register_buffer("rope_cos", cos, persistent=False)
            self.register_buffer("rope_sin", sin, persistent=False)
        self.reset_parameters()

    def reset_parameters(self):
        # GPT-2's initialisation: N(0, 0.02) for matrices and embeddings,
        # output projections scaled by 1/sqrt(2·layers); keeps the loss
        # finite in FP16.
        out_std = 0.02 / math.sqrt(2 * self.arch["layers"])
        for name, p in self.named_parameters():
            if p.dim() >= 2:
                std = out_std if name.endswith(("proj.weight", "down.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def rope_tables(self):
        if self.arch["positions"] != "rotary":
            return None
        return self.rope_cos, self.rope_sin

    def hidden_states(self, ids, caches=None, pos=0):
        x = self.embed(ids)
        if self.pos is not None:
            t = ids.shape[1]
            x = x + self.pos(torch.arange(pos, pos + t, device=ids.device))
        if self.arch["dropout"] and self.training:
            x = F.dropout(x, DROPOUT_P)
        rope = self.rope_tables()
        for i, block in enumerate(self.blocks):
            if caches is None and self.training and self.checkpointing == "full":
                x = checkpoint(block, x, rope, use_reentrant=False)
            else:
                x = block(x, rope, None if caches is None else caches[i], pos)
        return self.norm(x)

    def logits(self, x):
        if self.head is None:
            return F.linear(x, self.embed.weight)
        return self.head(x)

    def loss(self, ids, targets):
        """Next-token cross-entropy over every position, on FP32 logits."""
        logits = self.logits(self.hidden_states(ids)).float()
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))

    def prefill(self, ids, caches):
        """Fills the caches with the prompt; logits of the last position."""
        x = self.hidden_states(ids, caches, 0)
        return self.logits(x[:, -1])

    def decode(self, ids, caches, pos):
        """One token per sequence at `pos`; its logits."""
        x = self.hidden_states(ids, caches, pos)
        return self.logits(x[:, -1])

    def make_caches(self, batch, capacity, dtype, device):
        a = self.arch
        return [
            KvCache(batch, a["kv_heads"], capacity, a["head_dim"], dtype, device)
            for _ in range(a["layers"])
        ]

    def quantize_int8(self):
        """Replaces the blocks' linear layers by Int8Linear (embeddings and
        the output layer stay 16-bit, as vLLM's and GPTQ's formats keep
        them)."""
        for block in self.blocks:
            block.attn.qkv = Int8Linear(block.attn.qkv)
            block.attn.proj = Int8Linear(block.attn.proj)
            block.mlp.up = Int8Linear(block.mlp.up)
            block.mlp.down = Int8Linear(block.mlp.down)


def count_parameters(model):
    """Parameters (shared ones once) and INT8 weights, as the planner counts
    them."""
    n = sum(p.numel() for p in model.parameters())
    for m in model.modules():
        if isinstance(m, Int8Linear):
            n += m.weight.numel()
    return n
