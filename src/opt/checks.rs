//! Check elimination: folds a runtime check (a `goto #cold if not %c` whose
//! target raises `index_out_of_bounds`, `nil_dereference` or
//! `division_by_zero`) to its fast path when the facts dominating it imply
//! `%c`. The facts are π facts placed by
//! [`pi_insert::place_pis`](crate::opt::pi_insert::place_pis) but never put
//! in the stream: the queries look them up among the placed nodes, and the
//! pass withdraws them before its one compaction (which folds the removed
//! checks' branches), so it leaves no π behind and costs no compaction
//! when nothing is removed. Remarks describe the function without πs. A
//! function without a check is left as it is.
//!
//! What implies what (each rule sound on every execution reaching the check):
//! - bounds `i <ᵤ n`: `0 <= i` ([`Facts::lower`]) and `i < n` ([`Facts::lt`]),
//!   or `0 <= i` and a dominating edge on which `i <= m` held, with `n` the
//!   length `m + 1` (`while j <= n` over `[false; n + 1]`,
//!   [`Facts::le_known_below`]);
//!   or constant ranges of `i` and `n` (`a[i*20 + j]` of `[0; 200]`,
//!   `t[h & 7]` or `t[h % 8]` with `h >= 0` of `[0; 8]`); or
//!   `i*m + j` with `0 <= i < p`, `0 <= j < m` and `n` the length `p*m` of
//!   a fresh array, the product shown not to wrap ([`affine`]);
//! - nil `p != nil`: a `NonNil` π on `p`'s chain, or `p` is an allocation;
//! - division `d != 0`: a constant lower bound `>= 1`, a π `d < c` with
//!   `c <= 0`, a nonzero constant, or `a | b` with `a` or `b` nonzero;
//! - any check: a dominating edge on which the same comparison (of the same
//!   values up to π) was true, or its negation false.
//!
//! Lengths: `len(a)` loads of one array are treated as equal, and the length
//! of `new [T](len n)` as `n`, only when nothing in the function may change
//! the length of a `[T]` array: no `push`/`pop` of a `[T]`, no store to a
//! length, no call whose summary may write `[T]` lengths
//! ([`crate::memssa::alias`]). This is flow-insensitive and conservative.

use crate::ir::FxMap;
use crate::ir::{BinaryOp, BlockId, Cmp, Fact, Inst, IrCode, Loc, Operand, RaiseKind, Type, Value};
use crate::memssa::alias::{Class, Effect, Summaries, inst_effect};
use crate::opt::PassCtx;
use crate::opt::pi_insert::{self, PlacedPis};
use crate::opt::remarks::{Describe, Msg, RemarkKind};
use crate::span::Span;
use std::collections::BTreeSet;

mod affine;

/// How deep the fact queries recurse (bounds the work per check).
const MAX_DEPTH: u32 = 24;

/// Which array lengths may change in the function.
struct Unstable {
    all: bool,
    elems: BTreeSet<Type>,
}

impl Unstable {
    fn of(ir: &IrCode, sums: &Summaries) -> Unstable {
        let mut u = Unstable {
            all: false,
            elems: BTreeSet::new(),
        };
        for (i, inst) in ir.stmts.inst.iter() {
            if matches!(inst, Inst::NewArray { .. } | Inst::Load { .. }) {
                continue;
            }
            let Some(e) = inst_effect(ir, i, inst, sums) else {
                continue;
            };
            match e.writes {
                Effect::None => {}
                Effect::Classes(cs) => {
                    if cs.all {
                        u.all = true;
                    }
                    for c in cs.set {
                        if let Class::Len(k) = c {
                            u.elems.insert(k);
                        }
                    }
                }
                Effect::Locs(ls) => {
                    for l in ls {
                        if let Class::Len(k) = l.class {
                            u.elems.insert(k);
                        }
                    }
                }
            }
        }
        u
    }
    fn stable(&self, ir: &IrCode, array: &Operand) -> bool {
        if self.all {
            return false;
        }
        match ir.operand_type(array) {
            Some(Type::Array(e)) => !self.elems.contains(&e),
            _ => false,
        }
    }
}

