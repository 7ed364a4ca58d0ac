//! The splice of inlining: a caller's calls replaced by copies of their
//! callees' blocks (the rules are in the parent module's doc), shared by
//! `inline` (calls of other, small functions) and `recinline` (a small
//! recursive function's calls of itself).

use crate::ir::FxMap;
use crate::ir::blocks::{BBlock, BStmt, BlockIr, Label, Term};
use crate::ir::compact::compact_only;
use crate::ir::edit::for_each_operand_mut;
use crate::ir::{BlockId, Flags, Inst, IrCode, NameId, NameIndex, Operand, Type, Value, VarName};
use crate::span::Span;
use cranelift_entity::EntityRef;

const PURE: Flags = Flags(Flags::EFFECT_FREE.0 | Flags::NOTHROW.0);

/// A call chosen for inlining.
pub(in crate::opt) struct Site {
    /// The `invoke` statement; the join φ takes its value number.
    pub call: Value,
    /// The callee's index: what the splice's `callee_of` is asked for.
    pub callee: usize,
    /// For a checked call: its `no_exception()` and its exception target.
    pub check: Option<(Value, Label)>,
}

/// The names to give the unnamed values the caller `f` passes to inlined
/// callees: the name of the parameter each becomes (`callee::param`), since
/// inlined, it is that variable's value. The first call naming a value
/// wins.
fn argument_names<'a>(
    caller: &IrCode,
    sites: &[Site],
    callee_of: &dyn Fn(usize) -> &'a IrCode,
) -> FxMap<Value, VarName> {
    let caller = &caller.stmts;
    let mut names: FxMap<Value, VarName> = FxMap::default();
    for site in sites {
        let Some(Inst::Call { args, .. }) = caller.get(site.call) else {
            continue;
        };
        let callee = callee_of(site.callee);
        for (arg, p) in args.iter().zip(&callee.param_names) {
            if let Operand::Value(x) = arg
                && let Some(None) = caller.name.get(*x)
            {
                names
                    .entry(*x)
                    .or_insert_with(|| qualified_name(&callee.name, p));
            }
        }
    }
    names
}

/// What the splice needs to know about a callee.
pub(in crate::opt) struct Shape {
    returns: bool,
    unwinds: bool,
    entry_has_preds: bool,
}

impl Shape {
    pub fn of(code: &IrCode) -> Shape {
        Shape {
            returns: code
                .stmts
                .inst
                .values()
                .any(|i| matches!(i, Inst::Return(_))),
            unwinds: code.stmts.inst.values().any(|i| matches!(i, Inst::Unwind)),
            entry_has_preds: code
                .cfg
                .blocks
                .get(BlockId(0))
                .is_none_or(|b| !b.preds.is_empty()),
        }
    }
}

/// The call at statement `s` of block `b` of `caller`, of `callee` (the
/// function `callee_of(g)` gives the splice, with shape `shape`), as a
/// splice site, or `None` when its shape is not one the splice handles:
/// the argument count and the result type match, `callee` has a `return`
/// and no edge into its entry block, and, if `callee` contains an
/// `unwind`, the call is a checked call.
pub(in crate::opt) fn site(
    caller: &IrCode,
    b: BlockId,
    s: u32,
    callee: &IrCode,
    g: usize,
    shape: &Shape,
) -> Option<Site> {
    let call = Value(s);
    let Some(Inst::Call { args, .. }) = caller.stmts.inst.get(call) else {
        return None;
    };
    let check = checked_call(caller, b, s);
    let ret_ok = callee.ret == Type::Void || caller.stmts.ty.get(call) == Some(&callee.ret);
    let handled = args.len() == callee.params.len()
        && ret_ok
        && shape.returns
        && !shape.entry_has_preds
        && (!shape.unwinds || check.is_some());
    handled.then_some(Site {
        call,
        callee: g,
        check,
    })
}

/// For the call `s` in block `b`: its `no_exception()` and exception
/// target when it is a checked call (the block ends `s`, `%ok =
/// no_exception()`, `goto #H if not %ok`, with `#H` not the fallthrough).
fn checked_call(code: &IrCode, b: BlockId, s: u32) -> Option<(Value, Label)> {
    let end = code.cfg.blocks.get(b)?.stmts.end;
    if s + 3 != end || !matches!(code.stmts.inst.get(Value(s + 1)), Some(Inst::NoException)) {
        return None;
    }
    match code.stmts.inst.get(Value(s + 2)) {
        Some(Inst::GotoIfNot {
            cond: Operand::Value(ok),
            dest,
        }) if ok.0 == s + 1 && *dest != b.next() => Some((*ok, *dest)),
        _ => None,
    }
}

/// The source name, in a caller, of the variable `name` of the inlined
/// function `callee`: `callee::name`.
pub fn qualified_name(callee: &str, name: &str) -> VarName {
    format!("{callee}::{name}").into()
}

