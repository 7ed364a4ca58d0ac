//! Tail-recursion elimination (LLVM's `tailcallelim`), on the block view
//! ([`BlockIr`]).
//!
//! A *tail site* is a call of the function itself whose result, if any,
//! goes straight to a `return`:
//! - `%c = invoke f(args)` followed by `return %c` (or by `return` in a void
//!   function), possibly through `goto`s to blocks that hold nothing else;
//! - the same with the may-throw check after the call:
//!   `%e = no_exception()` then `goto #U if not %e`, where `#U` holds only
//!   `unwind`. An exception of the callee then leaves the caller too, so
//!   unwinding from the loop iteration instead is the same. A call whose
//!   exception goes anywhere else (a handler of a `try` in this function)
//!   is never a tail site. A call without that check cannot throw (a stack
//!   overflow is not an exception: no `try` catches it), so a `try` around
//!   it does not matter;
//! - an *accumulated* site: the value returned is `op(x, %c)` (either
//!   operand order) with `op` one of `iadd`, `imul`, `iand`, `ior`, `ixor`
//!   on ints (wrapping, so associative and commutative) and `x` not `%c`
//!   (it is computed before the call). Float operations are not
//!   associative and never accumulate. One `op` per function: sites with
//!   another `op` stay calls.
//!
//! Every block after the call up to the `return` must have that path as its
//! only way in (except an empty void `return` block), and `%c`, `%e` and
//! the `op` result may have no other use.
//!
//! The transformation: a new entry block jumps to the old entry, which
//! becomes the loop header (or, when the old entry already heads a loop, to
//! a new header block before it) with one φ per parameter (the arguments on the
//! entry edge, the call's arguments on each tail site's edge); every use of
//! a parameter reads its φ. With accumulated sites, an accumulator φ starts
//! at `op`'s identity, each accumulated site jumps back with
//! `op(acc, x)`, a plain site with `acc`, and every other `return r`
//! returns `op(acc, r)`. A site's call and the blocks after it become
//! unreachable and compaction drops them.
//!
//! Deep recursion that used to overflow the stack may then run in constant
//! stack (as in every compiler that does this); a non-tail call still
//! overflows. Counters: `tailrec.eliminated` (tail sites turned into
//! jumps), `tailrec.accumulated` (those of them that accumulate).

use crate::ir::blocks::{BBlock, BStmt, BlockIr, Label, Positions, Term};
use crate::ir::compact::compact_only;
use crate::ir::edit::{default_flags, for_each_operand_mut, use_counts};
use crate::ir::{BinaryOp, Flags, Inst, IrCode, Operand, Type, Value};
use crate::opt::PassCtx;
use cranelift_entity::{EntityRef, SecondaryMap};

/// How many blocks a path from a tail call to its `return` may cross.
const MAX_PATH_BLOCKS: usize = 8;

/// A self call whose value is returned (with `op(x, ·)` applied when
/// `accumulate` is set).
struct TailSite {
    /// The block (position in the layout) holding the call.
    block: usize,
    /// The call's index in that block's statements; the statements from it
    /// on are dropped.
    call_index: usize,
    args: Vec<Operand>,
    accumulate: Option<(BinaryOp, Operand)>,
    /// The blocks after the call's block on the way to the `return`
    /// (positions; unreachable once the call is a jump).
    path: Vec<usize>,
}

/// The integer operations that may accumulate, and their identity.
fn identity(op: BinaryOp) -> Option<i64> {
    match op {
        BinaryOp::IAdd | BinaryOp::IOr | BinaryOp::IXor => Some(0),
        BinaryOp::IMul => Some(1),
        BinaryOp::IAnd => Some(-1),
        _ => None,
    }
}

/// What the search for tail sites reads, computed once per function.
struct Facts<'a> {
    bir: &'a BlockIr,
    ir: &'a IrCode,
    /// Use counts by value ([`use_counts`]).
    uses: Vec<u32>,
    /// Predecessor labels by label ([`BlockIr::preds`]).
    preds: SecondaryMap<Label, Vec<Label>>,
    /// Layout position by label ([`BlockIr::positions`]).
    pos: Positions,
}

