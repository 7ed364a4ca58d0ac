//! `toyc explore` in a real headless browser (Chromium through the DevTools
//! protocol, `headless_chrome`): the page of `examples/primes.toy` is
//! loaded from a file, its script runs, and the checks below read the DOM
//! the script left. A broken script fails them: nothing is marked, and
//! `data-ready` never appears.
//!
//! Chromium is required: without it this test fails (CI installs it,
//! `.ci/run`). `CHROME=/path/to/chromium` picks another binary.
//! The screenshot of the page goes to `target/explorer-screenshot.png`;
//! with `TOYC_BLESS=1` also to `docs/explorer.png`.

use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// The Chromium binary: `$CHROME`, else `chromium` or `chromium-browser`
/// on `PATH`.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("CHROME") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    panic!(
        "the explorer test needs Chromium, and none was found on PATH (nor $CHROME): \
         install it (`apt-get install -y chromium`; .ci/run does this)"
    );
}

fn write_page(file: &str, func: &str, out: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(["explore", file, "--fn", func, "-o"])
        .arg(out)
        .status()
        .expect("run toyc explore");
    assert!(status.success(), "toyc explore failed");
}

/// Runs `js` (an expression) in the page and returns its value, passed
/// through `JSON.stringify` (objects come back whole).
fn eval(tab: &Tab, js: &str) -> serde_json::Value {
    let json = tab
        .evaluate(&format!("JSON.stringify({js})"), false)
        .unwrap_or_else(|e| panic!("evaluating {js}: {e}"))
        .value;
    match json.as_ref().and_then(|v| v.as_str()) {
        Some(text) => {
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{js} gave {text}: {e}"))
        }
        None => serde_json::Value::Null,
    }
}

/// Scrolls the element `selector` names to the middle of the window (clear
/// of the sticky source column and header), then returns it, for a real
/// mouse click or hover at its position.
fn centred<'a>(tab: &'a Tab, selector: &str) -> headless_chrome::Element<'a> {
    let quoted = serde_json::Value::String(selector.to_string());
    eval(
        tab,
        &format!(
            "(() => {{ document.querySelector({quoted}).scrollIntoView({{block: 'center', inline: 'center'}}); return 0; }})()"
        ),
    );
    tab.find_element(selector)
        .unwrap_or_else(|e| panic!("no element {selector}: {e}"))
}

fn open(path: &Path) -> (Browser, Arc<Tab>) {
    let options = LaunchOptions::default_builder()
        .path(Some(chromium()))
        .sandbox(false)
        .window_size(Some((2000, 1100)))
        .idle_browser_timeout(Duration::from_secs(120))
        .build()
        .expect("launch options");
    let browser = Browser::new(options).expect("start Chromium");
    let tab = browser.new_tab().expect("a tab");
    let url = format!("file://{}", path.display());
    tab.navigate_to(&url)
        .and_then(|t| t.wait_until_navigated())
        .expect("load the page");
    tab.wait_for_element("body[data-ready='1']")
        .expect("the page's script ran to its end");
    (browser, tab)
}

