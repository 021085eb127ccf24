//! The board: a small file shared by a supervising parent and the
//! measuring child it runs, through which the child says what it is doing
//! without a system call (`run` supervises itself when it loads a solver
//! into its own process: `commands::run::supervise`).
//!
//! The child maps the file and stores plain numbers in it with atomic
//! stores (no clock read, no system call): its phase, the results directory
//! it writes, the dataset of the group it runs and, per solver thread, a
//! call counter that is odd while a call into an in-process library runs,
//! the strategy and the puzzle of that call. Those stores happen before and
//! after each call, outside the timed region. The parent never maps the
//! file: it reads it with `pread`, which sees the child's stores through
//! the shared page cache, while the child runs (to notice a call that does
//! not return) and after it has died (to name the puzzle it died on).
//!
//! Layout, in native-endian 64-bit words (both processes are the same
//! binary on the same machine): a header of [`HEADER_WORDS`] words, the
//! results directory's path at byte [`DIR_OFFSET`], and from byte
//! [`SLOTS_OFFSET`] one slot of [`SLOT_WORDS`] words per solver thread.

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The environment variable that hands a measuring child its board's path.
pub const ENV: &str = "BENCH_SUDOKU_BOARD";

static BOARD: OnceLock<Option<Board>> = OnceLock::new();

/// This process's board, when it is a supervised measuring child whose
/// board could be mapped ([`attach`]).
pub fn this() -> Option<&'static Board> {
    BOARD.get()?.as_ref()
}

/// Attaches this process to the board `value` names (the value of [`ENV`],
/// `<parent pid>:<path>`, which `commands` reads from the environment and
/// removes from it before any thread starts). Only the parent's own child
/// attaches (a process the child starts may inherit the variable). Once
/// attached, the child dies with its parent, its shield is installed and
/// the board is watched for culprits. A board that cannot be mapped is
/// warned about: measuring goes on, and the supervisor then cannot name a
/// puzzle the child dies on, and says so. Called once; later calls do
/// nothing.
pub fn attach(value: &std::ffi::OsStr) {
    BOARD.get_or_init(|| {
        use std::os::unix::ffi::OsStrExt;
        let bytes = value.as_bytes();
        let colon = bytes.iter().position(|&b| b == b':')?;
        let parent: u32 = std::str::from_utf8(&bytes[..colon]).ok()?.parse().ok()?;
        if std::os::unix::process::parent_id() != parent {
            return None;
        }
        die_with_parent(parent);
        protect(parent);
        let path = Path::new(std::ffi::OsStr::from_bytes(&bytes[colon + 1..]));
        match Board::open(path) {
            Ok(b) => {
                watch_for_culprits(&b);
                Some(b)
            }
            Err(e) => {
                eprintln!("bench-sudoku: warning: cannot map the supervisor's board: {e}");
                None
            }
        }
    });
}

/// Asks the kernel to kill this process when its parent dies (Linux), so
/// that a supervisor killed outright leaves no measuring child behind; and
/// exits when the parent is already gone.
fn die_with_parent(parent: u32) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number and touches
        // no memory of this process.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        }
    }
    if std::os::unix::process::parent_id() != parent {
        std::process::exit(super_gone());
    }
}

/// Installs the shield's filter (`crate::shield`) on this measuring
/// process before it loads any solver: a solver in it may then neither stop
/// nor signal its supervisor nor raise the signals bench-sudoku interprets.
fn protect(parent: u32) {
    crate::shield::set_supervisor(parent);
    if !crate::shield::supported() {
        return;
    }
    if let Err(e) = crate::shield::protect_this_process() {
        eprintln!(
            "bench-sudoku: warning: {e}: a solver loaded into the measuring process can signal \
             or stop bench-sudoku"
        );
    }
}

/// The exit status of a measuring child whose supervisor has gone.
fn super_gone() -> i32 {
    eprintln!("bench-sudoku: the supervising process is gone; stopping");
    130
}

/// The calling solver thread's slot on this process's board, if any: its
/// index in the rayon pool it belongs to, or the slot it was given by
/// [`use_slot_here`].
pub fn this_thread_slot() -> Option<SlotRef<'static>> {
    let i = match HERE.with(|h| h.get()) {
        Some(i) => i,
        None => rayon::current_thread_index()?,
    };
    let slot = this()?.slot(i)?;
    MY_SLOT.with(|s| s.set(i as u64 + 1));
    Some(slot)
}

