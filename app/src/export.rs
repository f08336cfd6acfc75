//! Exports without a network: the workspace with its reports as JSON, the
//! comparison as CSV, a chart as PNG, each handed to the browser as a
//! download from a Blob (or the canvas's data URL).

use planner_core::report::Report;
use planner_core::workspace::Workspace;
use serde::Serialize;
use wasm_bindgen::JsCast;

/// What the JSON export holds.
#[derive(Serialize)]
struct Export<'a> {
    /// The workspace: plans, view, language, sweep settings.
    workspace: &'a Workspace,
    /// One report per plan, in the same order.
    reports: &'a [Report],
}

/// The workspace and its reports as pretty JSON.
pub fn workspace_json(ws: &Workspace, reports: &[Report]) -> String {
    serde_json::to_string_pretty(&Export {
        workspace: ws,
        reports,
    })
    .unwrap_or_default()
}

/// A byte-order mark first, so spreadsheet programs read the CSV's Chinese
/// text as UTF-8.
pub const CSV_BOM: &str = "\u{feff}";

/// Clicks a temporary link that downloads `href` as `filename`.
fn click_download(href: &str, filename: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(a) = doc
        .create_element("a")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    else {
        return;
    };
    a.set_href(href);
    a.set_download(filename);
    if let Some(body) = doc.body() {
        let _ = body.append_child(&a);
        a.click();
        a.remove();
    }
}

/// Downloads text as a file of the given media type, through a Blob and an
/// object URL that is revoked once the download has started.
pub fn download_text(filename: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    click_download(&url, filename);
    leptos::prelude::set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(10),
    );
}

/// Downloads a data URL (a canvas's PNG) as a file.
pub fn download_data_url(filename: &str, url: &str) {
    click_download(url, filename);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn json_holds_the_workspace_and_a_report_per_plan() {
        let (plans, reports) = fixtures::three();
        let mut ws = Workspace::new(plans[0].clone());
        ws.plans = plans;
        let json = workspace_json(&ws, &reports);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        let back: Option<Workspace> = serde_json::from_value(v["workspace"].clone()).ok();
        assert_eq!(back.as_ref(), Some(&ws));
        assert_eq!(v["reports"].as_array().map(Vec::len), Some(3));
        let back: Option<Vec<Report>> = serde_json::from_value(v["reports"].clone()).ok();
        assert_eq!(back, Some(reports));
    }
}
