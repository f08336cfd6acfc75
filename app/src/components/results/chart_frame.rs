//! A chart on a canvas: drawn after mount and again when its series, the
//! language or the window size changes; a text tooltip on hover; a PNG
//! download of what is drawn; and, for screen readers and tests, a
//! visually hidden list of every region drawn with its read-out, box and
//! colour (the canvas's `aria-describedby`).

use crate::charts::backend::{self, Hidpi};
use crate::charts::draw::Drawn;
use crate::charts::hover::{self, Hit};
use crate::export;
use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use crate::state::use_state;
use leptos::ev;
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::DrawingArea;

/// A chart's title, from the results' strings or the operations views'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartTitle {
    /// A results string.
    Results(K),
    /// An operations string.
    Ops(crate::i18n::ops::K),
}

impl From<K> for ChartTitle {
    fn from(k: K) -> Self {
        ChartTitle::Results(k)
    }
}

impl From<crate::i18n::ops::K> for ChartTitle {
    fn from(k: crate::i18n::ops::K) -> Self {
        ChartTitle::Ops(k)
    }
}

impl ChartTitle {
    /// The title in a language.
    pub fn text(self, lang: Lang) -> &'static str {
        match self {
            ChartTitle::Results(k) => t(lang, k),
            ChartTitle::Ops(k) => crate::i18n::ops::t(lang, k),
        }
    }
}

/// Where the tooltip sits: the pointer, and whether it opens to the left
/// (pointer on the right half) so it stays inside the chart.
#[derive(Debug, Clone, PartialEq)]
struct Tip {
    x: i32,
    y: i32,
    left: bool,
    text: String,
}

/// One region of the chart as a list item: its read-out as text, its box
/// in CSS pixels (`data-box="x0 y0 x1 y1"`) and, when it is coloured by a
/// kind, the kind and colour (`data-kind`, `data-color`).
fn data_row(h: &Hit) -> impl IntoView {
    let (kind, color) = h
        .swatch
        .as_ref()
        .map(|s| (s.kind.clone(), s.color.clone()))
        .unzip();
    view! {
        <li
            data-box=format!("{} {} {} {}", h.x0, h.y0, h.x1, h.y1)
            data-kind=kind
            data-color=color
        >
            {h.text.clone()}
        </li>
    }
}

/// The tooltip at its pointer: 12 px below it, to the right of it, or to
/// the left where the pointer is on the chart's right half.
fn tooltip(tip: Tip) -> impl IntoView {
    let style = if tip.left {
        format!("right:calc(100% - {}px);top:{}px", tip.x - 12, tip.y + 12)
    } else {
        format!("left:{}px;top:{}px", tip.x + 12, tip.y + 12)
    };
    view! {
        <div class="chart-tooltip" data-testid="chart-tooltip" style=style>
            {tip.text}
        </div>
    }
}

/// The tooltip for a pointer at (`x`, `y`) on a canvas `width` CSS pixels
/// wide: the read-out of the nearest region, if any is near.
fn tip_at(hits: &[Hit], x: i32, y: i32, width: i32) -> Option<Tip> {
    hover::nearest(hits, x, y).map(|h| Tip {
        x,
        y,
        left: x > width / 2,
        text: h.text.clone(),
    })
}

/// One chart.
#[component]
pub fn ChartFrame<S, D>(
    /// The chart's name: testids `chart-<name>` (the canvas) and
    /// `export-png-<name>`, and the mark `memwall:chart:<name>` set after
    /// each draw.
    name: &'static str,
    /// The chart's title, for screen readers (the canvas draws it too).
    #[prop(into)]
    title: ChartTitle,
    /// What to draw; the chart redraws when it changes.
    #[prop(into)]
    series: Signal<S>,
    /// Draws the series on an area measured in CSS pixels and returns the
    /// hover regions.
    draw: D,
    /// CSS height of the canvas in pixels.
    #[prop(default = 340)]
    height: u32,
) -> impl IntoView
where
    S: Send + Sync + 'static,
    D: Fn(&DrawingArea<Hidpi, Shift>, &S, Lang) -> Drawn<Hidpi> + 'static,
{
    let state = use_state();
    // A memo: the effect below must not redraw on every workspace change,
    // only when the language itself changes.
    let lang = Memo::new(move |_| state.lang());
    let canvas = NodeRef::<Canvas>::new();
    let hits = RwSignal::new(Vec::<Hit>::new());
    let tip = RwSignal::new(None::<Tip>);
    let resized = RwSignal::new(0u32);
    let handle = window_event_listener(ev::resize, move |_| resized.update(|n| *n += 1));
    on_cleanup(move || handle.remove());

    Effect::new(move |_| {
        resized.track();
        let lang = lang.get();
        let Some(el) = canvas.get() else {
            return;
        };
        let drawn = series.with(|s| backend::draw_on(&el, height, |area| draw(area, s, lang)));
        match drawn {
            Ok(h) => {
                hits.set(h);
                backend::mark(name);
            }
            Err(e) => leptos::logging::warn!("chart {name}: {e}"),
        }
        tip.set(None);
    });

    let on_move = move |ev: ev::MouseEvent| {
        let width = canvas.get_untracked().map_or(0, |c| c.client_width());
        tip.set(hits.with_untracked(|h| tip_at(h, ev.offset_x(), ev.offset_y(), width)));
    };
    let save = move |_| {
        if let Some(url) = canvas.get_untracked().and_then(|c| c.to_data_url().ok()) {
            export::download_data_url(&format!("memwall-{name}.png"), &url);
        }
    };
    view! {
        <figure class="chart" data-testid=format!("chart-box-{name}")>
            <div class="chart-canvas">
                <canvas
                    node_ref=canvas
                    data-testid=format!("chart-{name}")
                    role="img"
                    aria-label=move || title.text(lang.get())
                    aria-describedby=format!("chart-data-{name}")
                    style=format!("height:{height}px")
                    on:mousemove=on_move
                    on:mouseleave=move |_| tip.set(None)
                ></canvas>
                {move || tip.get().map(tooltip)}
            </div>
            <ul class="chart-data" id=format!("chart-data-{name}") data-testid=format!("chart-data-{name}")>
                {move || hits.with(|h| h.iter().map(data_row).collect_view())}
            </ul>
            <figcaption class="chart-actions">
                <button data-testid=format!("export-png-{name}") on:click=save>
                    {move || t(lang.get(), K::ExportPng)}
                </button>
            </figcaption>
        </figure>
    }
}
