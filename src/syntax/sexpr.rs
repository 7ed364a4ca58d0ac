//! A compact S-expression rendering of the AST (no spans), for tests and
//! debugging: `(+ 1 (* 2 3))`, `(if c { (expr (call f x)) } { })`.

use super::ast::*;
use std::fmt::Write;

pub fn module(m: &Module) -> String {
    let items: Vec<String> = m.items.iter().map(item).collect();
    items.join("\n")
}

pub fn item(i: &Item) -> String {
    match i {
        Item::Import(i) => format!("(import {})", i.name.name),
        Item::Struct(s) => {
            let mut out = format!("(struct {}", s.name.name);
            for f in &s.fields {
                let _ = write!(out, " ({} {})", f.name.name, ty(&f.ty));
            }
            out + ")"
        }
        Item::Fn(f) => {
            let params: Vec<String> = f
                .params
                .iter()
                .map(|p| format!("({} {})", p.name.name, ty(&p.ty)))
                .collect();
            let ret = f.ret.as_ref().map_or("_".to_string(), ty);
            format!(
                "(fn {} ({}) {} {})",
                f.name.name,
                params.join(" "),
                ret,
                block(&f.body)
            )
        }
        Item::Global(g) => {
            let kw = if g.mutable { "var" } else { "let" };
            let t = g.ty.as_ref().map_or("_".to_string(), ty);
            format!("({kw} {} {t} {})", g.name.name, expr(&g.init))
        }
    }
}

pub fn ty(t: &TypeExpr) -> String {
    match &t.kind {
        TypeExprKind::Named(n) => n.name.clone(),
        TypeExprKind::Qualified(q) => format!("{}.{}", q.0.name, q.1.name),
        TypeExprKind::Array(e) => format!("[{}]", ty(e)),
        TypeExprKind::Error => "<error>".into(),
    }
}

pub fn block(b: &Block) -> String {
    if b.stmts.is_empty() {
        return "{ }".into();
    }
    let stmts: Vec<String> = b.stmts.iter().map(stmt).collect();
    format!("{{ {} }}", stmts.join(" "))
}

fn label(l: &Option<Label>) -> String {
    l.as_ref()
        .map_or(String::new(), |l| format!(" '{}", l.name))
}

pub fn stmt(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Let {
            mutable,
            name,
            ty: t,
            init,
        } => {
            let kw = if *mutable { "var" } else { "let" };
            let t = t.as_ref().map_or("_".to_string(), ty);
            format!("({kw} {} {t} {})", name.name, expr(init))
        }
        StmtKind::Assign { target, op, value } => {
            let op = op.map_or("=".to_string(), |op| format!("{}=", op.symbol()));
            format!("({op} {} {})", expr(target), expr(value))
        }
        StmtKind::Expr(e) => format!("(expr {})", expr(e)),
        StmtKind::If {
            cond,
            then_block,
            else_block,
        } => match else_block {
            Some(e) => format!("(if {} {} {})", expr(cond), block(then_block), block(e)),
            None => format!("(if {} {})", expr(cond), block(then_block)),
        },
        StmtKind::While {
            label: l,
            cond,
            body,
        } => format!("(while{} {} {})", label(l), expr(cond), block(body)),
        StmtKind::ForRange(f) => {
            format!(
                "(for{} {} {} {} {})",
                label(&f.label),
                f.var.name,
                expr(&f.start),
                expr(&f.end),
                block(&f.body)
            )
        }
        StmtKind::ForEach {
            label: l,
            var,
            iter,
            body,
        } => {
            format!(
                "(foreach{} {} {} {})",
                label(l),
                var.name,
                expr(iter),
                block(body)
            )
        }
        StmtKind::Break { label: l } => format!("(break{})", label(l)),
        StmtKind::Continue { label: l } => format!("(continue{})", label(l)),
        StmtKind::Return(None) => "(return)".into(),
        StmtKind::Return(Some(e)) => format!("(return {})", expr(e)),
        StmtKind::Throw(e) => format!("(throw {})", expr(e)),
        StmtKind::Try { body, var, handler } => {
            format!("(try {} {} {})", block(body), var.name, block(handler))
        }
        StmtKind::Block(b) => block(b),
        StmtKind::Error => "<error>".into(),
    }
}

pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Float(v) => format!("{v:?}"),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Nil => "nil".into(),
        ExprKind::Name(n) => n.name.clone(),
        ExprKind::Field(e, f) => format!("(. {} {})", expr(e), f.name),
        ExprKind::Call(f, args) => {
            let mut out = format!("(call {}", expr(f));
            for a in args {
                let _ = write!(out, " {}", expr(a));
            }
            out + ")"
        }
        ExprKind::Index(a, i) => format!("(index {} {})", expr(a), expr(i)),
        ExprKind::Unary(op, e) => {
            let op = match op {
                UnOp::Neg => "-",
                UnOp::Not => "!",
            };
            format!("({op} {})", expr(e))
        }
        ExprKind::Binary(op, l, r) => format!("({} {} {})", op.symbol(), expr(l), expr(r)),
        ExprKind::ArrayLit(items) => {
            let items: Vec<String> = items.iter().map(expr).collect();
            format!("[{}]", items.join(" "))
        }
        ExprKind::ArrayRepeat(v, n) => format!("[{}; {}]", expr(v), expr(n)),
        ExprKind::StructLit(lit) => {
            let mut out = match &lit.module {
                Some(m) => format!("(struct {}.{}", m.name, lit.name.name),
                None => format!("(struct {}", lit.name.name),
            };
            for (f, v) in &lit.fields {
                let _ = write!(out, " ({} {})", f.name, expr(v));
            }
            out + ")"
        }
        ExprKind::Error => "<error>".into(),
    }
}
