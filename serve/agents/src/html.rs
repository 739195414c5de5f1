//! Server-rendered pages (consent, dashboard, status): escaping, one layout, and the headers every
//! page carries. No external assets, no scripts, not frameable.

use poem::{http::StatusCode, Response};

/// A table cell labelled with its column, so a narrow screen shows each row as a labelled card.
pub fn cell(label: &str, content: &str) -> String {
    classed_cell(label, "", content)
}

/// [`cell`] with a class (the status page colours a state's cell by its name).
pub fn classed_cell(label: &str, class: &str, content: &str) -> String {
    let class = if class.is_empty() { String::new() } else { format!(" class=\"{}\"", escape(class)) };
    format!("<td{class} data-label=\"{}\">{content}</td>", escape(label))
}

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:48rem;margin:1.5rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}\
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}ul{padding-left:1.2rem}\
label{display:block;margin:1rem 0 .3rem;font-weight:600}\
input[type=password],input[type=text],input[type=url],input[type=datetime-local]{width:100%;max-width:28rem;padding:.5rem;font-size:1rem;box-sizing:border-box}\
.actions{display:flex;gap:.75rem;margin-top:1rem;flex-wrap:wrap}.actions form{margin:0}\
label.check{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.3rem 0}details{margin-top:1rem}summary{cursor:pointer}button{padding:.5rem 1rem;font-size:1rem;cursor:pointer}\
.error{color:#a4000f;font-weight:600}.note{background:#fff6d6;padding:.75rem;border-radius:.4rem;word-break:break-all}\
.host{color:#555}table{border-collapse:collapse;width:100%;font-size:.95rem}th,td{text-align:left;padding:.4rem;border-bottom:1px solid #ddd;vertical-align:top}\
.table{overflow-x:auto}.fresh{color:#0a6b2d}.stale{color:#8a5a00}.frozen{color:#5b3d99}.unavailable{color:#a4000f}\
header{display:flex;justify-content:space-between;align-items:center;gap:1rem;flex-wrap:wrap}\
body:has(.wide-page){max-width:80rem}.nowrap{white-space:nowrap}\
@media (max-width:40rem){.table table,.table tbody,.table tr,.table td{display:block}.table thead{position:absolute;left:-9999px}\
.table tr{border-bottom:1px solid #ddd;padding:.4rem 0}.table td{border:none;padding:.15rem 0}\
.table td[data-label]:not([data-label=\"\"])::before{content:attr(data-label) \": \";font-weight:600}}";

/// A complete page with the security headers of SUPPLEMENT 5.8.
pub fn document(status: StatusCode, title: &str, body: &str) -> Response {
    let page = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{title}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>\n",
        title = escape(title)
    );
    Response::builder()
        .status(status)
        .content_type("text/html; charset=utf-8")
        .header("x-frame-options", "DENY")
        .header("cache-control", "no-store")
        .header(
            "content-security-policy",
            "default-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
        )
        .header("referrer-policy", "same-origin")
        .header("x-content-type-options", "nosniff")
        .body(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_users_and_clients_name_things() {
        assert_eq!(escape("<script>\"x\"&'"), "&lt;script&gt;&quot;x&quot;&amp;&#39;");
    }
}
