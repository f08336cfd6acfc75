//! Import a model from a Hugging Face `config.json`, pasted or read from a
//! file. The core reads it; its notes and errors are shown as plain text,
//! never as markup.

use super::lens::use_plan;
use crate::i18n::editor::{t, K};
use crate::url::History;
use leptos::prelude::*;
use planner_core::hf::{import_hf_config, ShippedWeights};
use planner_core::plan::{CustomModel, ModelChoice};
use planner_core::{Lang, Text};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Largest file read, in bytes; a config.json is a few kilobytes.
pub const MAX_FILE_BYTES: f64 = 1024.0 * 1024.0;

/// What the last import said.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Imported, with the core's notes on what it assumed.
    Imported {
        /// The model's name.
        name: String,
        /// One sentence per assumption, in both languages.
        notes: Vec<Text>,
    },
    /// Not imported, and why (the core's message, in both languages).
    Failed(Text),
    /// The chosen file is larger than [`MAX_FILE_BYTES`].
    TooLarge,
}

/// Reads `text` with the core: what to put in the plan (the model, with
/// the formats its checkpoint ships in, which a serving plan takes), and
/// what to show.
pub fn import(text: &str) -> (Option<CustomModel>, Outcome) {
    match import_hf_config(text) {
        Ok(m) => (
            Some(CustomModel {
                shipped: m.shipped,
                name: m.name.clone(),
                spec: m.spec,
            }),
            Outcome::Imported {
                name: m.name,
                notes: m.notes,
            },
        ),
        Err(e) => (None, Outcome::Failed(e.text())),
    }
}

/// The formats a serving plan took from the checkpoint, named.
fn formats(lang: Lang, s: ShippedWeights) -> String {
    let weights = format!("{} {}", t(lang, K::WeightsPrecision), s.weights.label());
    match s.experts {
        Some(x) => {
            let comma = if lang == Lang::Zh { "，" } else { ", " };
            format!(
                "{weights}{comma}{} {}",
                t(lang, K::ExpertsPrecision),
                x.label()
            )
        }
        None => weights,
    }
}

/// Reads the first chosen file's text into `into`.
fn read_file(ev: &web_sys::Event, into: RwSignal<String>, outcome: RwSignal<Option<Outcome>>) {
    let Some(input) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    if file.size() > MAX_FILE_BYTES {
        outcome.set(Some(Outcome::TooLarge));
        return;
    }
    let Ok(reader) = web_sys::FileReader::new() else {
        return;
    };
    let r = reader.clone();
    let onload = Closure::once_into_js(move || {
        if let Some(text) = r.result().ok().and_then(|v| v.as_string()) {
            into.set(text);
        }
    });
    reader.set_onload(Some(onload.unchecked_ref()));
    let _ = reader.read_as_text(&file);
}

/// Paste box, file chooser, import button and the outcome.
#[component]
pub fn HfImport() -> impl IntoView {
    let lens = use_plan();
    let lang = move || lens.lang();
    let text = RwSignal::new(String::new());
    let outcome = RwSignal::new(None::<Outcome>);
    let applied = RwSignal::new(None::<ShippedWeights>);
    let run = move |_| {
        let (model, said) = text.with_untracked(|s| import(s));
        applied.set(None);
        if let Some(m) = model {
            lens.set(History::Push, |p| {
                let shipped = m.shipped;
                p.model = ModelChoice::Custom(m);
                applied.set(shipped.filter(|s| p.serve_as_shipped(*s)));
            });
        }
        outcome.set(Some(said));
    };
    view! {
        <details class="hf-import" data-testid="hf-import-panel" open>
            <summary>{move || t(lang(), K::ImportHf)}</summary>
            <textarea
                data-testid="hf-config"
                rows="5"
                spellcheck="false"
                placeholder={move || t(lang(), K::PasteConfig)}
                prop:value={move || text.get()}
                on:input={move |ev| text.set(event_target_value(&ev))}
            ></textarea>
            <div class="row">
                <input type="file" accept=".json,application/json" data-testid="hf-file" on:change={move |ev| read_file(&ev, text, outcome)} />
                <button data-testid="hf-import" on:click={run}>{move || t(lang(), K::Import)}</button>
            </div>
            {move || {
                outcome.get().map(|o| match o {
                    Outcome::Imported { name, notes } => view! {
                        <div class="hf-result" data-testid="hf-result">
                            <p>{t(lang(), K::ImportedAs)} " " <strong data-testid="hf-name">{name}</strong></p>
                            {move || applied.get().map(|f| view! {
                                <p data-testid="hf-shipped">{t(lang(), K::ShippedFormats)} " " <strong>{formats(lang(), f)}</strong></p>
                            })}
                            <ul data-testid="hf-notes">
                                {notes.into_iter().map(|n| view! { <li>{n.get(lang()).to_string()}</li> }).collect_view()}
                            </ul>
                        </div>
                    }.into_any(),
                    Outcome::Failed(e) => view! {
                        <p class="error" role="alert" data-testid="hf-error">{t(lang(), K::ImportFailed)} " " {e.get(lang()).to_string()}</p>
                    }.into_any(),
                    Outcome::TooLarge => view! {
                        <p class="error" role="alert" data-testid="hf-error">{t(lang(), K::FileTooLarge)}</p>
                    }.into_any(),
                })
            }}
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_a_config_or_says_why_not() {
        let llama = r#"{"model_type":"llama","hidden_size":4096,"intermediate_size":11008,
            "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":32,
            "vocab_size":32000,"max_position_embeddings":4096,"_name_or_path":"<b>x</b>"}"#;
        let (m, o) = import(llama);
        assert_eq!(m.map(|m| m.spec.layers), Some(32));
        // Names are kept as text; the view never renders them as markup.
        assert!(matches!(o, Outcome::Imported { ref name, .. } if name == "<b>x</b>"));
        for bad in ["", "[]", "{", r#"{"model_type":"nope"}"#] {
            let (m, o) = import(bad);
            assert!(m.is_none(), "{bad}");
            assert!(
                matches!(o, Outcome::Failed(ref e) if !e.en.is_empty() && !e.zh.is_empty()),
                "{bad}"
            );
        }
    }
}
