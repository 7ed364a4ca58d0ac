//! The heap's memory: size-class chunks with mark bitmaps, and large
//! blocks.
//!
//! - A *block* is what one allocation returns: an object (its first word is
//!   a type tag) or a raw buffer (array elements, string bytes). The space
//!   does not know which; the marker does, from where the pointer came from.
//! - Small blocks (up to [`MAX_SMALL`] bytes) live in *chunks*: [`CHUNK`]
//!   bytes aligned to [`CHUNK`], cut into slots of one size class. A chunk's
//!   metadata is out of line ([`Chunk`]), found from any block address by
//!   `addr >> CHUNK_SHIFT` in a two-level table ([`ChunkIndex`]), so
//!   marking costs two loads per pointer, not a hash.
//! - Chunks left empty by a sweep are kept as spares for any class, up to
//!   the room the heap may grow into before the next collection
//!   ([`Space::trim_spares`]); the rest go back to the system allocator.
//! - Larger blocks get their own allocation ([`Large`]), found by their
//!   exact address.
//!
//! Invariants:
//! - A slot is *in use* when its bit in `in_use` is set (it survived the
//!   last sweep) or it was handed out since then (it is behind its class's
//!   cursor). Allocation only hands out slots whose `in_use` bit is clear,
//!   scanning each class's chunks in order from the cursor, so nothing in
//!   use is handed out twice.
//! - Between collections every `marks` bitmap is all zero. The sweep makes
//!   `in_use = marks` (what was not marked is free), clears `marks`, resets
//!   the cursors, and returns chunks with no marked slot to the allocator.
//! - Every handed-out block is zeroed (small ones when handed out, large
//!   ones by the system allocator); `live_bytes` counts the slot (or large
//!   block) sizes of the blocks in use.

use std::alloc::Layout;
use std::collections::HashMap;

/// log2 of the chunk size.
pub const CHUNK_SHIFT: usize = 18;
/// Bytes per chunk (also its alignment).
pub const CHUNK: usize = 1 << CHUNK_SHIFT;
/// The largest block a size class holds; larger ones are [`Large`].
pub const MAX_SMALL: usize = 8192;

/// Slot sizes of the size classes (multiples of 8; at most 12.5% waste
/// above 64 bytes).
const CLASS_SIZES: [u32; 36] = [
    8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640,
    768, 896, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192,
];

/// The size class of `size` bytes (`1 ..= MAX_SMALL`).
fn class_of(size: usize) -> usize {
    if size <= 64 {
        return (size.max(1) - 1) / 8;
    }
    CLASS_SIZES.partition_point(|&c| (c as usize) < size)
}

/// Bits of a chunk number resolved by the second level of [`ChunkIndex`].
const L2_BITS: usize = 14;
/// Addresses above this are never heap blocks (user-space x86-64 and
/// AArch64 addresses have 48 bits).
const ADDR_LIMIT: usize = 1 << 48;

/// Chunk number (`addr >> CHUNK_SHIFT`) → chunk id, as a two-level table
/// (Go's arena index): entries hold `id + 1`, 0 for none. The first level
/// is a short list of `(high bits, table)` pairs rather than an array over
/// the whole address space: each table covers 4 GiB of addresses, so a
/// heap has one or two, and a list costs nothing to set up (an array of
/// every possible table was a megabyte to zero at a program's first
/// allocation).
#[derive(Default)]
struct ChunkIndex {
    l1: Vec<(usize, Box<[u32]>)>,
}

impl ChunkIndex {
    fn split(addr: usize) -> (usize, usize) {
        let k = addr >> CHUNK_SHIFT;
        (k >> L2_BITS, k & ((1 << L2_BITS) - 1))
    }

    #[inline]
    fn get(&self, addr: usize) -> Option<usize> {
        let (i, j) = Self::split(addr);
        let (_, table) = self.l1.iter().find(|(k, _)| *k == i)?;
        let id = table[j];
        (id != 0).then(|| id as usize - 1)
    }

    fn set(&mut self, addr: usize, id: Option<usize>) {
        if addr >= ADDR_LIMIT {
            return;
        }
        let (i, j) = Self::split(addr);
        let pos = match self.l1.iter().position(|(k, _)| *k == i) {
            Some(pos) => pos,
            None => {
                self.l1
                    .push((i, vec![0u32; 1 << L2_BITS].into_boxed_slice()));
                self.l1.len() - 1
            }
        };
        self.l1[pos].1[j] = id.map_or(0, |id| id as u32 + 1);
    }
}

