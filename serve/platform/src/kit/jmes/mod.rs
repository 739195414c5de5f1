//! jmespath projection of a rendered GET body (SUPPLEMENT 1.9): 1024-byte expression cap, 256 KB
//! output cap, the `_jmespath_error` envelope with `original_keys`.
//!
//! The expression is parsed by the `jmespath` crate and evaluated here ([`eval`]), within a fixed
//! budget of steps and of memory made ([`budget`]), decided while it runs: the crate's own
//! evaluation could be made to compare or print 2^40 copies of the body by a few hundred bytes.
//! The result's exact size is measured before a byte of it is written ([`render`]). An evaluation
//! past its budget is refused as `invalid_expression` (SUPPLEMENT 1.9 names no kind for it; the
//! expression is what cannot be served).

mod budget;
mod eval;
mod functions;
mod render;
mod value;

use serde_json::Value;

use super::error::ApiError;
use eval::{Eval, EvalError};
use value::Val;

pub use budget::{MAX_MADE_BYTES, MAX_STEPS};

pub const MAX_EXPRESSION_BYTES: usize = 1024;

/// Runs `f` with at least [`STACK_HEADROOM`] of stack, on a fresh segment when less is left: the
/// depth of the evaluator's recursion is the expression's and the result's nesting, which a caller
/// chooses (1,024 bytes of `!` or `[` nest 1,023 levels).
fn deeper<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_HEADROOM, STACK_SEGMENT, f)
}
const STACK_HEADROOM: usize = 128 << 10;
const STACK_SEGMENT: usize = 2 << 20;
/// The crate's parser recurses once per nesting level, about a kilobyte each when optimised (and
/// several times that unoptimised): it always gets a segment this large of its own.
const PARSER_STACK: usize = 16 << 20;
pub const MAX_OUTPUT_BYTES: usize = 262_144;

fn original_keys(v: &Value) -> Vec<String> {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<String> = m.keys().take(50).cloned().collect();
            if m.len() > 50 {
                keys.push(format!("...<{} more>", m.len() - 50));
            }
            keys
        }
        Value::Array(a) => vec![format!("<array length={}>", a.len())],
        Value::String(_) => vec!["string".into()],
        Value::Number(_) => vec!["number".into()],
        Value::Bool(_) => vec!["boolean".into()],
        Value::Null => vec!["null".into()],
    }
}

/// What an evaluation cost: steps taken and bytes made (for tests and the fuzz target).
#[derive(Debug, Clone, Copy)]
pub struct Cost {
    pub steps: u64,
    pub made: u64,
}

/// Projects `body` with `expression`; returns the serialised projection.
pub fn project(expression: &str, body: &Value) -> Result<Vec<u8>, ApiError> {
    project_costed(expression, body).0
}

/// [`project`], and what it cost.
pub fn project_costed(expression: &str, body: &Value) -> (Result<Vec<u8>, ApiError>, Cost) {
    let fail = |error: String| ApiError::Jmespath { error, original_keys: original_keys(body) };
    if expression.len() > MAX_EXPRESSION_BYTES {
        let error = fail(format!("expression_too_long: {} > {MAX_EXPRESSION_BYTES}", expression.len()));
        return (Err(error), Cost { steps: 0, made: 0 });
    }
    let ast = match stacker::maybe_grow(PARSER_STACK / 2, PARSER_STACK, || jmespath::parse(expression)) {
        Ok(ast) => ast,
        Err(e) => return (Err(fail(format!("invalid_expression: {e}"))), Cost { steps: 0, made: 0 }),
    };
    let mut eval = Eval::new(expression);
    let result = evaluate(&mut eval, &ast, body).map_err(|e| match e {
        Refused::Expression(e) => fail(format!("invalid_expression: {e}")),
        Refused::Budget(e) => fail(format!("invalid_expression: {e}")),
        Refused::TooLarge(bytes) => fail(format!("projection_too_large: {bytes} > {MAX_OUTPUT_BYTES}")),
        Refused::NotJson => fail("invalid_expression: an expression reference is not a JSON value".into()),
    });
    (result, Cost { steps: eval.budget.steps(), made: eval.budget.made() })
}

enum Refused {
    Expression(jmespath::JmespathError),
    Budget(budget::Exceeded),
    TooLarge(u64),
    NotJson,
}

impl From<EvalError> for Refused {
    fn from(e: EvalError) -> Self {
        match e {
            EvalError::Expression(e) => Refused::Expression(e),
            EvalError::Budget(e) => Refused::Budget(e),
        }
    }
}

fn evaluate<'a>(eval: &mut Eval<'a>, ast: &'a jmespath::ast::Ast, body: &'a Value) -> Result<Vec<u8>, Refused> {
    let result = eval.eval(&Val::Json(body), ast)?;
    let bytes = eval.budget.weight(&result).map_err(Refused::Budget)?;
    if bytes > MAX_OUTPUT_BYTES as u64 {
        return Err(Refused::TooLarge(bytes));
    }
    render::write(&result, bytes as usize).map_err(|_| Refused::NotJson)
}

#[cfg(test)]
mod tests;
