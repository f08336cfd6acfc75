//! The pool as a grid in the DOM: one box per GPU, split into what each
//! job holds (MIG memory slices, capped shares, the whole GPU) and what is
//! free, each job in its own colour. Names are text, never markup.

use crate::charts::palette;
use crate::i18n::ops::{t, K};
use crate::i18n::Lang;
use crate::numfmt::gib;
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::tenants::{GpuState, GpuUse, SharingResult};

/// The parts of one GPU, left to right: the job holding each (`None`:
/// free) and its width in the GPU's own unit (memory slices out of 8,
/// per cent of the memory, or one whole GPU).
pub fn parts(state: &GpuState) -> Vec<(Option<usize>, u32)> {
    match state {
        GpuState::Free => vec![(None, 1)],
        GpuState::Whole { job } => vec![(Some(*job), 1)],
        GpuState::Mig { memory, .. } => {
            let mut out: Vec<(Option<usize>, u32)> = Vec::new();
            for &slot in memory {
                match out.last_mut() {
                    Some((j, n)) if *j == slot => *n += 1,
                    _ => out.push((slot, 1)),
                }
            }
            out
        }
        GpuState::Capped { caps } => {
            let mut out: Vec<(Option<usize>, u32)> =
                caps.iter().map(|&(j, p)| (Some(j), p)).collect();
            let used: u32 = caps.iter().map(|c| c.1).sum();
            if used < 100 {
                out.push((None, 100 - used));
            }
            out
        }
    }
}

fn gpu_box(g: GpuUse, names: Vec<String>, lang: Lang) -> impl IntoView {
    let head = format!("GPU {} · {} {}", g.index, t(lang, K::Node), g.node);
    let title = format!("{head}: {} / {}", gib(g.peak), gib(g.capacity));
    let blocks = parts(&g.state)
        .into_iter()
        .map(|(job, width)| {
            let label = job
                .and_then(|j| names.get(j).cloned())
                .unwrap_or_else(|| t(lang, K::Free).to_string());
            let style = match job {
                // Black or white text, whichever contrasts more (≥ 4.5:1).
                Some(j) => format!(
                    "flex-grow:{width};background:{};color:{}",
                    palette::css(palette::job(j)),
                    palette::css(palette::text_on(palette::job(j)))
                ),
                None => format!("flex-grow:{width}"),
            };
            view! {
                <div
                    class="gpu-part"
                    class:free={job.is_none()}
                    data-testid="tenants-part"
                    data-job={job.map(|j| j.to_string()).unwrap_or_default()}
                    style={style}
                    title={label.clone()}
                >
                    <span>{label.clone()}</span>
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="gpu" data-testid="tenants-gpu" data-index={g.index.to_string()} title={title}>
            <div class="gpu-head">{head}</div>
            <div class="gpu-parts">{blocks}</div>
        </div>
    }
}

/// The grid.
#[component]
pub fn GpuGrid(
    /// The packing to draw.
    result: Memo<SharingResult>,
) -> impl IntoView {
    let state = use_state();
    view! {
        <section class="ops-section">
            <h4>{move || t(state.lang(), K::GpuGrid)}</h4>
            <div class="gpu-grid" data-testid="tenants-grid">
                {move || {
                    let lang = state.lang();
                    result.with(|r| {
                        let names: Vec<String> = r.jobs.iter().map(|j| j.job.clone()).collect();
                        r.gpus.iter().cloned().map(|g| gpu_box(g, names.clone(), lang)).collect_view()
                    })
                }}
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_follow_the_gpu_state() {
        assert_eq!(parts(&GpuState::Free), vec![(None, 1)]);
        assert_eq!(parts(&GpuState::Whole { job: 2 }), vec![(Some(2), 1)]);
        let memory = [
            Some(0),
            Some(0),
            Some(0),
            Some(0),
            None,
            None,
            Some(1),
            Some(1),
        ];
        assert_eq!(
            parts(&GpuState::Mig {
                memory,
                compute_used: 5
            }),
            vec![(Some(0), 4), (None, 2), (Some(1), 2)]
        );
        let caps = vec![(0, 40), (3, 25)];
        assert_eq!(
            parts(&GpuState::Capped { caps }),
            vec![(Some(0), 40), (Some(3), 25), (None, 35)]
        );
    }
}
