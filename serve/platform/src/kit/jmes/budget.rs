//! What one jmespath evaluation may cost, charged *before* the work or memory it guards, and the
//! exact size a value would have as compact JSON (its `weight`), found without writing it.
//!
//! Work is counted in steps: one per expression node evaluated and per element an operation
//! touches, plus one per 64 bytes of text compared, searched or measured. Memory is what the
//! evaluation makes beyond sharing: the slots of every array and object it builds and the bytes of
//! every string. A weight is computed once per shared value (kept, with the value, for the rest of
//! the evaluation), so a value that holds one part a trillion times over is measured in as many
//! steps as it has distinct parts.

use std::collections::HashMap;

use super::value::{numbers_equal, Kind, Val};

/// Steps one evaluation may take: a few tens of milliseconds of the slowest steps on one core.
pub const MAX_STEPS: u64 = 2_000_000;
/// Bytes one evaluation may make (arrays' slots, objects' entries, strings).
pub const MAX_MADE_BYTES: u64 = 8 << 20;
/// Text bytes that cost one step.
const BYTES_PER_STEP: u64 = 64;
/// The cost of one slot of an array or object the evaluation builds.
pub const SLOT_BYTES: u64 = std::mem::size_of::<Val<'static>>() as u64;
/// What one entry of the budget's own tables (a shared value's weight, a compared pair) takes:
/// the key, the value and the hash table's own share of a slot. The bookkeeping that keeps
/// shared values cheap to measure and compare is made memory too, and charged as such.
const ENTRY_BYTES: u64 = 2 * SLOT_BYTES + 32;

#[derive(Debug)]
pub enum Exceeded {
    Steps,
    Memory,
}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exceeded::Steps => write!(f, "evaluation exceeds its budget of {MAX_STEPS} steps"),
            Exceeded::Memory => write!(f, "evaluation exceeds its budget of {MAX_MADE_BYTES} bytes"),
        }
    }
}

#[derive(Default)]
pub struct Budget<'a> {
    steps: u64,
    made: u64,
    /// Weights of shared values, each kept with its value so that its address stays its own.
    weights: HashMap<usize, (Val<'a>, u64)>,
}

impl<'a> Budget<'a> {
    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn made(&self) -> u64 {
        self.made
    }

    /// Takes `steps` from the budget, or refuses (taking none) when fewer are left.
    pub fn charge(&mut self, steps: u64) -> Result<(), Exceeded> {
        match self.steps.checked_add(steps).filter(|&s| s <= MAX_STEPS) {
            Some(s) => {
                self.steps = s;
                Ok(())
            }
            None => Err(Exceeded::Steps),
        }
    }

    /// Charges reading `bytes` of text.
    pub fn charge_text(&mut self, bytes: usize) -> Result<(), Exceeded> {
        self.charge(1 + bytes as u64 / BYTES_PER_STEP)
    }

    /// Charges making `bytes`, and the steps to fill them.
    pub fn make(&mut self, bytes: u64) -> Result<(), Exceeded> {
        let made = self.made.checked_add(bytes).filter(|&m| m <= MAX_MADE_BYTES).ok_or(Exceeded::Memory)?;
        self.charge(1 + bytes / BYTES_PER_STEP)?;
        self.made = made;
        Ok(())
    }

    /// Charges making an array or object of `len` slots.
    pub fn make_slots(&mut self, len: usize) -> Result<(), Exceeded> {
        self.make((len as u64).saturating_mul(SLOT_BYTES))
    }

    /// The exact length of `v` written as compact JSON ([`super::render`] writes exactly that many
    /// bytes). Saturates at `u64::MAX`.
    pub fn weight(&mut self, v: &Val<'a>) -> Result<u64, Exceeded> {
        super::deeper(|| self.weight_of(v))
    }