impl Facts<'_> {
    fn at(&self, l: Label) -> Option<usize> {
        self.pos[l]
    }
    fn used(&self, v: Value) -> u32 {
        self.uses.get(v.index()).copied().unwrap_or(u32::MAX)
    }
    fn single_pred(&self, l: Label) -> bool {
        self.preds[l].len() == 1
    }
}

/// Whether `b` holds only `unwind`.
fn is_unwind_only(b: &BBlock) -> bool {
    b.stmts.is_empty() && b.term == Term::Unwind
}

/// Where the way from a call to its `return` has got to: the statements
/// still to run in block `cur`, its terminator, and the blocks entered
/// after the call's block.
struct Way<'a> {
    cur: usize,
    rest: &'a [BStmt],
    term: &'a Term,
    path: Vec<usize>,
}

/// The way on from the call at `call_index` of block `block`, past its
/// exception check: `None` when the call may throw without one, or the
/// check's exception edge goes anywhere but to a block that only unwinds
/// (a handler in this function), or the normal edge's block has another
/// way in.
fn past_exception_check<'a>(f: &Facts<'a>, block: usize, call_index: usize) -> Option<Way<'a>> {
    let bir = f.bir;
    let blk = &bir.blocks[block];
    let call = &blk.stmts[call_index];
    let rest = &blk.stmts[call_index + 1..];
    let Some(e) = rest.first().filter(|s| s.inst == Inst::NoException) else {
        return call.flags.contains(Flags::NOTHROW).then_some(Way {
            cur: block,
            rest,
            term: &blk.term,
            path: Vec::new(),
        });
    };
    let Term::Branch { cond, then, els } = &blk.term else {
        return None;
    };
    let unwinds = f.at(*els).is_some_and(|u| is_unwind_only(&bir.blocks[u]));
    if *cond != Operand::Value(e.id) || f.used(e.id) != 1 || !unwinds || then == els {
        return None;
    }
    if rest.len() != 1 || !f.single_pred(*then) {
        return None;
    }
    let cur = f.at(*then)?;
    Some(Way {
        cur,
        rest: &bir.blocks[cur].stmts,
        term: &bir.blocks[cur].term,
        path: vec![cur],
    })
}

/// Follows `way` from the call `call` to a `return` of its value, through
/// at most one accumulating operation; the operation and its other operand
/// when there is one. `None` when anything else happens on the way.
fn follow_to_return<'a>(
    f: &Facts<'a>,
    way: &mut Way<'a>,
    call: Value,
) -> Option<Option<(BinaryOp, Operand)>> {
    let used = |v: Value| f.used(v);
    // The value the function is about to return.
    let mut tracked = call;
    let mut accumulate = None;
    for _ in 0..MAX_PATH_BLOCKS {
        for s in way.rest {
            let Inst::Binary(op, a, b) = &s.inst else {
                return None;
            };
            let t = Operand::Value(tracked);
            let x = if *a == t { b } else { a };
            if accumulate.is_some()
                || identity(*op).is_none()
                || s.ty != Type::Int
                || (*a != t && *b != t)
                || *x == t
                || used(tracked) != 1
            {
                return None;
            }
            accumulate = Some((*op, *x));
            tracked = s.id;
        }
        match way.term {
            Term::Return(Some(r)) if *r == Operand::Value(tracked) && used(tracked) == 1 => {
                return Some(accumulate);
            }
            Term::Return(None) if f.ir.ret == Type::Void => return Some(None),
            Term::Goto(next) => {
                let n = f.at(*next)?;
                let nb = &f.bir.blocks[n];
                let void_return = nb.stmts.is_empty() && nb.term == Term::Return(None);
                if !f.single_pred(*next) && !void_return || n == way.cur {
                    return None;
                }
                way.cur = n;
                way.path.push(n);
                way.rest = &nb.stmts;
                way.term = &nb.term;
            }
            _ => return None,
        }
    }
    None
}