/// A canonical name for an int value, for equality of bounds.
#[derive(Clone, Debug, PartialEq)]
enum Key {
    Op(Operand),
    /// The (stable) length of this array object.
    LenOf(Operand),
}

struct Facts<'a> {
    ir: &'a IrCode,
    /// The πs placed for this pass (operands may name them).
    pis: &'a PlacedPis,
    unstable: Unstable,
    /// Nodes [`Facts::range`] may still visit for the current check.
    range_fuel: std::cell::Cell<u32>,
}

impl<'a> Facts<'a> {
    fn inst(&self, o: &Operand) -> Option<&'a Inst> {
        match o {
            Operand::Value(v) => self.pis.inst(self.ir, *v),
            _ => None,
        }
    }

    /// `o` with copies and πs looked through.
    fn root(&self, o: Operand) -> Operand {
        let mut o = o;
        for _ in 0..64 {
            match self.inst(&o) {
                Some(Inst::Pi { value, .. }) | Some(Inst::Copy(value)) => o = *value,
                _ => break,
            }
        }
        o
    }

    /// The facts on `o`'s π chain, innermost first.
    fn chain(&self, o: Operand) -> Vec<&'a Fact> {
        let mut out = Vec::new();
        let mut o = o;
        for _ in 0..64 {
            match self.inst(&o) {
                Some(Inst::Pi { value, fact }) => {
                    out.push(fact);
                    o = *value;
                }
                Some(Inst::Copy(value)) => o = *value,
                _ => break,
            }
        }
        out
    }

    fn key(&self, o: Operand, depth: u32) -> Key {
        let r = self.root(o);
        if depth < MAX_DEPTH
            && let Some(Inst::Load {
                loc: Loc::ArrayLen,
                base: Some(b),
                ..
            }) = self.inst(&r)
        {
            let base = self.root(*b);
            if self.unstable.stable(self.ir, &base) {
                if let Some(Inst::NewArray { len, .. }) = self.inst(&base) {
                    return self.key(*len, depth + 1);
                }
                return Key::LenOf(base);
            }
        }
        Key::Op(r)
    }

    /// A constant lower bound of the int `o`.
    fn lower(&self, o: Operand, depth: u32) -> Option<i64> {
        if depth > MAX_DEPTH {
            return None;
        }
        match o {
            Operand::Int(c) => return Some(c),
            Operand::Value(_) => {}
            _ => return None,
        }
        match self.inst(&o)? {
            Inst::Copy(a) => self.lower(*a, depth + 1),
            Inst::Pi { value, fact } => {
                let inner = self.lower(*value, depth + 1);
                let own = match fact {
                    Fact::Range { lo: Some(l), .. } => self.lower(*l, depth + 1),
                    _ => None,
                };
                match (inner, own) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                }
            }
            Inst::Load {
                loc: Loc::ArrayLen, ..
            } => Some(0),
            // `x + 1` cannot wrap when `x` has an upper bound.
            Inst::Binary(BinaryOp::IAdd, x, Operand::Int(1)) if self.bounded_above(*x) => {
                self.lower(*x, depth + 1).and_then(|l| l.checked_add(1))
            }
            Inst::Phi { values, .. } => {
                let mut best: Option<i64> = None;
                for v in values {
                    if self.is_bounded_increment_of(*v, o) {
                        continue;
                    }
                    let l = self.lower(*v, depth + 1)?;
                    best = Some(best.map_or(l, |b: i64| b.min(l)));
                }
                best
            }
            _ => None,
        }
    }

    /// Whether `v` is `x + 1` where `x` is `phi` under a π with an upper
    /// bound (so the add cannot wrap and the value only grows).
    fn is_bounded_increment_of(&self, v: Operand, phi: Operand) -> bool {
        let Some(Inst::Binary(BinaryOp::IAdd, a, b)) = self.inst(&v) else {
            return false;
        };
        let x = match (a, b) {
            (x, Operand::Int(1)) | (Operand::Int(1), x) => *x,
            _ => return false,
        };
        self.root(x) == phi && self.bounded_above(x)
    }

    /// Whether `x` is under a π with an upper bound (so `x + 1` cannot wrap).
    fn bounded_above(&self, x: Operand) -> bool {
        self.chain(x)
            .iter()
            .any(|f| matches!(f, Fact::Range { hi: Some(_), .. }))
    }

    /// Whether `h <= n` is known.
    fn le(&self, h: Operand, n: Operand, depth: u32) -> bool {
        let (kh, kn) = (self.key(h, depth), self.key(n, depth));
        if kh == kn {
            return true;
        }
        // `m - c <= n` when `m <= n` and `c >= 0` (no wrap: `m >= 0`).
        if let Some(Inst::Binary(BinaryOp::ISub, m, Operand::Int(c))) = self.inst(&self.root(h))
            && *c >= 0
            && depth < MAX_DEPTH
            && self.lower(*m, depth + 1).is_some_and(|l| l >= 0)
            && self.le(*m, n, depth + 1)
        {
            return true;
        }
        if let Key::Op(Operand::Int(c)) = kh {
            let lower_n = match &kn {
                Key::Op(o) => self.lower(*o, depth + 1),
                Key::LenOf(_) => Some(0),
            };
            return lower_n.is_some_and(|l| l >= c);
        }
        false
    }

    /// Whether `i < n` is known.
    fn lt(&self, i: Operand, n: Operand, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        if let Operand::Int(c) = self.root(i)
            && c < i64::MAX
            && self.le(Operand::Int(c + 1), n, depth + 1)
        {
            return true;
        }
        for f in self.chain(i) {
            if let Fact::Range { hi: Some(h), .. } = f
                && self.le(*h, n, depth + 1)
            {
                return true;
            }
        }
        // `x + 1 < n` when `x < m - 1` and `m <= n`.
        if let Some(Inst::Binary(BinaryOp::IAdd, a, Operand::Int(1))) = self.inst(&self.root(i)) {
            for f in self.chain(*a) {
                if let Fact::Range { hi: Some(h), .. } = f
                    && let Some(Inst::Binary(BinaryOp::ISub, m, Operand::Int(1))) =
                        self.inst(&self.root(*h))
                    && self.le(*m, n, depth + 1)
                {
                    return true;
                }
            }
        }
        false
    }

    /// Whether `p` is known not to be nil: a `NonNil` π on its chain, an
    /// allocation, or a φ of such values (no cycles: a φ met again is not
    /// assumed non-nil).
    fn non_nil(&self, p: Operand, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        if self.chain(p).iter().any(|f| matches!(f, Fact::NonNil)) {
            return true;
        }
        match self.inst(&self.root(p)) {
            Some(Inst::NewStruct { .. } | Inst::NewArray { .. }) => true,
            Some(Inst::Phi { values, .. }) => {
                let me = self.root(p);
                values
                    .iter()
                    .all(|v| self.root(*v) != me && self.non_nil(*v, depth + 4))
            }
            _ => false,
        }
    }

    fn non_zero(&self, d: Operand, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        if let Operand::Int(c) = self.root(d) {
            return c != 0;
        }
        if self.lower(d, 0).is_some_and(|l| l >= 1) {
            return true;
        }
        // `a | b` has every bit of `a` and of `b` set.
        if let Some(Inst::Binary(BinaryOp::IOr, a, b)) = self.inst(&self.root(d)) {
            return self.non_zero(*a, depth + 4) || self.non_zero(*b, depth + 4);
        }
        self.chain(d).iter().any(|f| match f {
            Fact::Range { hi: Some(h), .. } => matches!(self.root(*h), Operand::Int(c) if c <= 0),
            _ => false,
        })
    }

    /// The comparison, up to π, that entering block `c` establishes: when
    /// `c` is the single successor of a branch that goes elsewhere on the
    /// other outcome, the branch's comparison (on the true edge) or its
    /// negation (on the false edge; none for `Ult`).
    fn established(&self, c: BlockId) -> Option<CmpKey> {
        let blk = self.ir.cfg.blocks.get(c)?;
        let [p] = blk.preds[..] else { return None };
        let Some((_, Inst::GotoIfNot { cond, dest })) = self.ir.last_stmt(p) else {
            return None;
        };
        if *dest == p.next() {
            return None;
        }
        let Some(Inst::Binary(BinaryOp::ICmp(c2), x2, y2)) = self.inst(cond) else {
            return None;
        };
        let cmp = if c == p.next() { *c2 } else { negation(*c2)? };
        Some(self.cmp_key(cmp, *x2, *y2))
    }

    /// Whether a comparison in `known` (established on the way to the
    /// check) says `x <= m`, where `n` is `m + 1` (up to the equal lengths
    /// of [`Facts::key`]: `[false; m + 1]`'s length, say). With `x >= 0`
    /// that proves `x <u n` even when `m + 1` wraps: `m` is then the largest
    /// int, and `n` as an unsigned number is larger than every `x >= 0`.
    fn le_known_below(&self, known: &FxMap<CmpKey, u32>, x: Operand, n: Operand) -> bool {
        let Key::Op(sum) = self.key(n, 0) else {
            return false;
        };
        let m = match self.inst(&sum) {
            Some(Inst::Binary(BinaryOp::IAdd, m, Operand::Int(1)))
            | Some(Inst::Binary(BinaryOp::IAdd, Operand::Int(1), m)) => *m,
            _ => return false,
        };
        known.contains_key(&self.cmp_key(Cmp::Le, x, m))
            || known.contains_key(&self.cmp_key(Cmp::Ge, m, x))
    }

    fn cmp_key(&self, cmp: Cmp, x: Operand, y: Operand) -> CmpKey {
        (cmp, op_bits(self.root(x)), op_bits(self.root(y)))
    }
}