    fn weight_of(&mut self, v: &Val<'a>) -> Result<u64, Exceeded> {
        let id = v.identity();
        if let Some(known) = id.and_then(|id| self.weights.get(&id)) {
            return Ok(known.1);
        }
        self.charge(1)?;
        let w = match v {
            Val::Null => 4,
            Val::Bool(b) => 4 + u64::from(!b),
            Val::Number(n) => json_len(n),
            Val::String(s) => {
                self.charge_text(s.len())?;
                json_len(&**s)
            }
            Val::Json(j) => {
                // A part of the body: bounded by the body, which the service made.
                let w = json_len(j);
                self.charge(w / BYTES_PER_STEP)?;
                w
            }
            Val::Array(items) => {
                let mut w = 2 + (items.len() as u64).saturating_sub(1);
                for item in items.iter() {
                    w = w.saturating_add(self.weight(item)?);
                }
                w
            }
            Val::Object(entries) => {
                let mut w = 2 + (entries.len() as u64).saturating_sub(1);
                for (k, value) in entries.iter() {
                    self.charge_text(k.len())?;
                    w = w.saturating_add(json_len(&**k) + 1).saturating_add(self.weight(value)?);
                }
                w
            }
            // Never part of a result: `render` refuses it first.
            Val::Expref(_) => 0,
        };
        if let Some(id) = id {
            self.make(ENTRY_BYTES)?;
            self.weights.insert(id, (v.clone(), w));
        }
        Ok(w)
    }

    /// jmespath equality: same type and value, numbers within a relative epsilon, objects with
    /// the same members in any order. Each pair of shared parts is compared once: two separately
    /// built values that repeat one part 2^40 times compare in as many steps as they have parts.
    pub fn equal(&mut self, a: &Val<'a>, b: &Val<'a>) -> Result<bool, Exceeded> {
        // Both values outlive the comparison, so their parts' addresses stay theirs meanwhile.
        self.equal_parts(a, b, &mut HashMap::new())
    }

    fn equal_parts(
        &mut self,
        a: &Val<'a>,
        b: &Val<'a>,
        seen: &mut HashMap<(usize, usize), bool>,
    ) -> Result<bool, Exceeded> {
        super::deeper(|| self.equal_here(a, b, seen))
    }

    fn equal_here(
        &mut self,
        a: &Val<'a>,
        b: &Val<'a>,
        seen: &mut HashMap<(usize, usize), bool>,
    ) -> Result<bool, Exceeded> {
        self.charge(1)?;
        let pair = a.identity().zip(b.identity());
        if let Some((x, y)) = pair {
            if x == y {
                return Ok(true);
            }
            if let Some(known) = seen.get(&(x, y)) {
                return Ok(*known);
            }
        }
        let kind = a.kind();
        let equal = if kind != b.kind() {
            false
        } else {
            match kind {
                Kind::Null => true,
                Kind::Boolean => a.as_bool() == b.as_bool(),
                Kind::Number => match (a.as_f64(), b.as_f64()) {
                    (Some(x), Some(y)) => numbers_equal(x, y),
                    _ => false,
                },
                Kind::String => {
                    let (x, y) = (a.as_str().unwrap_or_default(), b.as_str().unwrap_or_default());
                    self.charge_text(x.len().min(y.len()))?;
                    x == y
                }
                Kind::Array => {
                    let (x, y) = (a.as_items().expect("an array"), b.as_items().expect("an array"));
                    let mut same = x.len() == y.len();
                    for (p, q) in x.iter().zip(y.iter()) {
                        if !same {
                            break;
                        }
                        same = self.equal_parts(&p, &q, seen)?;
                    }
                    same
                }
                Kind::Object if a.object_len() != b.object_len() => false,
                Kind::Object => {
                    // Lengths first: the entries are listed only for objects that may be equal,
                    // and listing them is paid for.
                    self.charge(a.object_len().unwrap_or(0) as u64)?;
                    let mut same = true;
                    for (k, p) in a.object_entries().unwrap_or_default() {
                        if !same {
                            break;
                        }
                        self.charge_text(k.len())?;
                        same = match b.get(&k) {
                            Some(q) => self.equal_parts(&p, &q, seen)?,
                            None => false,
                        };
                    }
                    same
                }
                Kind::Expref => false,
            }
        };
        if let Some(pair) = pair {
            self.make(ENTRY_BYTES)?;
            seen.insert(pair, equal);
        }
        Ok(equal)
    }
}

/// Counts what a writer is given.
struct Counter(u64);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The compact JSON length of a serde value (the same serializer [`super::render`] uses).
fn json_len<T: serde::Serialize + ?Sized>(v: &T) -> u64 {
    let mut counter = Counter(0);
    // Writing to a counter cannot fail, and these values have no map with non-string keys.
    let _ = serde_json::to_writer(&mut counter, v);
    counter.0
}