/// The tail site of the call at `call_index` of block `block`, if it is one.
fn tail_site(f: &Facts<'_>, block: usize, call_index: usize) -> Option<TailSite> {
    let (bir, ir) = (f.bir, f.ir);
    let call = &bir.blocks[block].stmts[call_index];
    let Inst::Call { func, args } = &call.inst else {
        return None;
    };
    if *func != ir.func || args.len() != ir.params.len() {
        return None;
    }
    let mut way = past_exception_check(f, block, call_index)?;
    let accumulate = follow_to_return(f, &mut way, call.id)?;
    Some(TailSite {
        block,
        call_index,
        args: args.clone(),
        accumulate,
        path: way.path,
    })
}

/// Every tail site of the function; at most one accumulating `op`.
fn find_sites(bir: &BlockIr, ir: &IrCode) -> Vec<TailSite> {
    let facts = Facts {
        bir,
        ir,
        uses: use_counts(ir, None),
        preds: bir.preds(),
        pos: bir.positions(),
    };
    let mut sites: Vec<TailSite> = Vec::new();
    let mut op_used: Option<BinaryOp> = None;
    for (b, blk) in bir.blocks.iter().enumerate() {
        for (i, s) in blk.stmts.iter().enumerate() {
            if !matches!(s.inst, Inst::Call { .. }) {
                continue;
            }
            let Some(site) = tail_site(&facts, b, i) else {
                continue;
            };
            if let Some((op, _)) = site.accumulate {
                if op_used.is_some_and(|o| o != op) {
                    continue;
                }
                op_used = Some(op);
            }
            sites.push(site);
        }
    }
    sites
}

/// Replaces every use of parameter `i` by `params[i]`.
fn rename_params(bir: &mut BlockIr, params: &[Operand]) {
    let rename = |op: &mut Operand| {
        if let Operand::Arg(i) = *op
            && let Some(p) = params.get(i as usize)
        {
            *op = *p;
        }
    };
    for blk in &mut bir.blocks {
        for s in &mut blk.stmts {
            for_each_operand_mut(&mut s.inst, rename);
        }
        if let Some(o) = blk.term.operand_mut() {
            rename(o);
        }
    }
}

/// A new statement without a source name.
fn stmt(id: Value, inst: Inst, ty: Type, span: crate::span::Span) -> BStmt {
    let flags = default_flags(&inst);
    BStmt {
        id,
        inst,
        ty,
        span,
        flags,
        name: None,
    }
}

/// Applies `op(acc, r)` to every `return r` of the blocks not in `skip`.
fn accumulate_returns(bir: &mut BlockIr, op: BinaryOp, acc: Value, skip: &[usize]) {
    for b in 0..bir.blocks.len() {
        if skip.contains(&b) {
            continue;
        }
        let Term::Return(Some(r)) = bir.blocks[b].term else {
            continue;
        };
        if identity(op).map(Operand::Int) == Some(r) {
            bir.blocks[b].term = Term::Return(Some(Operand::Value(acc)));
            continue;
        }
        let id = bir.fresh_value();
        let blk = &mut bir.blocks[b];
        let inst = Inst::Binary(op, Operand::Value(acc), r);
        blk.stmts.push(stmt(id, inst, Type::Int, blk.term_span));
        blk.term = Term::Return(Some(Operand::Value(id)));
    }
}