/// A comparison of two operands up to π (operands as [`op_bits`]).
type CmpKey = (Cmp, (u8, u64), (u8, u64));

/// Operand identity as plain data (floats by bits).
fn op_bits(o: Operand) -> (u8, u64) {
    match o {
        Operand::Value(v) => (0, v.0 as u64),
        Operand::Arg(a) => (1, a as u64),
        Operand::Int(i) => (2, i as u64),
        Operand::Float(f) => (3, f.to_bits()),
        Operand::Bool(b) => (4, b as u64),
        Operand::Nil => (5, 0),
    }
}

/// The comparison true exactly when `cmp` is false (`Ult` has none here).
fn negation(cmp: Cmp) -> Option<Cmp> {
    Some(match cmp {
        Cmp::Ne => Cmp::Eq,
        Cmp::Eq => Cmp::Ne,
        Cmp::Lt => Cmp::Ge,
        Cmp::Ge => Cmp::Lt,
        Cmp::Gt => Cmp::Le,
        Cmp::Le => Cmp::Gt,
        Cmp::Ult => return None,
    })
}

/// The kind of runtime error block `b` raises first, if it starts with a
/// `Raise`.
pub(crate) fn raise_kind(ir: &IrCode, b: BlockId) -> Option<RaiseKind> {
    let r = ir.cfg.blocks.get(b)?.stmts.clone();
    for s in r {
        match &ir.stmts.inst[Value(s)] {
            Inst::Nothing => continue,
            Inst::Raise { kind, .. } => return Some(*kind),
            _ => return None,
        }
    }
    None
}