/// `callee`'s blocks with fresh labels and values, ready to splice.
struct Copied {
    entry: Label,
    blocks: Vec<BBlock>,
    /// (block, returned value) of every `return`.
    rets: Vec<(Label, Option<Operand>)>,
    /// The blocks whose `unwind` became `goto` the exception target.
    unwinds: Vec<Label>,
}

/// Copies `callee` into `bir`'s label and value space: arguments become
/// `args`, `return` becomes `goto join`, `unwind` becomes `goto unwind_to`
/// (kept when `None`).
fn copy_callee(
    bir: &mut BlockIr,
    interned: &mut NameIndex,
    callee: &IrCode,
    args: &[Operand],
    join: Label,
    unwind_to: Option<Label>,
) -> Copied {
    let src = BlockIr::from_ir(callee);
    // The caller's id of each callee name, qualified.
    let names: Vec<NameId> = callee
        .stmts
        .names
        .iter()
        .map(|n| interned.id(bir.names_mut(), qualified_name(&callee.name, n)))
        .collect();
    let lbase = bir.fresh_label();
    for _ in 1..src.blocks.len() {
        bir.fresh_label();
    }
    let vbase = bir.fresh_value().0;
    for _ in 1..callee.stmts.len() {
        bir.fresh_value();
    }
    let label = |l: Label| BlockId::new(lbase.index() + l.index());
    let value = |v: Value| Value(vbase + v.0);
    let operand = |op: Operand| match op {
        Operand::Value(v) => Operand::Value(value(v)),
        Operand::Arg(i) => args.get(i as usize).copied().unwrap_or(op),
        other => other,
    };
    let mut out = Copied {
        entry: lbase,
        blocks: Vec::with_capacity(src.blocks.len()),
        rets: Vec::new(),
        unwinds: Vec::new(),
    };
    for block in src.blocks {
        let l = label(block.label);
        let stmts = block
            .stmts
            .into_iter()
            .map(|s| {
                let mut inst = s.inst;
                for_each_operand_mut(&mut inst, |op| *op = operand(*op));
                match &mut inst {
                    Inst::Phi { edges, .. } => edges.iter_mut().for_each(|e| *e = label(*e)),
                    Inst::PhiC { upsilons } => upsilons.iter_mut().for_each(|u| *u = value(*u)),
                    _ => {}
                }
                BStmt {
                    id: value(s.id),
                    inst,
                    ty: s.ty,
                    span: s.span,
                    flags: s.flags,
                    name: s.name.and_then(|n| names.get(n.index()).copied()),
                }
            })
            .collect();
        let term = match block.term {
            Term::Goto(t) => Term::Goto(label(t)),
            Term::Branch { cond, then, els } => Term::Branch {
                cond: operand(cond),
                then: label(then),
                els: label(els),
            },
            Term::Return(r) => {
                out.rets.push((l, r.map(operand)));
                Term::Goto(join)
            }
            Term::Unwind => match unwind_to {
                Some(h) => {
                    out.unwinds.push(l);
                    Term::Goto(h)
                }
                None => Term::Unwind,
            },
            Term::Unreachable => Term::Unreachable,
        };
        out.blocks.push(BBlock {
            label: l,
            stmts,
            term,
            term_span: block.term_span,
            term_flags: block.term_flags,
        });
    }
    out
}

/// `caller` with every call of `sites` (in statement order) replaced by
/// a copy of its callee (`callee_of(site.callee)`), compacted. The values
/// the caller passes as arguments and has no name for are named after the
/// parameters they become ([`qualified_name`]).
pub(in crate::opt) fn splice<'a>(
    caller: &IrCode,
    sites: &[Site],
    callee_of: &dyn Fn(usize) -> &'a IrCode,
) -> IrCode {
    let arg_names = argument_names(caller, sites, callee_of);
    let mut bir = BlockIr::from_ir(caller);
    let mut interned = NameIndex::of(bir.names());
    let mut orig = std::mem::take(&mut bir.blocks);
    for stmt in orig.iter_mut().flat_map(|b| &mut b.stmts) {
        if stmt.name.is_none()
            && let Some(name) = arg_names.get(&stmt.id)
        {
            stmt.name = Some(interned.id(bir.names_mut(), name.clone()));
        }
    }
    let mut s = Splicer {
        owner: (0..orig.len()).map(BlockId::new).collect(),
        out: Vec::with_capacity(orig.len()),
        bir,
        interned,
        sites,
        callee_of,
        next: 0,
        handler_edges: FxMap::default(),
    };
    for block in orig {
        let has_site = sites
            .get(s.next)
            .is_some_and(|site| block.stmts.iter().any(|st| st.id == site.call));
        if has_site {
            s.split(block);
        } else {
            s.out.push(block);
        }
    }
    rename_phi_edges(&mut s.out, &s.owner, &s.handler_edges);
    let mut bir = s.bir;
    bir.blocks = s.out;
    let mut code = bir.lower();
    compact_only(&mut code);
    code
}