/// Gives the calling thread, which belongs to no rayon pool (the main
/// thread of a command that solves one puzzle at a time), slot `i`.
pub fn use_slot_here(i: usize) {
    HERE.with(|h| h.set(Some(i)));
}

thread_local! {
    /// The slot given to this thread by [`use_slot_here`].
    static HERE: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
    /// The calling thread's slot on the board, plus one (0: none): read by
    /// the handlers of [`watch_for_culprits`]. Constant-initialised and
    /// without a destructor, so reading it needs no allocation or lock
    /// (safe in a signal handler).
    static MY_SLOT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The board's culprit word, once a board is attached (it lives as long as
/// the process: `this()` never drops it).
static CULPRIT: std::sync::atomic::AtomicPtr<AtomicU64> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());
/// The board's word for what a refused system call tried (as long-lived).
static TRAPPED: std::sync::atomic::AtomicPtr<AtomicU64> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// The signals that end a process and that a crashing library raises.
const FATAL: [libc::c_int; 7] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
    libc::SIGTRAP,
    libc::SIGSYS,
];

/// Records on the board which thread raises a fatal signal or calls
/// `exit()`, so that a supervisor names the one call that took the process
/// down even when several threads were inside a library (`_exit()` runs
/// nothing, and is then only narrowed to the calls that were running).
fn watch_for_culprits(board: &Board) {
    let word = &board.words()[h::CULPRIT] as *const AtomicU64 as *mut AtomicU64;
    CULPRIT.store(word, Ordering::Release);
    let word = &board.words()[h::TRAPPED] as *const AtomicU64 as *mut AtomicU64;
    TRAPPED.store(word, Ordering::Release);
    for sig in FATAL {
        // SAFETY: `on_fatal` is an `extern "C" fn(c_int, *mut siginfo_t,
        // *mut c_void)`, the handler type of sigaction with SA_SIGINFO; it
        // is async-signal-safe (see there). The struct is zeroed (an empty
        // mask) before its fields are set, as sigaction(2) expects.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fatal
                as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as libc::sighandler_t;
            action.sa_flags = libc::SA_ONSTACK | libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
    // SAFETY: `on_exit` is an `extern "C" fn()` that only stores to an
    // atomic (see `note_culprit`).
    unsafe {
        libc::atexit(on_exit);
    }
}

/// Stores the calling thread's slot as the culprit, unless one already is.
/// Async-signal-safe: a thread-local `Cell` read, a pointer load and one
/// compare-and-swap on memory that is never unmapped.
fn note_culprit() {
    let slot = MY_SLOT.with(|s| s.get());
    let word = CULPRIT.load(Ordering::Acquire);
    if slot != 0 && !word.is_null() {
        // SAFETY: `word` points into the board of `this()`, which is kept
        // in a static and never dropped, so the memory stays mapped.
        let culprit = unsafe { &*word };
        let _ = culprit.compare_exchange(0, slot, Ordering::AcqRel, Ordering::Relaxed);
    }
}

/// `si_code` of a SIGSYS raised by a seccomp filter (`SYS_SECCOMP`).
const SYS_SECCOMP: libc::c_int = 1;

extern "C" fn on_fatal(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    note_culprit();
    // SAFETY: with SA_SIGINFO the kernel passes a valid siginfo_t. For a
    // SIGSYS the shield's filter raised, `si_errno` holds the filter's
    // data: stored (plus one) in the board's word, which stays mapped for
    // the life of the process (see `note_culprit`).
    unsafe {
        let word = TRAPPED.load(Ordering::Acquire);
        if sig == libc::SIGSYS
            && !info.is_null()
            && (*info).si_code == SYS_SECCOMP
            && !word.is_null()
        {
            let data = ((*info).si_errno as u32 & 0xffff) as u64;
            let _ = (*word).compare_exchange(0, data + 1, Ordering::AcqRel, Ordering::Relaxed);
        }
    }
    // SAFETY: signal(2) and raise(2) are async-signal-safe. With the
    // default action restored, the signal raised again ends the process
    // as it would have (it is blocked while this handler runs, so it is
    // delivered on return; a fault re-executed faults again).
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

extern "C" fn on_exit() {
    note_culprit();
}

/// The first word of every board.
pub const MAGIC: u64 = u64::from_le_bytes(*b"BSBOARD1");
/// Words of the header.
pub const HEADER_WORDS: usize = 16;
/// Where the results directory's path starts, and its longest length.
pub const DIR_OFFSET: u64 = 512;
pub const DIR_MAX: usize = 7680;
/// Where the slots start.
pub const SLOTS_OFFSET: u64 = 8192;
/// Puzzles of a chunk a slot can name (the pipeline's chunks are at most
/// 64 puzzles).
pub const TABLE: usize = 64;
/// Words per slot: the call counter, the strategy, the position in the
/// chunk, the chunk's length, whether the table holds the puzzle's text,
/// padding to a cache line, then the chunk's (index, line) pairs (or one
/// pair and the text of its puzzle).
pub const SLOT_WORDS: usize = 8 + 2 * TABLE;

/// Header words.
mod h {
    pub const MAGIC: usize = 0;
    pub const SLOTS: usize = 1;
    pub const PID: usize = 2;
    pub const PHASE: usize = 3;
    /// The exit status the child is about to return, plus one (0: none).
    pub const EXIT: usize = 4;
    /// The strategy spec being loaded, plus one (0: none).
    pub const LOADING: usize = 5;
    pub const DATASET: usize = 6;
    pub const DIR_LEN: usize = 7;
    /// The run's index of the group's first strategy (slots hold indexes
    /// within the group).
    pub const GROUP: usize = 8;
    /// The slot, plus one, of the thread that raised a fatal signal or
    /// called `exit()` first (0: none).
    pub const CULPRIT: usize = 9;
    /// What a system call the shield refused tried (the filter's data,
    /// plus one; 0: none).
    pub const TRAPPED: usize = 10;
}

/// Slot words.
mod s {
    pub const CALLS: usize = 0;
    pub const STRATEGY: usize = 1;
    pub const POSITION: usize = 2;
    pub const CHUNK_LEN: usize = 3;
    /// 81 when the table holds, after its first pair, the puzzle's 81
    /// characters (a command that solves one puzzle at a time).
    pub const TEXT: usize = 4;
    pub const TABLE: usize = 8;
}

/// What the measuring child is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Started; reading its options.
    Starting = 1,
    /// Loading or starting the strategies (a library's initialisers run
    /// here).
    Loading = 2,
    /// Measuring.
    Measuring = 3,
    /// Writing the reports.
    Writing = 4,
    /// Done: its exit status is on the board.
    Finished = 5,
    /// Unloading the solvers (a library's destructors run here), the
    /// results written.
    Unloading = 6,
}

impl Phase {
    fn from_word(w: u64) -> Option<Phase> {
        Some(match w {
            1 => Phase::Starting,
            2 => Phase::Loading,
            3 => Phase::Measuring,
            4 => Phase::Writing,
            5 => Phase::Finished,
            6 => Phase::Unloading,
            _ => return None,
        })
    }
}

/// The size of a board for `slots` solver threads.
pub fn size(slots: usize) -> u64 {
    SLOTS_OFFSET + (slots * SLOT_WORDS * 8) as u64
}

/// Creates the board file for `slots` threads (zeroed, the header's magic
/// and slot count set), for the parent to hand to its child.
pub fn create(file: &File, slots: usize) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.set_len(size(slots))?;
    let mut head = [0u8; 16];
    head[..8].copy_from_slice(&MAGIC.to_ne_bytes());
    head[8..].copy_from_slice(&(slots as u64).to_ne_bytes());
    file.write_all_at(&head, 0)
}