/// Whether some block ends in a branch to a block that raises: the only
/// statements [`eliminate`] folds or remarks on.
fn has_check(ir: &IrCode) -> bool {
    ir.cfg.blocks.keys().any(|b| {
        matches!(ir.last_stmt(b), Some((_, Inst::GotoIfNot { dest, .. }))
            if raise_kind(ir, *dest).is_some())
    })
}

/// A check [`eliminate`] decided on, for its remark: the comparison
/// `cmp(x, y)` (statement `at`, operands with the placed πs looked
/// through) guarding a `kind` error, `removed` or not; `by_dominator` when
/// an earlier branch decided the same comparison.
struct Decided {
    at: Operand,
    kind: RaiseKind,
    x: Operand,
    y: Operand,
    removed: bool,
    by_dominator: bool,
}

/// The remark on a decided check, described in the function without πs.
fn check_remark(d: &Describe, c: &Decided) -> Option<(RemarkKind, Span, Msg)> {
    let Decided {
        at,
        kind,
        x,
        y,
        removed,
        by_dominator,
    } = *c;
    let Operand::Value(at) = at else { return None };
    let span = *d.ir.stmts.span.get(at)?;
    let (what, why) = match kind {
        RaiseKind::IndexOutOfBounds => {
            let array = match d.ir.stmts.get(root_value(d.ir, y)?) {
                Some(Inst::Load {
                    loc: Loc::ArrayLen,
                    base: Some(b),
                    ..
                }) => d.operand(b),
                _ => "?".into(),
            };
            let i = d.operand(&x);
            (
                format!("bounds check on {array}[{i}]"),
                format!("{i} in 0..{}", d.operand(&y)),
            )
        }
        RaiseKind::NilDereference => {
            let p = d.operand(&x);
            (format!("nil check on {p}"), format!("{p} is not nil"))
        }
        RaiseKind::DivisionByZero => {
            let v = d.operand(&x);
            (format!("division check on {v}"), format!("{v} is not 0"))
        }
        _ => return None,
    };
    let why = if by_dominator {
        "an earlier branch checked the same".to_string()
    } else {
        why
    };
    Some(if removed {
        let msg = Msg::new(format!("removed {what} at "))
            .at(span)
            .t(format!(" ({why})"));
        (RemarkKind::Passed, span, msg)
    } else {
        let msg = Msg::new(format!("could not remove {what} at ")).at(span);
        (RemarkKind::Missed, span, msg)
    })
}