/// The caller's blocks as [`splice`] rebuilds them, in order, into `out`.
struct Splicer<'s, 'a> {
    bir: BlockIr,
    interned: NameIndex,
    sites: &'s [Site],
    callee_of: &'s dyn Fn(usize) -> &'a IrCode,
    /// The index in `sites` of the next call to inline.
    next: usize,
    /// `owner[b]`: the label of the block that ends with original block
    /// `b`'s terminator (the last join block when `b` was split).
    owner: Vec<Label>,
    /// (exception target, old predecessor) -> the blocks that replace the
    /// predecessor in the target's φs.
    handler_edges: FxMap<(Label, Label), Vec<Label>>,
    out: Vec<BBlock>,
}

impl Splicer<'_, '_> {
    /// Splits `block` at each of its sites (it holds the next one): the
    /// part before a call jumps to the callee's copy, which returns to a
    /// join block holding the rest. A checked call's `no_exception()`
    /// becomes `true` and its branch a `goto`: the copy's `unwind`s jump to
    /// the exception target instead.
    fn split(&mut self, block: BBlock) {
        let sites = self.sites;
        let BBlock {
            label: orig_label,
            stmts,
            mut term,
            term_span,
            term_flags,
        } = block;
        let mut cur = BBlock {
            label: orig_label,
            stmts: Vec::new(),
            term: Term::Unreachable,
            term_span,
            term_flags,
        };
        let mut check_stmt: Option<Value> = None;
        for st in stmts {
            let site = sites.get(self.next).filter(|site| site.call == st.id);
            match (site, &st.inst) {
                (Some(site), Inst::Call { args, .. }) => {
                    self.next += 1;
                    let (joined, result, unwinds) = self.inline_call(cur, st.span, args, site);
                    cur = joined;
                    if let Some(inst) = result {
                        cur.stmts.push(BStmt {
                            inst,
                            flags: PURE,
                            ..st
                        });
                    }
                    if let Some((ok, target)) = site.check {
                        check_stmt = Some(ok);
                        self.handler_edges.insert((target, orig_label), unwinds);
                        if let Term::Branch { then, .. } = term {
                            term = Term::Goto(then);
                        }
                    }
                }
                _ if check_stmt == Some(st.id) => cur.stmts.push(BStmt {
                    inst: Inst::Copy(Operand::Bool(true)),
                    flags: PURE,
                    name: None,
                    ..st
                }),
                _ => cur.stmts.push(st),
            }
        }
        cur.term = term;
        self.owner[orig_label.index()] = cur.label;
        self.out.push(cur);
    }

    /// Ends `cur` with a jump to a copy of `site`'s callee, called at `span`
    /// with `args`. Returns the join block the copy returns to (its
    /// terminator still to be set), the φ of the returned values that takes
    /// the call's value number there (none for a `void` callee), and the
    /// copy's blocks that unwind.
    fn inline_call(
        &mut self,
        mut cur: BBlock,
        span: Span,
        args: &[Operand],
        site: &Site,
    ) -> (BBlock, Option<Inst>, Vec<Label>) {
        let callee = (self.callee_of)(site.callee);
        let join = self.bir.fresh_label();
        let unwind_to = site.check.map(|c| c.1);
        let copy = copy_callee(
            &mut self.bir,
            &mut self.interned,
            callee,
            args,
            join,
            unwind_to,
        );
        let joined = BBlock {
            label: join,
            stmts: Vec::new(),
            term: Term::Unreachable,
            term_span: cur.term_span,
            term_flags: cur.term_flags,
        };
        cur.term = Term::Goto(copy.entry);
        cur.term_span = span;
        self.out.push(cur);
        self.out.extend(copy.blocks);
        let result = (callee.ret != Type::Void).then(|| {
            let (edges, values) = copy
                .rets
                .iter()
                .map(|(l, v)| (*l, v.unwrap_or(Operand::Nil)))
                .unzip();
            Inst::Phi { edges, values }
        });
        (joined, result, copy.unwinds)
    }
}

/// Renames the φ edges of `blocks` after splicing: an edge from an
/// original block comes from its `owner` (the block that now ends with its
/// terminator), and an edge from a block whose checked call was inlined
/// into an exception target becomes one edge per copied `unwind` block
/// (`handler_edges`).
fn rename_phi_edges(
    blocks: &mut [BBlock],
    owner: &[Label],
    handler_edges: &FxMap<(Label, Label), Vec<Label>>,
) {
    for block in blocks {
        let target = block.label;
        for s in block.phis_mut() {
            let Inst::Phi { edges, values } = &mut s.inst else {
                continue;
            };
            let mut new_edges = Vec::with_capacity(edges.len());
            let mut new_values = Vec::with_capacity(values.len());
            for (e, v) in edges.iter().zip(values.iter()) {
                match handler_edges.get(&(target, *e)) {
                    Some(unwinds) => {
                        for u in unwinds {
                            new_edges.push(*u);
                            new_values.push(*v);
                        }
                    }
                    None => {
                        new_edges.push(owner.get(e.index()).copied().unwrap_or(*e));
                        new_values.push(*v);
                    }
                }
            }
            *edges = new_edges;
            *values = new_values;
        }
    }
}
