//! A checked evaluation of a jmespath AST (the `jmespath` crate parses; this evaluates): the
//! standard semantics, with every step and every value made charged to the [`Budget`] before it
//! happens. The crate's own interpreter has no budget: it copies the whole body into its own
//! values first, and compares or prints shared values element by element (an expression of a few
//! hundred bytes can make it write 2^40 copies of the body).

use std::{collections::HashMap, rc::Rc};

use jmespath::{
    ast::{Ast, Comparator},
    ErrorReason, JmespathError, RuntimeError, Variable,
};

use super::{
    budget::{Budget, Exceeded},
    functions,
    value::{Entries, Kind, Val},
};

#[derive(Debug)]
pub enum EvalError {
    /// A runtime error of the expression, worded as the crate words it.
    Expression(JmespathError),
    Budget(Exceeded),
}

impl From<Exceeded> for EvalError {
    fn from(e: Exceeded) -> Self {
        EvalError::Budget(e)
    }
}

pub struct Eval<'a> {
    expression: &'a str,
    pub budget: Budget<'a>,
    /// Literals of the expression, made into values once each.
    literals: HashMap<*const Ast, Val<'a>>,
}

impl<'a> Eval<'a> {
    pub fn new(expression: &'a str) -> Self {
        Eval { expression, budget: Budget::default(), literals: HashMap::new() }
    }

    pub fn runtime_error(&self, offset: usize, error: RuntimeError) -> EvalError {
        EvalError::Expression(JmespathError::new(self.expression, offset, ErrorReason::Runtime(error)))
    }

    pub fn eval(&mut self, data: &Val<'a>, node: &'a Ast) -> Result<Val<'a>, EvalError> {
        super::deeper(|| self.eval_node(data, node))
    }

    fn eval_node(&mut self, data: &Val<'a>, node: &'a Ast) -> Result<Val<'a>, EvalError> {
        self.budget.charge(1)?;
        Ok(match node {
            Ast::Field { name, .. } => data.field(name),
            Ast::Subexpr { lhs, rhs, .. } => {
                let left = self.eval(data, lhs)?;
                self.eval(&left, rhs)?
            }
            Ast::Identity { .. } => data.clone(),
            Ast::Literal { value, .. } => self.literal(node, value)?,
            Ast::Index { idx, .. } => match data.as_items() {
                Some(items) if *idx >= 0 => items.get(*idx as usize).unwrap_or(Val::Null),
                Some(items) => {
                    let back = (idx.unsigned_abs() as usize).max(1);
                    if items.len() >= back {
                        items.get(items.len() - back).unwrap_or(Val::Null)
                    } else {
                        Val::Null
                    }
                }
                None => Val::Null,
            },
            Ast::Or { lhs, rhs, .. } => {
                let left = self.eval(data, lhs)?;
                if left.is_truthy() {
                    left
                } else {
                    self.eval(data, rhs)?
                }
            }
            Ast::And { lhs, rhs, .. } => {
                let left = self.eval(data, lhs)?;
                if !left.is_truthy() {
                    left
                } else {
                    self.eval(data, rhs)?
                }
            }
            Ast::Not { node, .. } => Val::Bool(!self.eval(data, node)?.is_truthy()),
            Ast::Condition { predicate, then, .. } => {
                if self.eval(data, predicate)?.is_truthy() {
                    self.eval(data, then)?
                } else {
                    Val::Null
                }
            }
            Ast::Comparison { comparator, lhs, rhs, .. } => {
                let left = self.eval(data, lhs)?;
                let right = self.eval(data, rhs)?;
                self.compare(comparator, &left, &right)?
            }
            Ast::ObjectValues { node, .. } => {
                let subject = self.eval(data, node)?;
                match subject.object_entries() {
                    Some(entries) => {
                        self.budget.make_slots(entries.len())?;
                        Val::array(entries.into_iter().map(|(_, v)| v).collect())
                    }
                    None => Val::Null,
                }
            }
            Ast::Projection { lhs, rhs, .. } => {
                let left = self.eval(data, lhs)?;
                match left.as_items() {
                    None => Val::Null,
                    Some(items) => {
                        self.budget.make_slots(items.len())?;
                        let mut collected = Vec::with_capacity(items.len());
                        for element in items.iter() {
                            let current = self.eval(&element, rhs)?;
                            if !current.is_null() {
                                collected.push(current);
                            }
                        }
                        Val::array(collected)
                    }
                }
            }
            Ast::Flatten { node, .. } => {
                let subject = self.eval(data, node)?;
                match subject.as_items() {
                    None => Val::Null,
                    Some(items) => {
                        let mut collected = Vec::new();
                        for element in items.iter() {
                            match element.as_items() {
                                Some(inner) => {
                                    self.budget.make_slots(inner.len())?;
                                    collected.extend(inner.iter());
                                }
                                None => {
                                    self.budget.make_slots(1)?;
                                    collected.push(element.clone());
                                }
                            }
                        }
                        Val::array(collected)
                    }
                }
            }
            Ast::MultiList { elements, .. } => {
                if data.is_null() {
                    Val::Null
                } else {
                    self.budget.make_slots(elements.len())?;
                    let mut collected = Vec::with_capacity(elements.len());
                    for element in elements {
                        collected.push(self.eval(data, element)?);
                    }
                    Val::array(collected)
                }
            }
            Ast::MultiHash { elements, .. } => {
                if data.is_null() {
                    Val::Null
                } else {
                    self.budget.make_slots(elements.len())?;
                    let mut collected = Entries::default();
                    for pair in elements {
                        let value = self.eval(data, &pair.value)?;
                        collected.insert(super::value::Text::Borrowed(pair.key.as_str()), value);
                    }
                    Val::Object(Rc::new(collected))
                }
            }
            Ast::Function { name, args, offset } => {
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.eval(data, arg)?);
                }
                functions::call(self, name, values, *offset)?
            }
            Ast::Expref { ast, .. } => Val::Expref(ast),
            Ast::Slice { start, stop, step, offset } => {
                if *step == 0 {
                    return Err(self.runtime_error(*offset, RuntimeError::InvalidSlice));
                }
                match data.as_items() {
                    Some(items) => {
                        let picks = SlicePicks::new(items.len(), *start, *stop, *step);
                        self.budget.make_slots(picks.len())?;
                        Val::array(picks.filter_map(|i| items.get(i)).collect())
                    }
                    None => Val::Null,
                }
            }
        })
    }

    /// `==` and `!=` on any two values; the ordering comparators on numbers only (else null).
    fn compare(&mut self, comparator: &Comparator, left: &Val<'a>, right: &Val<'a>) -> Result<Val<'a>, EvalError> {
        Ok(match comparator {
            Comparator::Equal => Val::Bool(self.budget.equal(left, right)?),
            Comparator::NotEqual => Val::Bool(!self.budget.equal(left, right)?),
            ordering => match (left.as_f64(), right.as_f64()) {
                (Some(a), Some(b)) => {
                    let order = a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Less);
                    Val::Bool(match ordering {
                        Comparator::LessThan => order.is_lt(),
                        Comparator::LessThanEqual => order.is_le(),
                        Comparator::GreaterThan => order.is_gt(),
                        _ => order.is_ge(),
                    })
                }
                _ => Val::Null,
            },
        })
    }

    /// A literal of the expression as a value, made once per evaluation.
    fn literal(&mut self, node: &'a Ast, value: &Variable) -> Result<Val<'a>, EvalError> {
        if let Some(made) = self.literals.get(&(node as *const Ast)) {
            return Ok(made.clone());
        }
        let made = self.literal_value(value)?;
        self.literals.insert(node as *const Ast, made.clone());
        Ok(made)
    }

    /// The crate's value (a literal of at most the expression's 1,024 bytes) as ours.
    fn literal_value(&mut self, v: &Variable) -> Result<Val<'a>, EvalError> {
        super::deeper(|| self.variable_value(v))
    }

    fn variable_value(&mut self, v: &Variable) -> Result<Val<'a>, EvalError> {
        self.budget.charge(1)?;
        Ok(match v {
            Variable::Null => Val::Null,
            Variable::Bool(b) => Val::Bool(*b),
            Variable::Number(n) => Val::Number(n.clone()),
            Variable::String(s) => {
                self.budget.make(s.len() as u64)?;
                Val::string(s.clone())
            }
            Variable::Array(items) => {
                self.budget.make_slots(items.len())?;
                let mut made = Vec::with_capacity(items.len());
                for item in items {
                    made.push(self.literal_value(item)?);
                }
                Val::array(made)
            }
            Variable::Object(members) => {
                self.budget.make_slots(members.len())?;
                let mut made = Entries::default();
                for (k, item) in members {
                    made.insert(k.clone().into(), self.literal_value(item)?);
                }
                Val::Object(Rc::new(made))
            }
            // A literal is JSON; the parser never makes one of an expression.
            Variable::Expref(_) => Val::Null,
        })
    }

    /// Evaluates an expression reference's AST on `data` (for map, sort_by, min_by, max_by).
    pub fn apply(&mut self, expref: &Val<'a>, data: &Val<'a>) -> Result<Val<'a>, EvalError> {
        match expref {
            Val::Expref(ast) => self.eval(data, ast),
            other => Err(EvalError::Expression(JmespathError::new(
                self.expression,
                0,
                ErrorReason::Parse(format!("Expected an expression, got {}", other.kind())),
            ))),
        }
    }

    pub fn kind_error(&self, offset: usize, expected: String, actual: Kind, position: usize) -> EvalError {
        self.runtime_error(offset, RuntimeError::InvalidType { expected, actual: actual.to_string(), position })
    }
}

