//! Random small Toy programs for the compaction property test: integer
//! variables, a bool flag that guards nested `if`s on the same condition,
//! bounded loops with `break`/`continue`, calls, prints and an exit code.

use crate::ssa_support::Rng;

/// Random Toy source: integer variables, a bool flag that guards nested
/// `if`s on the same condition (so the inner branch's condition is known),
/// bounded loops with `break`/`continue`, calls, prints and an exit code.
struct SrcGen {
    rng: Rng,
    budget: u32,
    loop_depth: u32,
    out: String,
}

impl SrcGen {
    fn atom(&mut self, vars: &[&str]) -> String {
        if self.rng.chance(55) {
            vars[self.rng.below(vars.len() as u64) as usize].to_string()
        } else {
            (self.rng.below(11) as i64 - 3).to_string()
        }
    }
    fn int_expr(&mut self, vars: &[&str], depth: u32) -> String {
        if depth == 0 || self.rng.chance(30) {
            return self.atom(vars);
        }
        let a = self.int_expr(vars, depth - 1);
        let b = self.int_expr(vars, depth - 1);
        match self.rng.below(9) {
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} / ({b} | 1))"),
            4 => format!("({a} & {b})"),
            5 => format!("({a} ^ {b})"),
            6 => format!("g({a}, {b})"),
            7 => format!("(-{a})"),
            _ => format!("({a} % 7)"),
        }
    }
    fn cond(&mut self, vars: &[&str]) -> String {
        match self.rng.below(6) {
            0 | 1 => "b".to_string(),
            2 => format!("!b && {} < {}", self.atom(vars), self.atom(vars)),
            _ => {
                let ops = ["<", "<=", "==", "!=", ">", ">="];
                let op = ops[self.rng.below(6) as usize];
                format!("{} {op} {}", self.int_expr(vars, 1), self.int_expr(vars, 1))
            }
        }
    }
    fn line(&mut self, indent: usize, s: &str) {
        self.out.push_str(&"    ".repeat(indent));
        self.out.push_str(s);
        self.out.push('\n');
    }
    fn block(&mut self, vars: &[&str], indent: usize, depth: u32) {
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            self.stmt(vars, indent, depth);
        }
    }
    fn stmt(&mut self, vars: &[&str], indent: usize, depth: u32) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let k = self.rng.below(if depth == 0 { 4 } else { 9 });
        match k {
            0 | 1 => {
                let v = ["x0", "x1", "x2"][self.rng.below(3) as usize];
                let e = self.int_expr(vars, 2);
                self.line(indent, &format!("{v} = {e};"));
            }
            2 => {
                let e = self.int_expr(vars, 1);
                self.line(indent, &format!("print({e});"));
            }
            3 => {
                let c = self.cond(vars);
                self.line(indent, &format!("b = {c};"));
            }
            4 | 5 => {
                let c = self.cond(vars);
                self.line(indent, &format!("if {c} {{"));
                // Test the same flag again inside: its value is known there.
                if self.rng.chance(50) {
                    self.line(indent + 1, "if b {");
                    self.block(vars, indent + 2, depth - 1);
                    self.line(indent + 1, "} else {");
                    self.block(vars, indent + 2, depth - 1);
                    self.line(indent + 1, "}");
                }
                self.block(vars, indent + 1, depth - 1);
                if self.rng.chance(50) {
                    self.line(indent, "} else {");
                    self.block(vars, indent + 1, depth - 1);
                }
                self.line(indent, "}");
            }
            6 | 7 => {
                let i = format!("i{}", self.loop_depth);
                let hi = self.rng.below(5);
                self.line(indent, &format!("for {i} in 0..{hi} {{"));
                self.loop_depth += 1;
                let mut inner: Vec<&str> = vars.to_vec();
                inner.push(&i);
                if self.rng.chance(40) {
                    let c = self.cond(&inner);
                    let exit = if self.rng.chance(50) {
                        "break;"
                    } else {
                        "continue;"
                    };
                    self.line(indent + 1, &format!("if {c} {{ {exit} }}"));
                }
                self.block(&inner, indent + 1, depth - 1);
                self.loop_depth -= 1;
                self.line(indent, "}");
            }
            _ => {
                let c = self.cond(vars);
                let e = self.int_expr(vars, 1);
                self.line(indent, &format!("if {c} {{ return {e} & 63; }}"));
            }
        }
    }
}

pub(super) fn random_source(seed: u64) -> String {
    let mut g = SrcGen {
        rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        budget: 30,
        loop_depth: 0,
        out: String::new(),
    };
    g.out.push_str("fn g(p: int, q: int) -> int {\n    if p < q { return p * 3 - q; }\n    return q + (p / 2);\n}\n\n");
    g.out.push_str("fn main() -> int {\n");
    let start = if seed % 2 == 1 { "len(args())" } else { "0" };
    g.out.push_str(&format!("    var x0 = {start} + 1;\n    var x1 = {start} + 2;\n    var x2 = 3;\n    var b = x0 < 2;\n"));
    let vars = ["x0", "x1", "x2"];
    g.block(&vars, 1, 3);
    g.block(&vars, 1, 2);
    g.out
        .push_str("    print(x0, x1, x2, b);\n    return x0 & 63;\n}\n");
    g.out
}

// ------------------------------------------------------------------- edits