/// One chunk's metadata.
struct Chunk {
    base: usize,
    slot: usize,
    /// `ceil(2^32 / slot)`: `(off * recip) >> 32 == off / slot` for every
    /// offset in a chunk (`off < 2^18`, `slot <= 8192`), without a division.
    recip: u64,
    nslots: usize,
    /// Slots in use as of the last sweep (bits past `nslots` are set).
    in_use: Vec<u64>,
    /// Slots marked by the running collection.
    marks: Vec<u64>,
}

/// A block above [`MAX_SMALL`].
struct Large {
    layout: Layout,
    marked: bool,
}

/// Where a class's allocation stands: the chunk at `pos` in the class's
/// list (its `base` and slot size cached), bitmap word `word`, and the
/// free slots of that word not yet handed out.
#[derive(Clone, Copy, Default)]
struct Cursor {
    pos: usize,
    base: usize,
    word: usize,
    free: u64,
}

/// What [`Space::mark`] found at an address.
#[derive(Debug, PartialEq)]
pub enum Marked {
    /// Not a block of this heap (a string constant, or nil).
    Foreign,
    /// Marked before.
    Already,
    /// Marked now.
    New,
}

fn chunk_layout() -> Layout {
    Layout::from_size_align(CHUNK, CHUNK).expect("the chunk layout is valid")
}

/// The heap's memory (see the module docs).
pub struct Space {
    chunks: Vec<Option<Chunk>>,
    free_ids: Vec<usize>,
    index: ChunkIndex,
    /// Per class, its chunks (ids) in allocation order.
    class_chunks: Vec<Vec<usize>>,
    cursors: Vec<Cursor>,
    /// Empty chunks kept for reuse (their base addresses).
    spares: Vec<usize>,
    large: HashMap<usize, Large>,
    /// Bytes of the blocks in use (slot sizes, large block sizes).
    pub live_bytes: usize,
}

impl Default for Space {
    fn default() -> Self {
        Space {
            chunks: Vec::new(),
            free_ids: Vec::new(),
            index: ChunkIndex::default(),
            class_chunks: vec![Vec::new(); CLASS_SIZES.len()],
            cursors: vec![Cursor::default(); CLASS_SIZES.len()],
            spares: Vec::new(),
            large: HashMap::new(),
            live_bytes: 0,
        }
    }
}

/// Zeroes the `slot` bytes at `p` (a multiple of 8).
///
/// # Safety
/// `p` must be valid for `slot` bytes and 8-byte aligned.
#[inline]
unsafe fn zero_slot(p: *mut u8, slot: usize) {
    let w = p as *mut u64;
    // SAFETY: by the caller's contract.
    unsafe {
        if slot <= 64 {
            for i in 0..slot / 8 {
                std::ptr::write_volatile(w.add(i), 0);
            }
        } else {
            std::ptr::write_bytes(p, 0, slot);
        }
    }
}

impl Space {
    /// `size` zeroed bytes, 8-byte aligned; `None` when the system is out
    /// of memory.
    #[inline]
    pub fn alloc(&mut self, size: usize) -> Option<*mut u8> {
        if size > MAX_SMALL {
            return self.alloc_large(size);
        }
        let class = class_of(size);
        let slot = CLASS_SIZES[class] as usize;
        let cur = &mut self.cursors[class];
        let p = if cur.free != 0 {
            let bit = cur.free.trailing_zeros() as usize;
            cur.free &= cur.free - 1;
            (cur.base + (cur.word * 64 + bit) * slot) as *mut u8
        } else {
            self.alloc_slow(class)?
        };
        // SAFETY: `p` is a free slot of `slot` bytes.
        unsafe { zero_slot(p, slot) };
        self.live_bytes += slot;
        Some(p)
    }

    /// Moves `class`'s cursor to the next free slot (through its chunks,
    /// then a new chunk) and hands it out.
    #[cold]
    fn alloc_slow(&mut self, class: usize) -> Option<*mut u8> {
        loop {
            let list = &self.class_chunks[class];
            let cur = &mut self.cursors[class];
            if cur.free != 0 {
                let slot = CLASS_SIZES[class] as usize;
                let bit = cur.free.trailing_zeros() as usize;
                cur.free &= cur.free - 1;
                return Some((cur.base + (cur.word * 64 + bit) * slot) as *mut u8);
            }
            let words = list
                .get(cur.pos)
                .and_then(|&id| self.chunks[id].as_ref())
                .map_or(0, |c| c.in_use.len());
            if cur.word + 1 < words {
                cur.word += 1;
            } else if cur.pos + 1 < list.len() {
                cur.pos += 1;
                cur.word = 0;
            } else {
                self.new_chunk(class)?;
                continue;
            }
            let c = self.chunks[list[cur.pos]].as_ref()?;
            cur.base = c.base;
            cur.free = !c.in_use[cur.word];
        }
    }

