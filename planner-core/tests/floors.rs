//! The floors of `planner-core` (ARCHITECTURE.md): every module imports
//! only from its own floor or below. Read from the source text, so a new
//! upward `crate::` path fails here before it reaches review.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each module's floor: 1 vocabulary, 2 partition, 3 the models, 4 what
/// calls them many times and the operations, 5 the workspace and its link.
const FLOORS: &[(&str, u8)] = &[
    ("units", 1),
    ("lang", 1),
    ("fixed", 1),
    ("precision", 1),
    ("model", 1),
    ("moe", 1),
    ("hardware", 1),
    ("lever", 1),
    ("economics", 1),
    ("efficiency", 1),
    ("engine", 1),
    ("request", 1),
    ("plan", 1),
    ("software", 1),
    ("stack", 1),
    ("capability", 1),
    ("diagnostics", 1),
    ("report", 1),
    ("uncertainty", 1),
    ("effort", 1),
    ("zero", 1),
    ("diff", 1),
    ("disagg", 1),
    ("catalog", 1),
    ("examples", 1),
    ("hf", 1),
    ("partition", 2),
    ("resolve", 3),
    ("memory", 3),
    ("time", 3),
    ("placement", 3),
    ("cost", 3),
    ("quick", 3),
    ("evaluate", 3),
    ("serving", 3),
    ("pareto", 4),
    ("floor", 4),
    ("sweep", 4),
    ("search", 4),
    ("calibrate", 4),
    ("tenants", 4),
    ("checkpoint", 4),
    ("checklist", 4),
    ("wall", 4),
    ("link", 5),
    ("workspace", 5),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a source file belongs to (`src/time/work.rs` →
/// `time`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_string())
}

/// The modules a file names through `crate::<module>` paths, in code and
/// in `use` lines (doc comments excluded: a link is not an import).
fn imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
            rest = after;
        }
        // `use crate::{a, b::c}` groups.
        if let Some(group) = code.strip_prefix("use crate::{") {
            for part in group.split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        }
    }
    out
}

#[test]
fn no_module_imports_from_a_higher_floor() {
    let floors: BTreeMap<&str, u8> = FLOORS.iter().copied().collect();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    assert!(files.len() > 40, "read {} files", files.len());
    let mut upward = Vec::new();
    let mut unplaced = Vec::new();
    for f in &files {
        let Some(module) = module_of(&src, f) else {
            continue;
        };
        if module == "lib" {
            continue;
        }
        let Some(&own) = floors.get(module.as_str()) else {
            unplaced.push(module);
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for m in imports(&text) {
            let Some(&theirs) = floors.get(m.as_str()) else {
                continue;
            };
            if theirs > own {
                upward.push(format!(
                    "{} (floor {own}) → {m} (floor {theirs})",
                    f.display()
                ));
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules without a floor in FLOORS: {unplaced:?}"
    );
    assert!(
        upward.is_empty(),
        "imports running up a floor:\n{}",
        upward.join("\n")
    );
}