/// The indices a slice picks from an array (jmespath's slice rules, as Python's), counted
/// before any is taken.
struct SlicePicks {
    next: i64,
    end: i64,
    step: i64,
}

impl SlicePicks {
    fn new(len: usize, start: Option<i32>, stop: Option<i32>, step: i32) -> Self {
        let (len, step) = (len as i64, step as i64);
        let adjust = |endpoint: i64| -> i64 {
            if endpoint < 0 {
                let e = endpoint + len;
                if e >= 0 {
                    e
                } else if step < 0 {
                    -1
                } else {
                    0
                }
            } else if endpoint < len {
                endpoint
            } else if step < 0 {
                len - 1
            } else {
                len
            }
        };
        if len == 0 {
            return SlicePicks { next: 0, end: 0, step };
        }
        let next = match start {
            Some(s) => adjust(s as i64),
            None if step < 0 => len - 1,
            None => 0,
        };
        let end = match stop {
            Some(s) => adjust(s as i64),
            None if step < 0 => -1,
            None => len,
        };
        SlicePicks { next, end, step }
    }

    fn len(&self) -> usize {
        let span = if self.step > 0 { self.end - self.next } else { self.next - self.end };
        let stride = self.step.abs();
        if span <= 0 {
            0
        } else {
            ((span + stride - 1) / stride) as usize
        }
    }
}

impl Iterator for SlicePicks {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        let more = if self.step > 0 { self.next < self.end } else { self.next > self.end };
        if !more {
            return None;
        }
        let i = self.next;
        self.next += self.step;
        Some(i as usize)
    }
}