/// The statement `o` names once copies and π are looked through.
fn root_value(ir: &IrCode, o: Operand) -> Option<Value> {
    let mut o = o;
    for _ in 0..8 {
        match o {
            Operand::Value(v) => match ir.stmts.get(v)? {
                Inst::Pi { value, .. } | Inst::Copy(value) => o = *value,
                _ => return Some(v),
            },
            _ => return None,
        }
    }
    None
}

/// Removed checks by kind: (bounds, nil, division); with `decided`, every
/// check looked at, for remarks. A removed check's branch is left as
/// `goto #raise if not true` for the caller's compaction to fold.
fn eliminate(
    ir: &mut IrCode,
    pis: &PlacedPis,
    sums: &Summaries,
    mut decided: Option<&mut Vec<Decided>>,
) -> (u64, u64, u64) {
    let dom = ir.cfg.dom_tree();
    let facts = Facts {
        ir,
        pis,
        unstable: Unstable::of(ir, sums),
        range_fuel: std::cell::Cell::new(0),
    };
    let mut fold = Vec::new();
    let mut counts = (0, 0, 0);
    // The dominator tree in preorder; `known` counts the comparisons that
    // the edges into the current block and its dominators established.
    let mut known: FxMap<CmpKey, u32> = FxMap::default();
    let mut stack: Vec<(BlockId, bool)> = if dom.reachable(BlockId(0)) {
        vec![(BlockId(0), true)]
    } else {
        Vec::new()
    };
    while let Some((b, enter)) = stack.pop() {
        let est = facts.established(b);
        if !enter {
            if let Some(k) = est
                && let Some(n) = known.get_mut(&k)
            {
                *n -= 1;
                if *n == 0 {
                    known.remove(&k);
                }
            }
            continue;
        }
        if let Some(k) = est {
            *known.entry(k).or_insert(0) += 1;
        }
        stack.push((b, false));
        stack.extend(dom.children(b).iter().map(|&c| (c, true)));
        let Some((last, Inst::GotoIfNot { cond, dest })) = ir.last_stmt(b) else {
            continue;
        };
        let Some(kind) = raise_kind(ir, *dest) else {
            continue;
        };
        let Some(Inst::Binary(BinaryOp::ICmp(cmp), x, y)) = facts.inst(cond) else {
            continue;
        };
        let (cmp, x, y) = (*cmp, *x, *y);
        let by_facts = match (kind, cmp) {
            (RaiseKind::IndexOutOfBounds, Cmp::Ult) => {
                let non_negative = facts.lower(x, 0).is_some_and(|l| l >= 0);
                (non_negative && (facts.lt(x, y, 0) || facts.le_known_below(&known, x, y)))
                    || facts.in_bounds_by_range(x, y)
                    || facts.in_bounds_2d(x, y)
            }
            (RaiseKind::NilDereference, Cmp::Ne) if y == Operand::Nil => facts.non_nil(x, 0),
            (RaiseKind::DivisionByZero, Cmp::Ne) if y == Operand::Int(0) => facts.non_zero(x, 0),
            _ => false,
        };
        let proven = by_facts || known.contains_key(&facts.cmp_key(cmp, x, y));
        if let Some(decided) = decided.as_deref_mut() {
            decided.push(Decided {
                at: *cond,
                kind,
                x: pis.root(x),
                y: pis.root(y),
                removed: proven,
                by_dominator: !by_facts,
            });
        }
        if !proven {
            continue;
        }
        match kind {
            RaiseKind::IndexOutOfBounds => counts.0 += 1,
            RaiseKind::NilDereference => counts.1 += 1,
            RaiseKind::DivisionByZero => counts.2 += 1,
            _ => continue,
        }
        fold.push(last);
    }
    for s in &fold {
        if let Some(Inst::GotoIfNot { cond, .. }) = ir.stmts.inst.get_mut(*s) {
            *cond = Operand::Bool(true);
        }
    }
    counts
}