#[test]
fn explorer_page_marks_values_and_lines_across_columns() {
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    let page = target.join("explorer-test-primes.html");
    write_page("examples/primes.toy", "sieve", &page);
    let (_browser, tab) = open(&page);

    // The columns: source, construction, at least one pass, MemorySSA,
    // CLIF, machine code; each IR column with its CFG drawing.
    let cols = eval(
        &tab,
        "Array.from(document.querySelectorAll('section.fn:not([hidden]) > .col'))\
         .map(c => c.dataset.col).join(' ')",
    );
    let cols = cols.as_str().expect("column ids").to_string();
    let ids: Vec<&str> = cols.split(' ').collect();
    assert_eq!(ids.first(), Some(&"source"), "{cols}");
    assert_eq!(ids.get(1), Some(&"start"), "{cols}");
    assert!(ids.iter().any(|c| c.starts_with("pass-")), "{cols}");
    assert_eq!(
        &ids[ids.len() - 3..],
        ["memssa", "clif", "machine"],
        "{cols}"
    );
    let svgs = eval(
        &tab,
        "document.querySelectorAll('section.fn:not([hidden]) svg.cfg').length",
    );
    assert_eq!(
        svgs.as_u64(),
        Some(ids.len() as u64 - 2),
        "one CFG per column but source and machine code"
    );

    // A value of the last pass column that the MemorySSA column (the same
    // IR) shows too: click it in the pass column.
    let last_pass = ids[ids.len() - 4];
    let key = eval(
        &tab,
        &format!(
            "Array.from(document.querySelectorAll(\"[data-col='{last_pass}'] .code .tok\"))\
             .map(t => t.dataset.k).find(k => k.startsWith('%'))"
        ),
    );
    let key = key
        .as_str()
        .expect("a value in the last pass column")
        .to_string();
    centred(
        &tab,
        &format!("[data-col='{last_pass}'] .code .tok[data-k='{key}']"),
    )
    .click()
    .expect("click the value");
    let marked = eval(
        &tab,
        &format!(
            "(() => {{ const s = document.querySelector('section.fn:not([hidden])');\
             const all = Array.from(s.querySelectorAll(\".tok[data-k='{key}']\"));\
             const cols = new Set(all.map(t => t.closest('.col').dataset.col));\
             return {{ cols: Array.from(cols).join(' '),\
                       unmarked: all.filter(t => !t.classList.contains('hl0')).length,\
                       others: s.querySelectorAll('.tok.hl0:not([data-k=\"{key}\"])').length }}; }})()"
        ),
    );
    let marked_cols = marked["cols"].as_str().unwrap_or("");
    assert!(
        marked_cols.contains(last_pass) && marked_cols.contains("memssa"),
        "{key} should be marked in {last_pass} and memssa: {marked}"
    );
    assert_eq!(
        marked["unmarked"].as_u64(),
        Some(0),
        "every {key} marked: {marked}"
    );
    assert_eq!(
        marked["others"].as_u64(),
        Some(0),
        "only {key} marked: {marked}"
    );

    // Hovering a source line marks the statements from it in every IR
    // column, and nothing from other lines.
    let line = eval(
        &tab,
        "document.querySelector(\"section.fn:not([hidden]) [data-col='start'] .code .row[data-line]\").dataset.line",
    );
    let line = line.as_str().expect("an IR row with a line").to_string();
    centred(
        &tab,
        &format!("section.fn:not([hidden]) .source .row[data-line='{line}']"),
    )
    .move_mouse_over()
    .expect("hover the source line");
    let lit = eval(
        &tab,
        &format!(
            "(() => {{ const s = document.querySelector('section.fn:not([hidden])');\
             const lit = Array.from(s.querySelectorAll('.hl-line'));\
             return {{ wrong: lit.filter(r => r.dataset.line !== '{line}').length,\
                       start: s.querySelectorAll(\"[data-col='start'] .row.hl-line\").length,\
                       should: s.querySelectorAll(\"[data-col='start'] .row[data-line='{line}']\").length }}; }})()"
        ),
    );
    assert_eq!(lit["wrong"].as_u64(), Some(0), "{lit}");
    assert!(lit["start"].as_u64().unwrap_or(0) > 0, "{lit}");
    assert_eq!(lit["start"], lit["should"], "{lit}");

    // The reverse: hovering a statement marks its source line.
    let ir_line = eval(
        &tab,
        "Array.from(document.querySelectorAll(\"section.fn:not([hidden]) [data-col='memssa'] .row[data-line]\"))\
         .map(r => r.dataset.line).pop()",
    );
    let ir_line = ir_line
        .as_str()
        .expect("a MemorySSA row with a line")
        .to_string();
    centred(
        &tab,
        &format!("section.fn:not([hidden]) [data-col='memssa'] .row[data-line='{ir_line}']"),
    )
    .move_mouse_over()
    .expect("hover the statement");
    let source_lit = eval(
        &tab,
        "Array.from(document.querySelectorAll('section.fn:not([hidden]) .source .row.hl-line'))\
         .map(r => r.dataset.line).join(' ')",
    );
    assert_eq!(source_lit.as_str(), Some(ir_line.as_str()));

    // A second click unmarks.
    centred(
        &tab,
        &format!("[data-col='{last_pass}'] .code .tok[data-k='{key}']"),
    )
    .click()
    .expect("click the value again");
    let still = eval(
        &tab,
        "document.querySelectorAll('.hl0, .hl1, .hl2, .hl3').length",
    );
    assert_eq!(still.as_u64(), Some(0), "{key} unmarked");

    // The screenshot: from the top left, the array `%3` marked, the source
    // line of the store in the inner loop hovered.
    eval(
        &tab,
        "(() => { window.scrollTo(0, 0); document.querySelectorAll('.col').forEach(c => c.scrollTop = 0); return 0; })()",
    );
    centred(
        &tab,
        "section.fn:not([hidden]) [data-col='start'] .code .tok[data-k='%3']",
    )
    .click()
    .expect("mark %3 after construction");
    centred(
        &tab,
        "section.fn:not([hidden]) .source .row[data-line='16']",
    )
    .move_mouse_over()
    .expect("hover line 16");
    eval(&tab, "(() => { window.scrollTo(0, 0); return 0; })()");
    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .expect("screenshot");
    std::fs::write(target.join("explorer-screenshot.png"), &png).expect("write the screenshot");
    if std::env::var_os("TOYC_BLESS").is_some_and(|v| v == "1") {
        let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/explorer.png");
        std::fs::write(docs, &png).expect("write docs/explorer.png");
    }
}

/// The function picker shows one function at a time.
#[test]
fn explorer_function_picker_switches_functions() {
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    let page = target.join("explorer-test-fib.html");
    let status = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(["explore", "examples/fib.toy", "-o"])
        .arg(&page)
        .status()
        .expect("run toyc explore");
    assert!(status.success());
    let (_browser, tab) = open(&page);
    let shown = |tab: &Tab| {
        eval(
            tab,
            "Array.from(document.querySelectorAll('section.fn:not([hidden])')).map(s => s.dataset.fn).join(' ')",
        )
    };
    assert_eq!(shown(&tab).as_str(), Some("main"));
    eval(
        &tab,
        "(() => { const p = document.getElementById('fn-picker'); p.value = 'fib';\
         p.dispatchEvent(new Event('change')); return 0; })()",
    );
    assert_eq!(shown(&tab).as_str(), Some("fib"));
}
