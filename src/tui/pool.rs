//! A few worker threads per priority for the store operations, started as
//! work arrives and then kept. Linux lets a thread lower its own priority
//! but not raise it again, so each priority has threads of its own, set
//! once when each starts.

use crate::tui::memory;
use crate::tui::ops::Priority;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// Work for a thread of the pool.
type Task = Box<dyn FnOnce() + Send>;

/// Threads at each priority.
pub struct Pool {
    normal: Arc<Lane>,
    nice: Arc<Lane>,
    idle: Arc<Lane>,
}

/// The threads of one priority and the work waiting for them.
struct Lane {
    priority: Priority,
    /// Threads it starts at most.
    max: usize,
    state: Mutex<LaneState>,
    ready: Condvar,
}

#[derive(Default)]
struct LaneState {
    tasks: VecDeque<Task>,
    threads: usize,
    /// Threads waiting for a task.
    idle: usize,
    /// The pool was dropped: threads end once the queue is empty.
    closed: bool,
}

impl Pool {
    /// A pool with no thread yet. What the person waits for gets four
    /// threads, so a long scan or purge leaves room for loads and writes;
    /// counting gets three (the index's update may hold one for minutes);
    /// the rows' stats, at idle priority, two.
    pub fn new() -> Self {
        Pool {
            normal: Lane::new(Priority::Normal, 4),
            nice: Lane::new(Priority::Nice, 3),
            idle: Lane::new(Priority::Idle, 2),
        }
    }

    /// Runs `task` on a thread of `priority`, starting one if every thread
    /// there is busy and there is room for another; never blocks.
    pub fn run(&self, priority: Priority, task: impl FnOnce() + Send + 'static) {
        let lane = match priority {
            Priority::Normal => &self.normal,
            Priority::Nice => &self.nice,
            Priority::Idle => &self.idle,
        };
        let mut state = lane.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.tasks.push_back(Box::new(task));
        if state.tasks.len() > state.idle && state.threads < lane.max {
            state.threads += 1;
            let lane = lane.clone();
            std::thread::spawn(move || lane.work());
        } else {
            lane.ready.notify_one();
        }
    }
}

impl Default for Pool {
    fn default() -> Self {
        Pool::new()
    }
}

impl Drop for Pool {
    /// Lets the threads end once what they were given is done.
    fn drop(&mut self) {
        for lane in [&self.normal, &self.nice, &self.idle] {
            lane.state
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .closed = true;
            lane.ready.notify_all();
        }
    }
}

impl Lane {
    fn new(priority: Priority, max: usize) -> Arc<Lane> {
        Arc::new(Lane {
            priority,
            max,
            state: Mutex::new(LaneState::default()),
            ready: Condvar::new(),
        })
    }

    /// A thread's life: its priority set once, then tasks until the pool
    /// is dropped.
    fn work(&self) {
        match self.priority {
            Priority::Normal => {}
            Priority::Nice => crate::priority::nice_10(),
            Priority::Idle => crate::priority::only_when_idle(),
        }
        loop {
            let task = {
                let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                loop {
                    if let Some(task) = state.tasks.pop_front() {
                        break task;
                    }
                    if state.closed {
                        return;
                    }
                    state.idle += 1;
                    // After work, a quiet stretch gives its freed memory back.
                    if memory::has_worked() {
                        let (next, waited) = self
                            .ready
                            .wait_timeout(state, memory::QUIET_BEFORE_TRIM)
                            .unwrap_or_else(PoisonError::into_inner);
                        state = next;
                        if waited.timed_out() && state.tasks.is_empty() {
                            // Not under the lane's lock: a trim takes milliseconds.
                            drop(state);
                            memory::give_back_if_quiet();
                            state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                        }
                    } else {
                        state = self
                            .ready
                            .wait(state)
                            .unwrap_or_else(PoisonError::into_inner);
                    }
                    state.idle -= 1;
                }
            };
            // A task that panics (the panic hook has reported it) leaves
            // the thread for the next one.
            memory::task_started();
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
            memory::task_ended();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn every_task_runs_and_a_lane_starts_no_more_threads_than_it_may() {
        let pool = Pool::new();
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (done, finished) = mpsc::channel();
        for i in 0..12 {
            let (running, most, done) = (running.clone(), most.clone(), done.clone());
            pool.run(Priority::Normal, move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                // Long enough for the tasks to pile up behind the threads.
                std::thread::sleep(Duration::from_millis(20));
                running.fetch_sub(1, Ordering::SeqCst);
                done.send(i).unwrap();
            });
        }
        let mut got: Vec<i32> = (0..12)
            .map(|_| finished.recv_timeout(Duration::from_secs(20)).unwrap())
            .collect();
        got.sort_unstable();
        assert_eq!(got, (0..12).collect::<Vec<_>>(), "every task ran once");
        let most = most.load(Ordering::SeqCst);
        assert!(most <= 4, "{most} tasks at once on a lane of 4 threads");
        let threads = pool.normal.state.lock().unwrap().threads;
        assert!(threads <= 4, "{threads} threads started");
    }

    #[test]
    fn a_task_that_panics_leaves_its_thread_for_the_next() {
        let pool = Pool::new();
        // The idle lane has two threads: three panics would end both of
        // them if a panic took its thread along.
        for _ in 0..3 {
            pool.run(Priority::Idle, || panic!("a task fails"));
        }
        let (done, finished) = mpsc::channel();
        pool.run(Priority::Idle, move || done.send(()).unwrap());
        assert!(finished.recv_timeout(Duration::from_secs(20)).is_ok());
    }
}