/// Turns the tail sites into jumps to a loop header (module doc).
fn eliminate(bir: &mut BlockIr, ir: &IrCode, mut sites: Vec<TailSite>) {
    let old_entry = bir.blocks[0].label;
    // The old entry is the loop header, unless it already has predecessors
    // (it heads a loop): then a new block holds the φs.
    let entry_has_preds = !bir.preds()[old_entry].is_empty();
    let header = if entry_has_preds {
        bir.fresh_label()
    } else {
        old_entry
    };
    let entry = bir.fresh_label();
    let params: Vec<Value> = ir.params.iter().map(|_| bir.fresh_value()).collect();
    let param_ops: Vec<Operand> = params.iter().map(|&v| Operand::Value(v)).collect();
    rename_params(bir, &param_ops);
    let map = |op: Operand| match op {
        Operand::Arg(i) => param_ops.get(i as usize).copied().unwrap_or(op),
        _ => op,
    };
    let acc_op = sites.iter().find_map(|s| s.accumulate.map(|(op, _)| op));
    let acc = acc_op.map(|_| bir.fresh_value());
    let path_blocks: Vec<usize> = sites.iter().flat_map(|s| s.path.iter().copied()).collect();
    let mut edges = vec![entry];
    let mut param_in: Vec<Vec<Operand>> = (0..params.len())
        .map(|i| vec![Operand::Arg(i as u32)])
        .collect();
    let mut acc_in = vec![Operand::Int(acc_op.and_then(identity).unwrap_or(0))];
    // Later sites first, so an earlier site's call index in a shared block
    // stays valid.
    sites.sort_by_key(|s| std::cmp::Reverse((s.block, s.call_index)));
    for site in sites {
        let span = bir.blocks[site.block].stmts[site.call_index].span;
        let next_acc = match (site.accumulate, acc) {
            (Some((op, x)), Some(a)) => {
                let id = bir.fresh_value();
                let inst = Inst::Binary(op, Operand::Value(a), map(x));
                bir.blocks[site.block].stmts.truncate(site.call_index);
                bir.blocks[site.block]
                    .stmts
                    .push(stmt(id, inst, Type::Int, span));
                Operand::Value(id)
            }
            _ => {
                bir.blocks[site.block].stmts.truncate(site.call_index);
                acc.map_or(Operand::Int(0), Operand::Value)
            }
        };
        let blk = &mut bir.blocks[site.block];
        blk.term = Term::Goto(header);
        edges.push(blk.label);
        for (i, a) in site.args.iter().enumerate() {
            param_in[i].push(map(*a));
        }
        acc_in.push(next_acc);
    }
    if let (Some(op), Some(a)) = (acc_op, acc) {
        accumulate_returns(bir, op, a, &path_blocks);
    }
    let span = bir.blocks[0].term_span;
    // Each parameter's φ is that parameter's variable.
    let mut phis: Vec<BStmt> = params
        .iter()
        .zip(param_in)
        .zip(&ir.params)
        .enumerate()
        .map(|(k, ((&v, values), ty))| {
            let inst = Inst::Phi {
                edges: edges.clone(),
                values,
            };
            let mut phi = stmt(v, inst, ty.clone(), span);
            phi.name = ir.param_names.get(k).map(|n| bir.intern_name(n));
            phi
        })
        .collect();
    if let Some(a) = acc {
        let inst = Inst::Phi {
            edges,
            values: acc_in,
        };
        phis.push(stmt(a, inst, Type::Int, span));
    }
    let mut front = vec![BBlock {
        label: entry,
        stmts: Vec::new(),
        term: Term::Goto(header),
        term_span: span,
        term_flags: Flags::default(),
    }];
    if entry_has_preds {
        front.push(BBlock {
            label: header,
            stmts: phis,
            term: Term::Goto(old_entry),
            term_span: span,
            term_flags: Flags::default(),
        });
    } else {
        bir.blocks[0].stmts.splice(0..0, phis);
    }
    bir.blocks.splice(0..0, front);
}

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    let calls_itself = ir
        .stmts
        .inst
        .values()
        .any(|i| matches!(i, Inst::Call { func, .. } if *func == ir.func));
    if !calls_itself {
        return;
    }
    let mut bir = BlockIr::from_ir(ir);
    let sites = find_sites(&bir, ir);
    if sites.is_empty() {
        return;
    }
    let accumulated = sites.iter().filter(|s| s.accumulate.is_some()).count();
    ctx.counters.add("tailrec.eliminated", sites.len() as u64);
    ctx.counters.add("tailrec.accumulated", accumulated as u64);
    eliminate(&mut bir, ir, sites);
    *ir = bir.lower();
    compact_only(ir);
}
