//! Objects that Python threads share: a `Map` (and a demo `Replay`) behind a lock that is
//! never waited on.
//!
//! Long calls release the GIL (`py.detach`), so while one thread renders or saves a map,
//! another runs Python code and may call the same map. The value sits in an `RwLock`: reads
//! (`render`, `save`, every attribute) share it, changes (`convert`, `Layer.set_tiles`) take it
//! alone. A call that finds it taken raises `twcodec.BusyError` at once, naming what holds it;
//! it never blocks. Blocking would deadlock a thread that calls back into a map it holds (a
//! finalizer that the collector runs while a call holds the lock; the bindings read Python
//! arguments before they lock and warn after), and a change that waits for a render to
//! finish is a race the program did not mean: the error says so, and a `threading.Lock`
//! around the map is the fix.
//!
//! No thread ever waits while holding the GIL, so there is nothing to deadlock with it: the
//! value's lock is only tried, and the list of holders (a `Mutex`) is held for a push, a
//! removal or a message, never across a call that may release the GIL (making a Python
//! exception can: pyo3 normalises it detached).
//!
//! The classes are `frozen`, so pyo3 keeps no borrow flag of its own: `Bound::borrow_mut`,
//! which panics (pyo3's `PanicException`, a `BaseException`) when a detached call holds the
//! object, does not compile for them.

use std::sync::{Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};
use std::thread::ThreadId;

use pyo3::prelude::*;

use crate::errors::busy;

/// A value Python threads share, and who holds it now.
pub(crate) struct Shared<T> {
    value: RwLock<T>,
    /// The calls that hold `value` now, for the message of those that find it taken.
    holders: Mutex<Vec<Holder>>,
    /// What the value is, in messages: "map", "replay".
    noun: &'static str,
}

/// A call that holds a [`Shared`] value.
struct Holder {
    /// The Python method, `Map.render`.
    what: &'static str,
    thread: ThreadId,
}

/// Shared access; the value stays readable to other threads.
pub(crate) struct Read<'a, T> {
    // Declared first, dropped first: the holder leaves the list before the lock is free.
    _holder: Registered<'a>,
    guard: RwLockReadGuard<'a, T>,
}

/// Sole access.
pub(crate) struct Write<'a, T> {
    _holder: Registered<'a>,
    guard: RwLockWriteGuard<'a, T>,
}

/// A holder in the list until dropped.
struct Registered<'a> {
    holders: &'a Mutex<Vec<Holder>>,
    what: &'static str,
    thread: ThreadId,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        let mut holders = self.holders.lock().unwrap_or_else(PoisonError::into_inner);
        let mine = |h: &Holder| h.what == self.what && h.thread == self.thread;
        if let Some(at) = holders.iter().position(mine) {
            holders.swap_remove(at);
        }
    }
}

impl<T> Shared<T> {
    pub(crate) fn new(value: T, noun: &'static str) -> Shared<T> {
        Shared {
            value: RwLock::new(value),
            holders: Mutex::new(Vec::new()),
            noun,
        }
    }

    /// Shared access for the Python method `what`, or `twcodec.BusyError` while a change holds
    /// the value.
    pub(crate) fn read(&self, py: Python<'_>, what: &'static str) -> PyResult<Read<'_, T>> {
        self.try_read(what).ok_or_else(|| self.busy(py, what))
    }

    /// Shared access, or None while a change holds the value (for a `__repr__`, which should
    /// not raise).
    pub(crate) fn try_read(&self, what: &'static str) -> Option<Read<'_, T>> {
        let guard = match self.value.try_read() {
            Ok(guard) => guard,
            // A panic while a change held the value (a bug, raised as pyo3's PanicException):
            // go on with the value as the panic left it, as pyo3's own cell would.
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        Some(Read {
            _holder: self.register(what),
            guard,
        })
    }

    /// Sole access for the Python method `what`, or `twcodec.BusyError` while any other call
    /// holds the value.
    pub(crate) fn write(&self, py: Python<'_>, what: &'static str) -> PyResult<Write<'_, T>> {
        let guard = match self.value.try_write() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return Err(self.busy(py, what)),
        };
        Ok(Write {
            _holder: self.register(what),
            guard,
        })
    }

    fn register(&self, what: &'static str) -> Registered<'_> {
        let thread = std::thread::current().id();
        let holders = &self.holders;
        (holders.lock().unwrap_or_else(PoisonError::into_inner)).push(Holder { what, thread });
        Registered {
            holders,
            what,
            thread,
        }
    }

    /// What a `__repr__` shows instead of the value while a change holds it:
    /// `the map is in use by Map.convert`.
    pub(crate) fn in_use(&self) -> String {
        let holders = self.holders.lock().unwrap_or_else(PoisonError::into_inner);
        let mut names: Vec<&str> = holders.iter().map(|h| h.what).collect();
        names.sort_unstable();
        names.dedup();
        format!("the {} is in use by {}", self.noun, names.join(", "))
    }

    /// The error of `what` finding the value taken: who holds it, and what to do.
    fn busy(&self, py: Python<'_>, what: &'static str) -> PyErr {
        // The list is let go before the exception is made: making it may release the GIL
        // (pyo3 normalises it detached), and a thread holding the list then blocks every
        // thread that registers or leaves, the GIL with it.
        let message = self.busy_message(what);
        busy(py, message)
    }

    fn busy_message(&self, what: &'static str) -> String {
        let holders = self.holders.lock().unwrap_or_else(PoisonError::into_inner);
        let me = std::thread::current().id();
        let names = |mine: bool| {
            let mut names: Vec<&str> = (holders.iter())
                .filter(|h| (h.thread == me) == mine)
                .map(|h| h.what)
                .collect();
            names.sort_unstable();
            names.dedup();
            names.join(", ")
        };
        let (own, others) = (names(true), names(false));
        let noun = self.noun;
        if !own.is_empty() {
            // A callback or a finalizer run inside a call that holds the value.
            format!(
                "{what}: the {noun} is in use by this thread's own {own}, which has not \
                 returned (a call from a callback or a finalizer inside it?)"
            )
        } else if others.is_empty() {
            format!("{what}: the {noun} is in use by another thread; try again when it is done")
        } else {
            format!(
                "{what}: the {noun} is in use by another thread ({others}); try again when it \
                 is done, or share the {noun} between threads under a threading.Lock"
            )
        }
    }
}

impl<T> std::ops::Deref for Read<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::Deref for Write<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::DerefMut for Write<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}