/// The child's side: the board mapped into memory.
pub struct Board {
    /// Keeps the mapping alive; `words` points into it.
    _map: memmap2::MmapRaw,
    words: *const AtomicU64,
    len: usize,
    slots: usize,
    file: File,
}

// SAFETY: `Board` owns its mapping, which stays valid (and at the same
// address) until the board is dropped. Every access to the mapped memory
// goes through `AtomicU64`, whose operations may be made from any thread;
// the raw pointer is never written through otherwise. So sharing or
// sending a `Board` between threads is as sound as sharing a
// `[AtomicU64]`.
unsafe impl Send for Board {}
unsafe impl Sync for Board {}

impl Board {
    /// Maps the board file at `path`, checking its magic and size.
    pub fn open(path: &Path) -> std::io::Result<Board> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)?;
        let len = file.metadata()?.len();
        let bad = |why: &str| std::io::Error::other(format!("{}: {why}", path.display()));
        if !(SLOTS_OFFSET..=(1 << 30)).contains(&len) {
            return Err(bad("not a board (size)"));
        }
        let map = memmap2::MmapRaw::map_raw(&file)?;
        let words_len = map.len() / 8;
        // SAFETY: the mapping is page-aligned (so aligned for `AtomicU64`)
        // and `words_len * 8` bytes long; every bit pattern is a valid
        // `AtomicU64`. The memory stays mapped while `map` lives, which is
        // as long as the `Board` that holds the pointer. Within this
        // process the memory is only accessed through these atomics; the
        // other process only reads the file with `pread` (a copy made by
        // the kernel, outside this process's memory model). The file is a
        // private temporary file of the parent's, which neither process
        // truncates while mapped.
        let board = Board {
            words: map.as_ptr().cast::<AtomicU64>(),
            _map: map,
            len: words_len,
            slots: 0,
            file,
        };
        let w = board.words();
        if w[h::MAGIC].load(Ordering::Relaxed) != MAGIC {
            return Err(bad("not a board (magic)"));
        }
        let slots = w[h::SLOTS].load(Ordering::Relaxed) as usize;
        if size(slots) > len {
            return Err(bad("not a board (slots)"));
        }
        Ok(Board { slots, ..board })
    }

    /// The mapped words.
    fn words(&self) -> &[AtomicU64] {
        // SAFETY: see `open`: `words` points to `len` initialised,
        // aligned `AtomicU64`s that stay mapped while `self` lives.
        unsafe { std::slice::from_raw_parts(self.words, self.len) }
    }

    fn set(&self, word: usize, v: u64) {
        self.words()[word].store(v, Ordering::Release);
    }

    /// Records this process's pid.
    pub fn started(&self) {
        self.set(h::PID, u64::from(std::process::id()));
        self.phase(Phase::Starting);
    }

    pub fn phase(&self, p: Phase) {
        self.set(h::PHASE, p as u64);
    }

    /// Strategy spec `i` (0-based, in the order of `-s`) is being loaded;
    /// `None`: none is.
    pub fn loading(&self, i: Option<usize>) {
        self.set(h::LOADING, i.map_or(0, |i| i as u64 + 1));
    }

    /// The group running is on dataset `i` (0-based, in the order given),
    /// and its strategies start at the run's strategy `first`.
    pub fn group(&self, i: usize, first: usize) {
        self.set(h::DATASET, i as u64);
        self.set(h::GROUP, first as u64);
    }

    /// The results directory being written (a scan writes several, one
    /// after another). Written with `pwrite`, once per directory.
    pub fn results_dir(&self, dir: &Path) {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::FileExt;
        let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let bytes = abs.as_os_str().as_bytes();
        if bytes.len() > DIR_MAX {
            return;
        }
        if self.file.write_all_at(bytes, DIR_OFFSET).is_ok() {
            self.set(h::DIR_LEN, bytes.len() as u64);
        }
    }

    /// The exit status the child is about to return, its results written.
    pub fn finished(&self, code: i32) {
        self.set(h::EXIT, (code as u32) as u64 + 1);
        self.phase(Phase::Finished);
    }

    /// The exit status the child is about to return without writing its
    /// results (it gave up waiting for a solve after an interrupt): the
    /// supervisor rebuilds them from the rows.
    pub fn abandoned(&self, code: i32) {
        self.set(h::EXIT, (code as u32) as u64 + 1);
    }

    /// Solver thread `i`'s slot (`None` past the board's slots).
    pub fn slot(&self, i: usize) -> Option<SlotRef<'_>> {
        (i < self.slots).then(|| {
            let start = (SLOTS_OFFSET as usize) / 8 + i * SLOT_WORDS;
            SlotRef(&self.words()[start..start + SLOT_WORDS])
        })
    }
}

