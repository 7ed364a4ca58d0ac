//! CFG drawings as inline SVG, laid out here (no Graphviz): blocks in
//! layers by the longest forward path from the entry (an edge to a block
//! earlier in reverse postorder is a back edge and does not count), each
//! layer left to right in reverse postorder. Forward edges are straight
//! lines between layers; back edges curve around the right-hand side.
//! Every block is a `<g class="blk" data-k=KEY>`, so the page highlights
//! it together with the same key in the code.

use std::fmt::Write as _;

/// What kind of successor an edge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// The taken side of a conditional branch.
    True,
    /// The other side of a conditional branch.
    False,
    Plain,
}

/// A block of the drawing.
#[derive(Clone, Debug)]
pub struct Node {
    /// The token that names the block in the column's code (`#3`,
    /// `block2`): clicking either highlights both.
    pub key: String,
    /// Drawn dashed: a block that raises (an error path).
    pub dashed: bool,
}

/// A control-flow graph; node 0 is the entry.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<(usize, usize, EdgeKind)>,
}

const NODE_W: f64 = 64.0;
const NODE_H: f64 = 22.0;
const GAP_X: f64 = 18.0;
const GAP_Y: f64 = 26.0;
/// Room on the right for back edges.
const BACK_MARGIN: f64 = 40.0;

impl Graph {
    /// Reverse postorder from node 0 (iterative DFS), then every node it
    /// does not reach, in index order.
    fn order(&self) -> Vec<usize> {
        let n = self.nodes.len();
        let mut succs = vec![Vec::new(); n];
        for &(a, b, _) in &self.edges {
            if a < n && b < n {
                succs[a].push(b);
            }
        }
        let mut seen = vec![false; n];
        let mut post = Vec::with_capacity(n);
        if n > 0 {
            seen[0] = true;
            let mut stack = vec![(0usize, 0usize)];
            while let Some((v, i)) = stack.last_mut() {
                let v = *v;
                if let Some(&w) = succs[v].get(*i) {
                    *i += 1;
                    if !seen[w] {
                        seen[w] = true;
                        stack.push((w, 0));
                    }
                } else {
                    post.push(v);
                    stack.pop();
                }
            }
        }
        post.reverse();
        post.extend((0..n).filter(|&v| !seen[v]));
        post
    }

    /// The position (x, y of the top-left corner) of every node, and the
    /// drawing's width and height.
    fn layout(&self) -> (Vec<(f64, f64)>, f64, f64) {
        let n = self.nodes.len();
        let order = self.order();
        let mut rank = vec![0usize; n];
        for (i, &v) in order.iter().enumerate() {
            rank[v] = i;
        }
        let mut layer = vec![0usize; n];
        for &v in &order {
            for &(a, b, _) in &self.edges {
                if b == v && a < n && rank[a] < rank[v] {
                    layer[v] = layer[v].max(layer[a] + 1);
                }
            }
        }
        let depth = layer.iter().copied().max().map_or(0, |d| d + 1);
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); depth];
        for &v in &order {
            rows[layer[v]].push(v);
        }
        let widest = rows.iter().map(Vec::len).max().unwrap_or(0) as f64;
        let width = widest * (NODE_W + GAP_X) + BACK_MARGIN;
        let mut pos = vec![(0.0, 0.0); n];
        for (d, row) in rows.iter().enumerate() {
            let used = row.len() as f64 * (NODE_W + GAP_X) - GAP_X;
            let left = (width - BACK_MARGIN - used) / 2.0;
            for (k, &v) in row.iter().enumerate() {
                pos[v] = (
                    left + k as f64 * (NODE_W + GAP_X),
                    GAP_Y / 2.0 + d as f64 * (NODE_H + GAP_Y),
                );
            }
        }
        let height = depth as f64 * (NODE_H + GAP_Y);
        (pos, width, height)
    }

    /// The drawing as an `<svg>` element; empty for a graph without nodes.
    pub fn to_svg(&self) -> String {
        if self.nodes.is_empty() {
            return String::new();
        }
        let (pos, width, height) = self.layout();
        let order = self.order();
        let mut rank = vec![0usize; self.nodes.len()];
        for (i, &v) in order.iter().enumerate() {
            rank[v] = i;
        }
        let mut out = format!(
            "<svg class=\"cfg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.0} {height:.0}\" \
             width=\"{width:.0}\" height=\"{height:.0}\">"
        );
        out.push_str(
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" \
             markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" \
             fill=\"context-stroke\"/></marker></defs>",
        );
        for &(a, b, kind) in &self.edges {
            let (Some(&(ax, ay)), Some(&(bx, by))) = (pos.get(a), pos.get(b)) else {
                continue;
            };
            let class = match kind {
                EdgeKind::True => "edge t",
                EdgeKind::False => "edge f",
                EdgeKind::Plain => "edge",
            };
            let d = if rank[b] > rank[a] {
                format!(
                    "M{:.1},{:.1}L{:.1},{:.1}",
                    ax + NODE_W / 2.0,
                    ay + NODE_H,
                    bx + NODE_W / 2.0,
                    by
                )
            } else {
                let bulge = width - BACK_MARGIN / 2.0;
                format!(
                    "M{:.1},{:.1}C{bulge:.1},{:.1} {bulge:.1},{:.1} {:.1},{:.1}",
                    ax + NODE_W,
                    ay + NODE_H / 2.0,
                    ay + NODE_H / 2.0,
                    by + NODE_H / 2.0,
                    bx + NODE_W,
                    by + NODE_H / 2.0
                )
            };
            let _ = write!(
                out,
                "<path class=\"{class}\" d=\"{d}\" marker-end=\"url(#arrow)\"/>"
            );
        }
        for (node, &(x, y)) in self.nodes.iter().zip(&pos) {
            let dashed = if node.dashed { " dashed" } else { "" };
            let key = super::html::escape(&node.key);
            let _ = write!(
                out,
                "<g class=\"blk{dashed}\" data-k=\"{key}\"><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{NODE_W}\" \
                 height=\"{NODE_H}\" rx=\"4\"/><text x=\"{:.1}\" y=\"{:.1}\">{key}</text></g>",
                x + NODE_W / 2.0,
                y + NODE_H / 2.0 + 4.0
            );
        }
        out.push_str("</svg>");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(k: &str) -> Node {
        Node {
            key: k.into(),
            dashed: false,
        }
    }

    /// A loop: entry → header ⇄ body, header → exit. The header is one
    /// layer below the entry, body and exit below it, and the back edge
    /// body → header is drawn as a curve.
    #[test]
    fn layers_follow_forward_edges_and_back_edges_curve() {
        let g = Graph {
            nodes: vec![node("#1"), node("#2"), node("#3"), node("#4")],
            edges: vec![
                (0, 1, EdgeKind::Plain),
                (1, 2, EdgeKind::True),
                (1, 3, EdgeKind::False),
                (2, 1, EdgeKind::Plain),
            ],
        };
        assert_eq!(g.order(), vec![0, 1, 3, 2]);
        let (pos, _, height) = g.layout();
        assert!(pos[1].1 > pos[0].1);
        assert_eq!(pos[2].1, pos[3].1);
        assert!(pos[2].1 > pos[1].1);
        assert_eq!(height, 3.0 * (NODE_H + GAP_Y));
        let svg = g.to_svg();
        assert_eq!(svg.matches("<g class=\"blk\"").count(), 4);
        assert_eq!(svg.matches("class=\"edge").count(), 4);
        assert_eq!(svg.matches('C').count(), 1, "one curve: {svg}");
    }
}
