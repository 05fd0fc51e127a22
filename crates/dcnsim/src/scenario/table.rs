//! Reading one JSON table: field paths, the collected problems (`Ctx`)
//! and typed getters that report unknown, missing and invalid keys (`Tbl`).

use super::units;
use super::{ScenarioError, DOCUMENT};
use crate::text::{excerpt, suggest};
use serde_json::{Map, Value};

// ---------------------------------------------------------------- helpers

pub(super) fn is_ident(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 64
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `parent.key`, or `parent["odd key"]` for keys that are not identifiers.
pub fn key_path(parent: &str, key: &str) -> String {
    if is_ident(key) {
        if parent.is_empty() {
            key.to_string()
        } else {
            format!("{parent}.{key}")
        }
    } else {
        let quoted = serde_json::to_string(&excerpt(key)).unwrap_or_else(|_| "\"?\"".into());
        format!("{parent}[{quoted}]")
    }
}

pub(super) fn idx_path(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

pub(super) struct Ctx {
    pub(super) errs: Vec<ScenarioError>,
}

impl Ctx {
    pub(super) fn err(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.errs.push(ScenarioError {
            path: path.into(),
            message: message.into(),
        });
    }
}

/// A JSON table being read: reports unknown keys up front, then typed getters.
pub(super) struct Tbl<'a> {
    pub(super) map: &'a Map<String, Value>,
    pub(super) path: String,
}

impl<'a> Tbl<'a> {
    /// `None` (and an error) if `v` is not a table.
    pub(super) fn new(ctx: &mut Ctx, v: &'a Value, path: &str) -> Option<Tbl<'a>> {
        match v {
            Value::Object(map) => Some(Tbl {
                map,
                path: path.to_string(),
            }),
            other => {
                ctx.err(
                    if path.is_empty() { DOCUMENT } else { path },
                    format!("expected a table, got {}", units::json_type(other)),
                );
                None
            }
        }
    }

    /// Report every key not in `allowed` (`what` qualifies the message).
    pub(super) fn check_keys(&self, ctx: &mut Ctx, allowed: &[&str], what: &str) {
        for k in self.map.keys() {
            if !allowed.contains(&k.as_str()) {
                let hint = suggest(k, allowed.iter().copied())
                    .map(|s| format!(" (did you mean '{s}'?)"))
                    .unwrap_or_default();
                ctx.err(key_path(&self.path, k), format!("unknown key{what}{hint}"));
            }
        }
    }

    pub(super) fn p(&self, key: &str) -> String {
        key_path(&self.path, key)
    }

    pub(super) fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// Optional key: `None` if absent or invalid (invalid → error recorded).
    pub(super) fn opt<T>(
        &self,
        ctx: &mut Ctx,
        key: &str,
        f: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        let v = self.map.get(key)?;
        match f(v) {
            Ok(x) => Some(x),
            Err(m) => {
                ctx.err(self.p(key), m);
                None
            }
        }
    }

    /// Required key: a missing key is an error too.
    pub(super) fn req<T>(
        &self,
        ctx: &mut Ctx,
        key: &str,
        f: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        if !self.has(key) {
            // Without its `kind` a table's other keys cannot be checked, so
            // a misspelt `kind` would go unnamed: name it here.
            let near = (key == "kind")
                .then(|| {
                    self.map
                        .keys()
                        .find(|k| crate::text::edit_distance(k, key) <= 2)
                })
                .flatten();
            let msg = match near {
                Some(k) => format!("missing required key (is '{k}' a misspelling of it?)"),
                None => "missing required key".to_string(),
            };
            ctx.err(self.p(key), msg);
            return None;
        }
        self.opt(ctx, key, f)
    }
}