/// One solver thread's slot on the board.
#[derive(Clone, Copy)]
pub struct SlotRef<'a>(&'a [AtomicU64]);

impl SlotRef<'_> {
    /// Names the puzzles of the chunk about to be solved: their dataset
    /// indexes and lines, in chunk order (up to [`TABLE`] of them).
    pub fn chunk(&self, puzzles: impl ExactSizeIterator<Item = (u64, u64)>) {
        let w = self.0;
        w[s::TEXT].store(0, Ordering::Relaxed);
        w[s::CHUNK_LEN].store(puzzles.len() as u64, Ordering::Relaxed);
        for (k, (index, line)) in puzzles.take(TABLE).enumerate() {
            w[s::TABLE + 2 * k].store(index, Ordering::Relaxed);
            w[s::TABLE + 2 * k + 1].store(line, Ordering::Relaxed);
        }
    }

    /// The one puzzle about to be solved, named by `index` and `line` and
    /// shown by its 81 characters (a command that solves one puzzle at a
    /// time and has no dataset line to name it by).
    pub fn puzzle(&self, index: u64, line: u64, text: &[u8; 81]) {
        self.chunk(std::iter::once((index, line)));
        let w = self.0;
        for (k, bytes) in text.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..bytes.len()].copy_from_slice(bytes);
            w[s::TABLE + 2 + k].store(u64::from_ne_bytes(word), Ordering::Relaxed);
        }
        w[s::TEXT].store(81, Ordering::Relaxed);
    }

    /// The strategy (its position in the group) about to solve the chunk.
    pub fn strategy(&self, k: usize) {
        self.0[s::STRATEGY].store(k as u64, Ordering::Relaxed);
    }

    /// The call counter: odd while a call runs.
    pub fn calls(&self) -> &AtomicU64 {
        &self.0[s::CALLS]
    }

    /// The position in the chunk of the puzzle about to be solved.
    #[inline(always)]
    pub fn position(&self, i: usize) {
        self.0[s::POSITION].store(i as u64, Ordering::Relaxed);
    }

    /// A call that is not a solve: making or freeing a thread's state.
    pub fn lifecycle(&self, what: Lifecycle) {
        self.0[s::POSITION].store(what as u64, Ordering::Relaxed);
    }
}

