//! Writes a value as compact JSON, exactly as serde_json writes the same JSON (the body's parts are
//! written by serde_json itself), in exactly [`Budget::weight`](super::budget::Budget::weight)
//! bytes — so the caller measures first and writes only what it has paid for.

use std::io::Write;

use super::value::Val;

/// An expression reference inside the value: it has no JSON form.
#[derive(Debug)]
pub struct NotJson;

/// `v` as compact JSON, into a buffer of `capacity` bytes (its weight).
pub fn write(v: &Val<'_>, capacity: usize) -> Result<Vec<u8>, NotJson> {
    let mut out = Vec::with_capacity(capacity);
    write_into(&mut out, v)?;
    debug_assert_eq!(out.len(), capacity, "a value is written in exactly its weight");
    Ok(out)
}

fn write_into(out: &mut Vec<u8>, v: &Val<'_>) -> Result<(), NotJson> {
    super::deeper(|| write_value(out, v))
}

fn write_value(out: &mut Vec<u8>, v: &Val<'_>) -> Result<(), NotJson> {
    // Writing into a Vec cannot fail; serde_json fails only on maps with non-string keys.
    match v {
        Val::Null => out.extend_from_slice(b"null"),
        Val::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Val::Number(n) => serde_json::to_writer(&mut *out, n).map_err(|_| NotJson)?,
        Val::String(s) => serde_json::to_writer(&mut *out, &**s).map_err(|_| NotJson)?,
        Val::Json(j) => serde_json::to_writer(&mut *out, j).map_err(|_| NotJson)?,
        Val::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_into(out, item)?;
            }
            out.push(b']');
        }
        Val::Object(entries) => {
            out.push(b'{');
            for (i, (k, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, &**k).map_err(|_| NotJson)?;
                out.push(b':');
                write_into(out, item)?;
            }
            out.push(b'}');
        }
        Val::Expref(_) => return Err(NotJson),
    }
    let _ = out.flush();
    Ok(())
}
