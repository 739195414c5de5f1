//! The values a jmespath evaluation works on. Parts of the projected body are borrowed, never
//! copied (`Json`); what the expression builds is shared through `Rc`, so `[@, @]` costs one small
//! array however large `@` is. Sharing is also what makes a value's *logical* size grow
//! exponentially with the expression (`[@,@]|[@,@]|…`), so nothing here walks a value without
//! charging the [`Budget`](super::budget::Budget) first.

use std::{fmt, rc::Rc};

use indexmap::IndexMap;
use jmespath::ast::Ast;
use serde_json::{Number, Value};

/// Text borrowed from the body or the expression, or made by the evaluation.
#[derive(Clone, Debug)]
pub enum Text<'a> {
    Borrowed(&'a str),
    Shared(Rc<str>),
}

impl std::ops::Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Text::Borrowed(s) => s,
            Text::Shared(s) => s,
        }
    }
}

impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}
impl Eq for Text<'_> {}
impl std::hash::Hash for Text<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl From<String> for Text<'_> {
    fn from(s: String) -> Self {
        Text::Shared(Rc::from(s))
    }
}

pub type Entries<'a> = IndexMap<Text<'a>, Val<'a>, foldhash::fast::RandomState>;

#[derive(Clone, Debug)]
pub enum Val<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Text<'a>),
    Array(Rc<Vec<Val<'a>>>),
    /// Keys in the order they were made (a multi-select hash: the expression's order).
    Object(Rc<Entries<'a>>),
    /// A part of the projected body, as it is.
    Json(&'a Value),
    Expref(&'a Ast),
}

/// jmespath's type names (the functions' signatures and `type()` use them).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Null,
    Boolean,
    Number,
    String,
    Array,
    Object,
    Expref,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Null => "null",
            Kind::Boolean => "boolean",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
            Kind::Expref => "expref",
        })
    }
}

/// The elements of an array value, borrowed from the body or shared.
#[derive(Clone, Copy)]
pub enum Items<'v, 'a> {
    Json(&'a [Value]),
    Made(&'v [Val<'a>]),
}

impl<'v, 'a> Items<'v, 'a> {
    pub fn len(&self) -> usize {
        match self {
            Items::Json(a) => a.len(),
            Items::Made(a) => a.len(),
        }
    }
    pub fn get(&self, i: usize) -> Option<Val<'a>> {
        match self {
            Items::Json(a) => a.get(i).map(Val::Json),
            Items::Made(a) => a.get(i).cloned(),
        }
    }
    pub fn iter(self) -> ItemsIter<'v, 'a> {
        match self {
            Items::Json(a) => ItemsIter::Json(a.iter()),
            Items::Made(a) => ItemsIter::Made(a.iter()),
        }
    }
}

pub enum ItemsIter<'v, 'a> {
    Json(std::slice::Iter<'a, Value>),
    Made(std::slice::Iter<'v, Val<'a>>),
}

impl<'a> Iterator for ItemsIter<'_, 'a> {
    type Item = Val<'a>;
    fn next(&mut self) -> Option<Val<'a>> {
        match self {
            ItemsIter::Json(i) => i.next().map(Val::Json),
            ItemsIter::Made(i) => i.next().cloned(),
        }
    }
}

impl<'a> DoubleEndedIterator for ItemsIter<'_, 'a> {
    fn next_back(&mut self) -> Option<Val<'a>> {
        match self {
            ItemsIter::Json(i) => i.next_back().map(Val::Json),
            ItemsIter::Made(i) => i.next_back().cloned(),
        }
    }
}

impl<'a> Val<'a> {
    pub fn string(s: String) -> Self {
        Val::String(s.into())
    }
    pub fn array(items: Vec<Val<'a>>) -> Self {
        Val::Array(Rc::new(items))
    }
    pub fn number_f64(n: f64) -> Option<Self> {
        Number::from_f64(n).map(Val::Number)
    }