/// Calls into a library other than solves, as a slot names them (in place
/// of a position in the chunk).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Lifecycle {
    /// `create`: a thread's state is made.
    Create = u64::MAX - 1,
    /// `destroy`: a thread's state is freed.
    Destroy = u64::MAX - 2,
}

/// What the parent reads off the board.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    pub pid: u32,
    pub phase: Option<Phase>,
    pub exit: Option<i32>,
    /// The strategy spec being loaded (0-based).
    pub loading: Option<usize>,
    pub dataset: usize,
    pub dir: Option<std::path::PathBuf>,
    /// Per solver thread with a call running: the thread, its call number,
    /// and what it is solving.
    pub calls: Vec<Call>,
    /// The thread that raised a fatal signal or called `exit()`.
    pub culprit: Option<usize>,
    /// What a system call the shield refused tried (its data).
    pub trapped: Option<u32>,
}

/// A call into an in-process library that was running when the board was
/// read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub thread: usize,
    /// The call counter (odd): the same number at two readings means the
    /// same call.
    pub number: u64,
    /// The strategy's index in the run.
    pub strategy: usize,
    /// The puzzle's dataset index and line, when the slot names it.
    pub puzzle: Option<(u64, u64)>,
    /// A call that is not a solve.
    pub lifecycle: Option<Lifecycle>,
    /// The puzzle's 81 characters, when the slot holds them.
    pub text: Option<String>,
}