    /// Adds an empty chunk (a spare, or a new one) at the end of `class`'s
    /// list and points the cursor at it.
    fn new_chunk(&mut self, class: usize) -> Option<()> {
        let base = match self.spares.pop() {
            Some(b) => b,
            None => {
                // SAFETY: the layout has a non-zero size.
                let b = unsafe { std::alloc::alloc(chunk_layout()) } as usize;
                if b == 0 || b >= ADDR_LIMIT {
                    return None;
                }
                b
            }
        };
        let slot = CLASS_SIZES[class] as usize;
        let nslots = CHUNK / slot;
        let words = nslots.div_ceil(64);
        let mut in_use = vec![0u64; words];
        if !nslots.is_multiple_of(64) {
            in_use[words - 1] = !0u64 << (nslots % 64);
        }
        let first = !in_use[0];
        let chunk = Chunk {
            base,
            slot,
            recip: (1u64 << 32).div_ceil(slot as u64),
            nslots,
            marks: vec![0; words],
            in_use,
        };
        let id = match self.free_ids.pop() {
            Some(id) => {
                self.chunks[id] = Some(chunk);
                id
            }
            None => {
                self.chunks.push(Some(chunk));
                self.chunks.len() - 1
            }
        };
        self.index.set(base, Some(id));
        let list = &mut self.class_chunks[class];
        list.push(id);
        self.cursors[class] = Cursor {
            pos: list.len() - 1,
            base,
            word: 0,
            free: first,
        };
        Some(())
    }

    fn alloc_large(&mut self, size: usize) -> Option<*mut u8> {
        let layout = Layout::from_size_align(size.checked_add(7)? & !7, 16).ok()?;
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return None;
        }
        self.live_bytes += layout.size();
        self.large.insert(
            p as usize,
            Large {
                layout,
                marked: false,
            },
        );
        Some(p)
    }

    /// Marks the block starting at `p`.
    #[inline]
    pub fn mark(&mut self, p: usize) -> Marked {
        if let Some(id) = self.index.get(p) {
            let Some(c) = self.chunks[id].as_mut() else {
                return Marked::Foreign;
            };
            let off = p.wrapping_sub(c.base);
            let i = ((off as u64 * c.recip) >> 32) as usize;
            if i * c.slot != off || i >= c.nslots {
                return Marked::Foreign;
            }
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            if c.marks[w] & bit != 0 {
                return Marked::Already;
            }
            c.marks[w] |= bit;
            return Marked::New;
        }
        match self.large.get_mut(&p) {
            Some(l) if l.marked => Marked::Already,
            Some(l) => {
                l.marked = true;
                Marked::New
            }
            None => Marked::Foreign,
        }
    }

    /// Frees every block not marked since the last sweep; returns the bytes
    /// freed. Chunks left empty become spares.
    pub fn sweep(&mut self) -> usize {
        let before = self.live_bytes;
        let mut live = 0usize;
        for list in &mut self.class_chunks {
            let mut kept = Vec::with_capacity(list.len());
            for &id in list.iter() {
                let Some(c) = self.chunks[id].as_mut() else {
                    continue;
                };
                let marked: usize = c.marks.iter().map(|w| w.count_ones() as usize).sum();
                if marked == 0 {
                    self.index.set(c.base, None);
                    self.spares.push(c.base);
                    self.chunks[id] = None;
                    self.free_ids.push(id);
                    continue;
                }
                live += marked * c.slot;
                let tail = c.nslots % 64;
                std::mem::swap(&mut c.in_use, &mut c.marks);
                if tail != 0 {
                    let last = c.in_use.len() - 1;
                    c.in_use[last] |= !0u64 << tail;
                }
                c.marks.iter_mut().for_each(|w| *w = 0);
                kept.push(id);
            }
            *list = kept;
        }
        self.large.retain(|&p, l| {
            if l.marked {
                l.marked = false;
                live += l.layout.size();
                true
            } else {
                // SAFETY: allocated with this layout; unreachable.
                unsafe { std::alloc::dealloc(p as *mut u8, l.layout) };
                false
            }
        });
        for (class, cur) in self.cursors.iter_mut().enumerate() {
            *cur = match self.class_chunks[class].first() {
                Some(&id) => {
                    let c = self.chunks[id].as_ref().expect("a listed chunk exists");
                    Cursor {
                        pos: 0,
                        base: c.base,
                        word: 0,
                        free: !c.in_use[0],
                    }
                }
                None => Cursor::default(),
            };
        }
        self.live_bytes = live;
        before.saturating_sub(live)
    }

    /// Returns spare chunks to the system until at most `keep_bytes` of
    /// them are left.
    pub fn trim_spares(&mut self, keep_bytes: usize) {
        while self.spares.len() * CHUNK > keep_bytes {
            let Some(base) = self.spares.pop() else {
                break;
            };
            // SAFETY: allocated with this layout; no block in it is in use.
            unsafe { std::alloc::dealloc(base as *mut u8, chunk_layout()) };
        }
    }

    /// Bytes the space holds from the system (chunks, spares and large
    /// blocks).
    pub fn footprint(&self) -> usize {
        let chunks = self.chunks.iter().flatten().count() + self.spares.len();
        chunks * CHUNK + self.large.values().map(|l| l.layout.size()).sum::<usize>()
    }
}

