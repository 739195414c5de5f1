//! jmespath's built-in functions (the specification's 26; no others), each charging the budget for
//! what it reads and makes. Signatures, checks and error wording follow the `jmespath` crate, so
//! a type error reads the same as before the evaluation was ours.

use std::{cmp::Ordering, fmt, rc::Rc};

use jmespath::RuntimeError;

use super::{
    eval::{Eval, EvalError},
    render,
    value::{Entries, Kind, Text, Val},
};

/// What an argument may be.
#[derive(Clone, Copy)]
enum Arg {
    Any,
    Number,
    String,
    Bool,
    Null,
    Array,
    Object,
    Expref,
    ArrayOfNumbers,
    ArrayOfStrings,
    OneOf(&'static [Arg]),
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Any => f.write_str("any"),
            Arg::Number => f.write_str("number"),
            Arg::String => f.write_str("string"),
            Arg::Bool => f.write_str("boolean"),
            Arg::Null => f.write_str("null"),
            Arg::Array => f.write_str("array"),
            Arg::Object => f.write_str("object"),
            Arg::Expref => f.write_str("expref"),
            Arg::ArrayOfNumbers => f.write_str("array[number]"),
            Arg::ArrayOfStrings => f.write_str("array[string]"),
            Arg::OneOf(args) => {
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str("|")?;
                    }
                    write!(f, "{a}")?;
                }
                Ok(())
            }
        }
    }
}

impl Arg {
    fn accepts(&self, ev: &mut Eval<'_>, v: &Val<'_>) -> Result<bool, EvalError> {
        Ok(match self {
            Arg::Any => true,
            Arg::Number => v.kind() == Kind::Number,
            Arg::String => v.kind() == Kind::String,
            Arg::Bool => v.kind() == Kind::Boolean,
            Arg::Null => v.kind() == Kind::Null,
            Arg::Array => v.kind() == Kind::Array,
            Arg::Object => v.kind() == Kind::Object,
            Arg::Expref => v.kind() == Kind::Expref,
            Arg::ArrayOfNumbers | Arg::ArrayOfStrings => match v.as_items() {
                Some(items) => {
                    ev.budget.charge(items.len() as u64)?;
                    let want = if matches!(self, Arg::ArrayOfNumbers) { Kind::Number } else { Kind::String };
                    items.iter().all(|item| item.kind() == want)
                }
                None => false,
            },
            Arg::OneOf(args) => {
                for a in *args {
                    if a.accepts(ev, v)? {
                        return Ok(true);
                    }
                }
                false
            }
        })
    }
}

/// A function's parameters: fixed ones, then any number more of the variadic kind.
struct Signature {
    inputs: &'static [Arg],
    variadic: Option<Arg>,
}

const fn sig(inputs: &'static [Arg]) -> Signature {
    Signature { inputs, variadic: None }
}

const STRING_OR_NUMBER_ARRAY: Arg = Arg::OneOf(&[Arg::ArrayOfStrings, Arg::ArrayOfNumbers]);

fn signature(name: &str) -> Option<Signature> {
    use Arg::*;
    Some(match name {
        "abs" | "ceil" | "floor" => sig(&[Number]),
        "avg" | "sum" => sig(&[ArrayOfNumbers]),
        "contains" => sig(&[OneOf(&[String, Array]), Any]),
        "ends_with" | "starts_with" => sig(&[String, String]),
        "join" => sig(&[String, ArrayOfStrings]),
        "keys" | "values" => sig(&[Object]),
        "length" => sig(&[OneOf(&[Array, Object, String])]),
        "map" => sig(&[Expref, Array]),
        "max" | "min" | "sort" => sig(&[STRING_OR_NUMBER_ARRAY]),
        "max_by" | "min_by" | "sort_by" => sig(&[Array, Expref]),
        "merge" => Signature { inputs: &[Object], variadic: Some(Object) },
        "not_null" => Signature { inputs: &[Any], variadic: Some(Any) },
        "reverse" => sig(&[OneOf(&[Array, String])]),
        "to_array" | "to_number" | "type" => sig(&[Any]),
        "to_string" => sig(&[OneOf(&[Object, Array, Bool, Number, String, Null])]),
        _ => return None,
    })
}

fn check(ev: &mut Eval<'_>, sig: &Signature, args: &[Val<'_>], offset: usize) -> Result<(), EvalError> {
    let (expected, actual) = (sig.inputs.len(), args.len());
    if actual < expected {
        return Err(ev.runtime_error(offset, RuntimeError::NotEnoughArguments { expected, actual }));
    }
    if actual > expected && sig.variadic.is_none() {
        return Err(ev.runtime_error(offset, RuntimeError::TooManyArguments { expected, actual }));
    }
    for (position, value) in args.iter().enumerate() {
        let arg = sig.inputs.get(position).copied().or(sig.variadic).unwrap_or(Arg::Any);
        if !arg.accepts(ev, value)? {
            return Err(ev.kind_error(offset, arg.to_string(), value.kind(), position));
        }
    }
    Ok(())
}

