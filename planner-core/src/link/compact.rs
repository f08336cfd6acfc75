//! Version-2 link payloads: only what differs from a reference.
//!
//! A version-1 payload is the whole workspace's JSON (every field of every
//! plan), about 1,800 characters for the page's first screen. A version-2
//! payload holds JSON Merge Patches (RFC 7396) instead:
//!
//! - the workspace's own fields as a patch of [`REFERENCE`]'s;
//! - each plan as a patch of a base plan: one of the reference's plans
//!   (`"$ref": k`, the default being plan 0) or an earlier plan of the same
//!   link (`"$plan": j`), whichever gives the shortest patch.
//!
//! The reference is frozen: it is the first screen's workspace as of
//! 2026-12-01, stored as text, so a version-2 link means the same thing
//! however the presets or the defaults change later. Fields added after it
//! are absent from it and take their serde defaults, as in version 1.
//!
//! The patch functions work on `serde_json::Value`s and know nothing of a
//! workspace; [`compact`] and [`expand`] know only that a workspace is an
//! object whose `plans` is a list of objects.

use super::{LinkError, MAX_PLANS, MAX_STATE_BYTES};
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The frozen reference workspace (the Default scenario's seven plans, in
/// English, as the page opened on 2026-12-01). Never edit it: every
/// version-2 link is read against it.
pub const REFERENCE: &str = include_str!("reference.json");

/// Key of a plan patch naming its base among the reference's plans.
const REF_KEY: &str = "$ref";
/// Key of a plan patch naming its base among the link's earlier plans.
const PLAN_KEY: &str = "$plan";

fn reference() -> &'static Map<String, Value> {
    static CELL: OnceLock<Map<String, Value>> = OnceLock::new();
    CELL.get_or_init(|| serde_json::from_str(REFERENCE).unwrap_or_default())
}

fn reference_plans() -> &'static [Value] {
    reference()
        .get("plans")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The JSON Merge Patch (RFC 7396 §1) that turns `base` into `target`:
/// objects are compared key by key, anything else is replaced whole, and
/// a key `target` lacks is written as `null` (removed). A `null` in
/// `target` cannot be written as a patch value (it would mean "remove");
/// [`compact`] checks its result by expanding it again.
pub fn diff(base: &Value, target: &Value) -> Value {
    let (Value::Object(b), Value::Object(t)) = (base, target) else {
        return target.clone();
    };
    let mut patch = Map::new();
    for (key, value) in t {
        match b.get(key) {
            Some(old) if old == value => {}
            Some(old) => {
                patch.insert(key.clone(), diff(old, value));
            }
            None => {
                patch.insert(key.clone(), value.clone());
            }
        }
    }
    for key in b.keys().filter(|k| !t.contains_key(*k)) {
        patch.insert(key.clone(), Value::Null);
    }
    Value::Object(patch)
}

/// Applies a JSON Merge Patch (RFC 7396 §2) to `target` in place.
pub fn apply(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(t) = target else { return };
    for (key, value) in p {
        if value.is_null() {
            t.remove(key);
        } else {
            apply(t.entry(key.clone()).or_insert(Value::Null), value);
        }
    }
}

/// Length of a value's JSON text.
fn json_len(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(usize::MAX, |b| b.len())
}

/// A plan as the shortest patch of one of its possible bases.
fn compact_plan(plan: &Value, earlier: &[Value]) -> Value {
    let refs = reference_plans()
        .iter()
        .enumerate()
        .map(|(k, b)| (REF_KEY, k, b));
    let own = earlier.iter().enumerate().map(|(j, b)| (PLAN_KEY, j, b));
    let mut best: Option<(usize, Value)> = None;
    for (key, index, base) in refs.chain(own) {
        let mut patch = diff(base, plan);
        let Value::Object(map) = &mut patch else {
            continue;
        };
        if !(key == REF_KEY && index == 0) {
            map.insert(key.into(), Value::from(index));
        }
        let len = json_len(&patch);
        if best.as_ref().is_none_or(|(l, _)| len < *l) {
            best = Some((len, patch));
        }
    }
    best.map_or_else(|| plan.clone(), |(_, p)| p)
}

/// A workspace's JSON as a version-2 payload, or `None` when it is not an
/// object with a list of object plans, or when the patches would not
/// rebuild it exactly (a `null` that a patch cannot write): the caller
/// then writes a version-1 link.
pub fn compact(full: &Value) -> Option<Value> {
    let Value::Object(ws) = full else { return None };
    let plans = ws.get("plans")?.as_array()?;
    if plans.iter().any(|p| !p.is_object()) {
        return None;
    }
    let mut rest = ws.clone();
    rest.remove("plans");
    let mut base = reference().clone();
    base.remove("plans");
    let mut out = match diff(&Value::Object(base), &Value::Object(rest)) {
        Value::Object(m) => m,
        _ => return None,
    };
    let patches = (0..plans.len())
        .map(|i| compact_plan(&plans[i], &plans[..i]))
        .collect();
    out.insert("plans".into(), Value::Array(patches));
    let out = Value::Object(out);
    // Checked through the text a link carries.
    let text = serde_json::to_vec(&out).ok()?;
    let back: Value = serde_json::from_slice(&text).ok()?;
    (expand(back).ok()? == *full).then_some(out)
}

fn invalid(message: String) -> LinkError {
    LinkError::Invalid { message }
}