/// Reads the board file (the parent's side).
pub fn read(file: &File) -> std::io::Result<Reading> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    let mut bytes = vec![0u8; len as usize];
    file.read_exact_at(&mut bytes, 0)?;
    let word = |i: usize| -> u64 {
        bytes
            .get(8 * i..8 * i + 8)
            .map_or(0, |b| u64::from_ne_bytes(b.try_into().expect("8 bytes")))
    };
    if word(h::MAGIC) != MAGIC {
        return Err(std::io::Error::other("not a board"));
    }
    let slots = word(h::SLOTS) as usize;
    let dir_len = (word(h::DIR_LEN) as usize).min(DIR_MAX);
    let dir = (dir_len > 0).then(|| {
        use std::os::unix::ffi::OsStrExt;
        let at = DIR_OFFSET as usize;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&bytes[at..at + dir_len]))
    });
    let mut calls = Vec::new();
    for t in 0..slots {
        let base = SLOTS_OFFSET as usize / 8 + t * SLOT_WORDS;
        let number = word(base + s::CALLS);
        if number % 2 == 0 {
            continue;
        }
        let position = word(base + s::POSITION) as usize;
        let chunk_len = word(base + s::CHUNK_LEN) as usize;
        let lifecycle = [Lifecycle::Create, Lifecycle::Destroy]
            .into_iter()
            .find(|&l| l as u64 == word(base + s::POSITION));
        let puzzle = (position < chunk_len && position < TABLE).then(|| {
            (
                word(base + s::TABLE + 2 * position),
                word(base + s::TABLE + 2 * position + 1),
            )
        });
        let text = (word(base + s::TEXT) == 81 && chunk_len == 1 && position == 0).then(|| {
            let at = 8 * (base + s::TABLE + 2);
            String::from_utf8_lossy(&bytes[at..at + 81]).into_owned()
        });
        calls.push(Call {
            thread: t,
            number,
            strategy: (word(h::GROUP) + word(base + s::STRATEGY)) as usize,
            puzzle,
            lifecycle,
            text,
        });
    }
    Ok(Reading {
        pid: word(h::PID) as u32,
        phase: Phase::from_word(word(h::PHASE)),
        exit: match word(h::EXIT) {
            0 => None,
            n => Some((n - 1) as u32 as i32),
        },
        loading: match word(h::LOADING) {
            0 => None,
            n => Some(n as usize - 1),
        },
        dataset: word(h::DATASET) as usize,
        dir,
        calls,
        culprit: match word(h::CULPRIT) {
            0 => None,
            n => Some(n as usize - 1),
        },
        trapped: match word(h::TRAPPED) {
            0 => None,
            n => Some((n - 1) as u32),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the child stores through its mapping, the parent reads back
    /// with `pread` from another handle: the cross-check of the mapped
    /// (unsafe) side against the plain file side.
    #[test]
    fn what_the_child_stores_the_parent_reads() {
        let tmp = tempfile::NamedTempFile::new().unwrap();
        create(tmp.as_file(), 3).unwrap();
        let board = Board::open(tmp.path()).unwrap();
        let parent = File::open(tmp.path()).unwrap();
        let r = read(&parent).unwrap();
        assert_eq!((r.phase, r.calls.len(), r.dir.clone()), (None, 0, None));

        board.started();
        board.phase(Phase::Loading);
        board.loading(Some(2));
        let r = read(&parent).unwrap();
        assert_eq!(r.pid, std::process::id());
        assert_eq!((r.phase, r.loading), (Some(Phase::Loading), Some(2)));

        board.loading(None);
        board.phase(Phase::Measuring);
        board.group(1, 2);
        board.results_dir(Path::new("/tmp/some results/dir"));
        let slot = board.slot(2).unwrap();
        slot.chunk([(40u64, 42u64), (41, 43), (47, 49)].into_iter());
        slot.strategy(5);
        slot.position(1);
        slot.calls().store(7, Ordering::Relaxed);
        assert!(board.slot(3).is_none());
        let r = read(&parent).unwrap();
        assert_eq!(r.dataset, 1);
        assert_eq!(r.dir.as_deref(), Some(Path::new("/tmp/some results/dir")));
        assert_eq!(
            r.calls,
            vec![Call {
                thread: 2,
                number: 7,
                strategy: 7,
                puzzle: Some((41, 43)),
                lifecycle: None,
                text: None,
            }]
        );
        // Past the chunk: the call is known, its puzzle is not.
        slot.position(3);
        assert_eq!(read(&parent).unwrap().calls[0].puzzle, None);
        // A state freed: named as such.
        slot.lifecycle(Lifecycle::Destroy);
        let c = &read(&parent).unwrap().calls[0];
        assert_eq!((c.puzzle, c.lifecycle), (None, Some(Lifecycle::Destroy)));
        // One puzzle with its text.
        let text: [u8; 81] = std::array::from_fn(|i| b'1' + (i % 9) as u8);
        slot.puzzle(6, 0, &text);
        slot.position(0);
        let c = &read(&parent).unwrap().calls[0];
        assert_eq!(c.puzzle, Some((6, 0)));
        assert_eq!(c.text.as_deref().map(str::as_bytes), Some(&text[..]));
        // An even counter: no call running.
        slot.calls().store(8, Ordering::Relaxed);
        assert!(read(&parent).unwrap().calls.is_empty());

        board.finished(139);
        let r = read(&parent).unwrap();
        assert_eq!((r.phase, r.exit), (Some(Phase::Finished), Some(139)));
        board.finished(0);
        assert_eq!(read(&parent).unwrap().exit, Some(0));
    }

    #[test]
    fn a_file_that_is_not_a_board_is_refused() {
        let tmp = tempfile::NamedTempFile::new().unwrap();
        tmp.as_file().set_len(size(2)).unwrap();
        assert!(Board::open(tmp.path()).is_err());
        assert!(read(tmp.as_file()).is_err());
        let small = tempfile::NamedTempFile::new().unwrap();
        assert!(Board::open(small.path()).is_err());
    }
}