/// The `checks` pass: π insertion, check elimination, π removal.
pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    // Without a branch to a raising block there is no check to remove or
    // remark on: no πs to place.
    if !has_check(ir) {
        return;
    }
    let pis = pi_insert::place_pis(ir);
    let mut decided = ctx.remarks_on().then(Vec::new);
    let (bounds, nil, div) = eliminate(ir, &pis, &ctx.summaries, decided.as_mut());
    pis.withdraw(ir);
    let d = Describe {
        ir,
        names: &ctx.names,
    };
    let said: Vec<_> = decided
        .iter()
        .flatten()
        .filter_map(|c| check_remark(&d, c))
        .collect();
    // One compaction folds the removed checks' branches (and forwards the
    // copies of πs an earlier `pi` pass left, with `--passes`).
    let stripped = pi_insert::strip_pis(ir);
    if stripped + bounds + nil + div > 0 {
        crate::ir::compact::compact_only(ir);
    }
    for (kind, span, msg) in said {
        ctx.remark(ir, kind, span, |_| msg);
    }
    if bounds + nil + div > 0 {
        // Merge the blocks the folded branches left behind (without
        // threading: the dedicated preheaders and exits `rotate` and `licm`
        // need stay), then restore the loop forms an earlier pass may have
        // broken: steps reported as `checks.simplifycfg.*` and
        // `checks.loops.*`.
        ctx.run_step("checks", "simplifycfg", ir, crate::opt::cfg::merge_only);
        ctx.run_step("checks", "loops", ir, crate::opt::loops::run);
    }
    let counters = &mut ctx.counters;
    counters.add("checks.bounds_removed", bounds);
    counters.add("checks.nil_removed", nil);
    counters.add("checks.div_removed", div);
}