    pub fn kind(&self) -> Kind {
        match self {
            Val::Null | Val::Json(Value::Null) => Kind::Null,
            Val::Bool(_) | Val::Json(Value::Bool(_)) => Kind::Boolean,
            Val::Number(_) | Val::Json(Value::Number(_)) => Kind::Number,
            Val::String(_) | Val::Json(Value::String(_)) => Kind::String,
            Val::Array(_) | Val::Json(Value::Array(_)) => Kind::Array,
            Val::Object(_) | Val::Json(Value::Object(_)) => Kind::Object,
            Val::Expref(_) => Kind::Expref,
        }
    }

    pub fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Val::Bool(b) | Val::Json(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Val::Number(n) | Val::Json(Value::Number(n)) => Some(n),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::String(s) => Some(s),
            Val::Json(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    pub fn as_items(&self) -> Option<Items<'_, 'a>> {
        match self {
            Val::Array(a) => Some(Items::Made(a)),
            Val::Json(Value::Array(a)) => Some(Items::Json(a)),
            _ => None,
        }
    }

    /// An object's entries in order, as values.
    pub fn object_entries(&self) -> Option<Vec<(Text<'a>, Val<'a>)>> {
        match self {
            Val::Object(m) => Some(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
            Val::Json(Value::Object(m)) => {
                Some(m.iter().map(|(k, v)| (Text::Borrowed(k.as_str()), Val::Json(v))).collect())
            }
            _ => None,
        }
    }

    pub fn object_len(&self) -> Option<usize> {
        match self {
            Val::Object(m) => Some(m.len()),
            Val::Json(Value::Object(m)) => Some(m.len()),
            _ => None,
        }
    }

    pub fn field(&self, name: &str) -> Val<'a> {
        self.get(name).unwrap_or(Val::Null)
    }

    /// An object's member `name`, if it has one (a member may be null).
    pub fn get(&self, name: &str) -> Option<Val<'a>> {
        match self {
            Val::Object(m) => m.get(&Text::Borrowed(name)).cloned(),
            Val::Json(Value::Object(m)) => m.get(name).map(Val::Json),
            _ => None,
        }
    }

    pub fn is_truthy(&self) -> bool {
        match self {
            Val::Bool(b) | Val::Json(Value::Bool(b)) => *b,
            Val::String(s) => !s.is_empty(),
            Val::Json(Value::String(s)) => !s.is_empty(),
            Val::Array(a) => !a.is_empty(),
            Val::Json(Value::Array(a)) => !a.is_empty(),
            Val::Object(m) => !m.is_empty(),
            Val::Json(Value::Object(m)) => !m.is_empty(),
            Val::Number(_) | Val::Json(Value::Number(_)) => true,
            Val::Null | Val::Json(Value::Null) | Val::Expref(_) => false,
        }
    }

    /// An address that identifies this value while the evaluation runs (shared values and parts of
    /// the body have one; the rest are small and cheap to look at again).
    pub fn identity(&self) -> Option<usize> {
        match self {
            Val::Json(v) => Some(*v as *const Value as usize),
            Val::Array(a) => Some(Rc::as_ptr(a) as *const u8 as usize),
            Val::Object(m) => Some(Rc::as_ptr(m) as *const u8 as usize),
            Val::String(Text::Shared(s)) => Some(Rc::as_ptr(s) as *const u8 as usize),
            _ => None,
        }
    }
}

/// jmespath's number equality: equal, or within a relative epsilon (0.71 == 0.7100000000000002).
pub fn numbers_equal(a: f64, b: f64) -> bool {
    if a == b {
        true
    } else if !a.is_normal() || !b.is_normal() {
        (a - b).abs() < f64::EPSILON * f64::MIN_POSITIVE
    } else {
        (a - b).abs() / (a.abs() + b.abs()) < f64::EPSILON
    }
}