/// Calls the built-in `name` with evaluated `args`.
pub fn call<'a>(ev: &mut Eval<'a>, name: &str, args: Vec<Val<'a>>, offset: usize) -> Result<Val<'a>, EvalError> {
    let Some(signature) = signature(name) else {
        return Err(ev.runtime_error(offset, RuntimeError::UnknownFunction(name.to_owned())));
    };
    check(ev, &signature, &args, offset)?;
    let number = |n: f64| Val::number_f64(n).unwrap_or(Val::Null);
    let arg = |i: usize| &args[i];
    Ok(match name {
        "abs" => number(arg(0).as_f64().unwrap_or_default().abs()),
        "ceil" => number(arg(0).as_f64().unwrap_or_default().ceil()),
        "floor" => number(arg(0).as_f64().unwrap_or_default().floor()),
        "sum" | "avg" => {
            let items = arg(0).as_items().expect("checked");
            let sum: f64 = items.iter().filter_map(|v| v.as_f64()).sum();
            if name == "sum" {
                number(sum)
            } else if items.len() == 0 {
                Val::Null
            } else {
                number(sum / items.len() as f64)
            }
        }
        "contains" => match arg(0).as_items() {
            Some(items) => {
                let mut found = false;
                for item in items.iter() {
                    if ev.budget.equal(&item, arg(1))? {
                        found = true;
                        break;
                    }
                }
                Val::Bool(found)
            }
            None => {
                let subject = arg(0).as_str().unwrap_or_default();
                ev.budget.charge_text(subject.len())?;
                Val::Bool(arg(1).as_str().is_some_and(|needle| subject.contains(needle)))
            }
        },
        "ends_with" | "starts_with" => {
            let (subject, affix) = (arg(0).as_str().unwrap_or_default(), arg(1).as_str().unwrap_or_default());
            ev.budget.charge_text(affix.len())?;
            Val::Bool(if name == "ends_with" { subject.ends_with(affix) } else { subject.starts_with(affix) })
        }
        "join" => {
            let glue = arg(0).as_str().unwrap_or_default();
            let items = arg(1).as_items().expect("checked");
            let mut bytes = (glue.len() as u64).saturating_mul(items.len().saturating_sub(1) as u64);
            for item in items.iter() {
                bytes = bytes.saturating_add(item.as_str().map_or(0, str::len) as u64);
            }
            ev.budget.make(bytes)?;
            let parts: Vec<Val<'a>> = items.iter().collect();
            Val::string(parts.iter().filter_map(Val::as_str).collect::<Vec<_>>().join(glue))
        }
        "keys" | "values" => {
            let entries = arg(0).object_entries().expect("checked");
            ev.budget.make_slots(entries.len())?;
            Val::array(if name == "keys" {
                entries.into_iter().map(|(k, _)| Val::String(k)).collect()
            } else {
                entries.into_iter().map(|(_, v)| v).collect()
            })
        }
        "length" => {
            let v = arg(0);
            let n = match (v.as_items(), v.object_len(), v.as_str()) {
                (Some(items), _, _) => items.len(),
                (_, Some(n), _) => n,
                (_, _, Some(s)) => {
                    ev.budget.charge_text(s.len())?;
                    s.chars().count()
                }
                _ => 0,
            };
            Val::Number(n.into())
        }
        "map" => {
            let items = arg(1).as_items().expect("checked");
            ev.budget.make_slots(items.len())?;
            let mut mapped = Vec::with_capacity(items.len());
            for item in items.iter() {
                mapped.push(ev.apply(arg(0), &item)?);
            }
            Val::array(mapped)
        }
        "max" | "min" => {
            let items: Vec<Val<'a>> = arg(0).as_items().expect("checked").iter().collect();
            let mut best: Option<Val<'a>> = None;
            for item in items {
                best = Some(match best {
                    None => item,
                    Some(current) => {
                        let order = order(ev, &item, &current)?;
                        let take = if name == "max" { order.is_ge() } else { order.is_lt() };
                        if take {
                            item
                        } else {
                            current
                        }
                    }
                });
            }
            best.unwrap_or(Val::Null)
        }
        "max_by" | "min_by" => {
            let items: Vec<Val<'a>> = arg(0).as_items().expect("checked").iter().collect();
            let keyed = keys_by(ev, &items, arg(1), offset)?;
            let mut best: Option<(usize, Val<'a>)> = None;
            for (i, key) in keyed.into_iter().enumerate() {
                best = Some(match best {
                    None => (i, key),
                    Some((j, current)) => {
                        let order = order(ev, &key, &current)?;
                        let take = if name == "max_by" { order.is_gt() } else { order.is_lt() };
                        if take {
                            (i, key)
                        } else {
                            (j, current)
                        }
                    }
                });
            }
            best.map_or(Val::Null, |(i, _)| items[i].clone())
        }
        "merge" => {
            let mut merged = Entries::default();
            for object in &args {
                let entries = object.object_entries().expect("checked");
                ev.budget.make_slots(entries.len())?;
                merged.extend(entries);
            }
            Val::Object(Rc::new(merged))
        }
        "not_null" => args.iter().find(|v| !v.is_null()).cloned().unwrap_or(Val::Null),
        "reverse" => match arg(0).as_items() {
            Some(items) => {
                ev.budget.make_slots(items.len())?;
                Val::array(items.iter().rev().collect())
            }
            None => {
                let s = arg(0).as_str().unwrap_or_default();
                ev.budget.make(s.len() as u64)?;
                Val::string(s.chars().rev().collect())
            }
        },
        "sort" => {
            let mut items: Vec<Val<'a>> = arg(0).as_items().expect("checked").iter().collect();
            charge_sort(ev, &items)?;
            items.sort_by(compare_sortable);
            Val::array(items)
        }
        "sort_by" => {
            let items: Vec<Val<'a>> = arg(0).as_items().expect("checked").iter().collect();
            let keys = keys_by(ev, &items, arg(1), offset)?;
            charge_sort(ev, &keys)?;
            let mut order: Vec<usize> = (0..items.len()).collect();
            order.sort_by(|&i, &j| compare_sortable(&keys[i], &keys[j]));
            Val::array(order.into_iter().map(|i| items[i].clone()).collect())
        }
        "to_array" => match arg(0).kind() {
            Kind::Array => arg(0).clone(),
            _ => {
                ev.budget.make_slots(1)?;
                Val::array(vec![arg(0).clone()])
            }
        },
        "to_number" => match (arg(0).as_number(), arg(0).as_str()) {
            (Some(_), _) => arg(0).clone(),
            (_, Some(s)) => {
                ev.budget.charge_text(s.len())?;
                // A JSON number, and nothing else (the crate would take any JSON text).
                match serde_json::from_str::<serde_json::Number>(s.trim()) {
                    Ok(n) => Val::Number(n),
                    Err(_) => Val::Null,
                }
            }
            _ => Val::Null,
        },
        "to_string" => match arg(0).kind() {
            Kind::String => arg(0).clone(),
            _ => {
                // The text is the value's JSON: measured (without writing) and paid for first.
                let bytes = ev.budget.weight(arg(0))?;
                ev.budget.make(bytes)?;
                let written = render::write(arg(0), bytes as usize).map_err(|_| {
                    ev.runtime_error(
                        offset,
                        RuntimeError::InvalidType {
                            expected: "a JSON value".into(),
                            actual: "expref".into(),
                            position: 0,
                        },
                    )
                })?;
                Val::String(Text::Shared(Rc::from(String::from_utf8(written).unwrap_or_default())))
            }
        },
        "type" => Val::string(arg(0).kind().to_string()),
        _ => unreachable!("every name with a signature is implemented"),
    })
}

/// The key `expref` gives each item: all numbers or all strings (the crate's wording otherwise).
fn keys_by<'a>(
    ev: &mut Eval<'a>,
    items: &[Val<'a>],
    expref: &Val<'a>,
    offset: usize,
) -> Result<Vec<Val<'a>>, EvalError> {
    ev.budget.make_slots(items.len())?;
    let mut keys = Vec::with_capacity(items.len());
    let mut first = None;
    for (invocation, item) in items.iter().enumerate() {
        let key = ev.apply(expref, item)?;
        let kind = key.kind();
        match first {
            None if kind != Kind::Number && kind != Kind::String => {
                return Err(ev.runtime_error(
                    offset,
                    RuntimeError::InvalidReturnType {
                        expected: "expression->number|expression->string".into(),
                        actual: kind.to_string(),
                        position: 1,
                        invocation: 1,
                    },
                ));
            }
            None => first = Some(kind),
            Some(want) if want != kind => {
                return Err(ev.runtime_error(
                    offset,
                    RuntimeError::InvalidReturnType {
                        expected: format!("expression->{want}"),
                        actual: kind.to_string(),
                        position: 1,
                        invocation,
                    },
                ));
            }
            Some(_) => {}
        }
        keys.push(key);
    }
    Ok(keys)
}