impl Drop for Space {
    fn drop(&mut self) {
        let bases: Vec<usize> = self.chunks.iter().flatten().map(|c| c.base).collect();
        for base in bases.into_iter().chain(self.spares.drain(..)) {
            // SAFETY: allocated with this layout; the heap is going away
            // with the thread that used it.
            unsafe { std::alloc::dealloc(base as *mut u8, chunk_layout()) };
        }
        for (p, l) in self.large.drain() {
            // SAFETY: as above.
            unsafe { std::alloc::dealloc(p as *mut u8, l.layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reciprocal `mark` divides by is exact for every offset of
    /// every class.
    #[test]
    fn slot_index_by_reciprocal_is_exact() {
        for &slot in &CLASS_SIZES {
            let slot = slot as u64;
            let recip = (1u64 << 32).div_ceil(slot);
            for off in 0..CHUNK as u64 {
                assert_eq!((off * recip) >> 32, off / slot, "slot {slot}, offset {off}");
            }
        }
    }

    #[test]
    fn size_classes_round_up() {
        for size in 1..=MAX_SMALL {
            let c = class_of(size);
            assert!(CLASS_SIZES[c] as usize >= size, "size {size}");
            assert!(
                c == 0 || (CLASS_SIZES[c - 1] as usize) < size,
                "size {size}"
            );
        }
    }

    #[test]
    fn unmarked_blocks_are_reused_and_marked_ones_kept() {
        let mut s = Space::default();
        let a = s.alloc(24).unwrap() as usize;
        let b = s.alloc(24).unwrap() as usize;
        let big = s.alloc(MAX_SMALL + 1).unwrap() as usize;
        assert_eq!(s.live_bytes, 48 + MAX_SMALL + 8);
        assert_eq!(s.mark(a), Marked::New);
        assert_eq!(s.mark(a), Marked::Already);
        assert_eq!(s.mark(12345), Marked::Foreign);
        assert_eq!(s.sweep(), 24 + MAX_SMALL + 8);
        assert_eq!(s.live_bytes, 24);
        // `b`'s slot is free again; `a`'s is not.
        let c = s.alloc(24).unwrap() as usize;
        assert_eq!(c, b);
        assert_ne!(s.alloc(24).unwrap() as usize, a);
        assert_eq!(s.mark(big), Marked::Foreign);
        // Nothing marked: the chunk becomes a spare, then goes back to
        // the system.
        s.sweep();
        assert_eq!((s.live_bytes, s.footprint()), (0, CHUNK));
        s.trim_spares(0);
        assert_eq!(s.footprint(), 0);
    }

    #[test]
    fn a_full_chunk_continues_in_a_new_one() {
        let mut s = Space::default();
        let n = CHUNK / 4096 + 1;
        let blocks: Vec<usize> = (0..n).map(|_| s.alloc(4096).unwrap() as usize).collect();
        let mut sorted = blocks.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), n);
        assert_eq!(s.footprint(), 2 * CHUNK);
    }
}