/// The base a plan patch names (and removes from it).
fn take_base<'a>(
    patch: &mut Map<String, Value>,
    done: &'a [Value],
    i: usize,
) -> Result<&'a Value, LinkError> {
    let at = |v: Value, key: &str, len: usize| {
        v.as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n < len)
            .ok_or_else(|| invalid(format!("plan {i}: `{key}` must be an index below {len}")))
    };
    match (patch.remove(REF_KEY), patch.remove(PLAN_KEY)) {
        (Some(_), Some(_)) => Err(invalid(format!(
            "plan {i}: `{REF_KEY}` and `{PLAN_KEY}` together"
        ))),
        (None, Some(v)) => Ok(&done[at(v, PLAN_KEY, i)?]),
        (r, None) => {
            let refs = reference_plans();
            let k = r.map_or(Ok(0), |v| at(v, REF_KEY, refs.len()))?;
            refs.get(k)
                .ok_or_else(|| invalid(format!("plan {i}: no reference plan")))
        }
    }
}

/// A version-2 payload back to the workspace's JSON. The number of plans
/// is checked before any plan is rebuilt, and the rebuilt JSON is held to
/// [`MAX_STATE_BYTES`] like a version-1 payload, so a short hostile link
/// cannot expand into a large workspace.
pub fn expand(payload: Value) -> Result<Value, LinkError> {
    let Value::Object(mut ws) = payload else {
        return Err(invalid("a version-2 link holds an object".into()));
    };
    let plans = match ws.remove("plans") {
        Some(Value::Array(p)) => p,
        _ => return Err(LinkError::NoPlan),
    };
    if plans.is_empty() {
        return Err(LinkError::NoPlan);
    }
    if plans.len() > MAX_PLANS {
        return Err(LinkError::TooManyPlans { plans: plans.len() });
    }
    let mut done: Vec<Value> = Vec::with_capacity(plans.len());
    for (i, patch) in plans.into_iter().enumerate() {
        let Value::Object(mut patch) = patch else {
            return Err(invalid(format!("plan {i} is not an object")));
        };
        let mut plan = take_base(&mut patch, &done, i)?.clone();
        apply(&mut plan, &Value::Object(patch));
        done.push(plan);
    }
    let mut full = Value::Object(reference().clone());
    apply(&mut full, &Value::Object(ws));
    if let Value::Object(m) = &mut full {
        m.insert("plans".into(), Value::Array(done));
    }
    if json_len(&full) > MAX_STATE_BYTES {
        return Err(LinkError::TooLarge);
    }
    Ok(full)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patches_follow_rfc_7396() {
        // RFC 7396 Appendix A, a selection.
        let cases = [
            (json!({"a": "b"}), json!({"a": "c"}), json!({"a": "c"})),
            (
                json!({"a": "b"}),
                json!({"b": "c"}),
                json!({"a": "b", "b": "c"}),
            ),
            (json!({"a": "b"}), json!({"a": null}), json!({})),
            (json!({"a": ["b"]}), json!({"a": "c"}), json!({"a": "c"})),
            (
                json!({"a": {"b": "c"}}),
                json!({"a": {"b": "d", "c": null}}),
                json!({"a": {"b": "d"}}),
            ),
            (
                json!({"e": null}),
                json!({"a": 1}),
                json!({"e": null, "a": 1}),
            ),
            (
                json!([1, 2]),
                json!({"a": "b", "c": null}),
                json!({"a": "b"}),
            ),
            (
                json!({}),
                json!({"a": {"bb": {"ccc": null}}}),
                json!({"a": {"bb": {}}}),
            ),
        ];
        for (doc, patch, want) in cases {
            let mut got = doc.clone();
            apply(&mut got, &patch);
            assert_eq!(got, want, "{doc} + {patch}");
        }
    }

    #[test]
    fn a_diff_applied_gives_the_target() {
        let a = json!({"x": {"y": 1, "z": [1, 2]}, "k": "v", "gone": 3});
        let b = json!({"x": {"y": 2, "z": [1, 2]}, "k": "v", "new": {"n": true}});
        let mut got = a.clone();
        apply(&mut got, &diff(&a, &b));
        assert_eq!(got, b);
        assert_eq!(diff(&a, &a), json!({}));
    }

    #[test]
    fn the_reference_is_a_workspace_of_seven_plans() {
        assert_eq!(reference_plans().len(), 7);
        assert!(reference().contains_key("sweep"));
        // The reference itself compacts to nothing but empty patches.
        let full = Value::Object(reference().clone());
        let c = compact(&full).expect("compacts");
        assert_eq!(c["plans"].as_array().map(Vec::len), Some(7));
        assert!(json_len(&c) < 120, "{c}");
    }

    #[test]
    fn hostile_payloads_are_refused_before_expanding() {
        let many = json!({ "plans": vec![json!({}); MAX_PLANS + 1] });
        assert!(matches!(expand(many), Err(LinkError::TooManyPlans { .. })));
        assert_eq!(expand(json!({"plans": []})), Err(LinkError::NoPlan));
        assert_eq!(expand(json!({})), Err(LinkError::NoPlan));
        assert!(expand(json!([])).is_err());
        for bad in [
            json!({"plans": [{"$plan": 0}]}),
            json!({"plans": [{"$ref": 7}]}),
            json!({"plans": [{"$ref": -1}]}),
            json!({"plans": [{}, {"$ref": 0, "$plan": 0}]}),
            json!({"plans": [3]}),
        ] {
            assert!(matches!(expand(bad), Err(LinkError::Invalid { .. })));
        }
        // Twelve plans each a copy of a large earlier one stay bounded.
        let big = "x".repeat(MAX_STATE_BYTES / 4);
        let mut plans = vec![json!({ "name": big })];
        plans.extend((1..MAX_PLANS).map(|_| json!({"$plan": 0})));
        assert_eq!(expand(json!({ "plans": plans })), Err(LinkError::TooLarge));
    }
}