/// Strings by code point, numbers by value (an incomparable number sorts first).
fn compare_sortable(a: &Val<'_>, b: &Val<'_>) -> Ordering {
    match (a.as_f64(), b.as_f64(), a.as_str(), b.as_str()) {
        (Some(x), Some(y), _, _) => x.partial_cmp(&y).unwrap_or(Ordering::Less),
        (_, _, Some(x), Some(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

fn order(ev: &mut Eval<'_>, a: &Val<'_>, b: &Val<'_>) -> Result<Ordering, EvalError> {
    ev.budget.charge_text(a.as_str().map_or(0, str::len).min(b.as_str().map_or(0, str::len)))?;
    Ok(compare_sortable(a, b))
}

/// A sort's comparisons, paid before sorting: n·log2(n) of them, each reading up to the longest
/// string's bytes.
fn charge_sort(ev: &mut Eval<'_>, items: &[Val<'_>]) -> Result<(), EvalError> {
    let n = items.len() as u64;
    let longest = items.iter().filter_map(Val::as_str).map(str::len).max().unwrap_or(0);
    let comparisons = n.saturating_mul(u64::from(n.max(2).ilog2()) + 1);
    ev.budget.charge(comparisons.saturating_mul(1 + longest as u64 / 64))?;
    ev.budget.make_slots(items.len())?;
    Ok(())
}
