//! Who may use a project's directory on this node: one update at a time, which rewrites it
//! (a git checkout, installed requirements), or any number of jobs copying it into their
//! own directories, never both. An update waiting keeps new copies out, so a stream of
//! launches cannot hold an update back; a copy is short, so an update waits little.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, PoisonError};

/// The projects in use on this node.
static IN_USE: Mutex<Option<HashMap<i64, Use>>> = Mutex::new(None);
static RELEASED: Condvar = Condvar::new();

/// How one project's directory is used now.
#[derive(Debug, Default, Clone, Copy)]
struct Use {
    copies: usize,
    updating: bool,
    updates_waiting: usize,
}

impl Use {
    fn idle(self) -> bool {
        self.copies == 0 && !self.updating && self.updates_waiting == 0
    }
}

/// The use of a project's directory, held until dropped.
#[derive(Debug)]
pub struct ProjectLock {
    project: i64,
    update: bool,
}

impl ProjectLock {
    /// Waits until nothing else uses `project`'s directory, then holds it for an update.
    pub fn update(project: i64) -> Self {
        let mut in_use = lock();
        entry(&mut in_use, project).updates_waiting += 1;
        loop {
            let now = entry(&mut in_use, project);
            if !now.updating && now.copies == 0 {
                now.updates_waiting -= 1;
                now.updating = true;
                return ProjectLock {
                    project,
                    update: true,
                };
            }
            in_use = RELEASED
                .wait(in_use)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Waits until no update of `project` runs or waits, then holds its directory for a copy
    /// (beside other copies).
    pub fn copy(project: i64) -> Self {
        let mut in_use = lock();
        loop {
            let now = entry(&mut in_use, project);
            if !now.updating && now.updates_waiting == 0 {
                now.copies += 1;
                return ProjectLock {
                    project,
                    update: false,
                };
            }
            in_use = RELEASED
                .wait(in_use)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Drop for ProjectLock {
    fn drop(&mut self) {
        let mut in_use = lock();
        let now = entry(&mut in_use, self.project);
        if self.update {
            now.updating = false;
        } else {
            now.copies -= 1;
        }
        if now.idle()
            && let Some(map) = in_use.as_mut()
        {
            map.remove(&self.project);
        }
        RELEASED.notify_all();
    }
}

fn lock() -> std::sync::MutexGuard<'static, Option<HashMap<i64, Use>>> {
    IN_USE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn entry(in_use: &mut Option<HashMap<i64, Use>>, project: i64) -> &mut Use {
    in_use
        .get_or_insert_with(HashMap::new)
        .entry(project)
        .or_default()
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{Receiver, channel};
    use std::time::Duration;

    use super::*;

    /// Takes `take(project)` on a thread of its own; the receiver hears when it holds it,
    /// and the holder is dropped when `release` is sent.
    fn holder(
        take: fn(i64) -> ProjectLock,
        project: i64,
    ) -> (Receiver<()>, std::sync::mpsc::Sender<()>) {
        let (held, holding) = channel();
        let (release, released) = channel::<()>();
        std::thread::spawn(move || {
            let lock = take(project);
            held.send(()).expect("held");
            let _ = released.recv();
            drop(lock);
        });
        (holding, release)
    }

    fn holds(holding: &Receiver<()>) -> bool {
        holding.recv_timeout(Duration::from_millis(200)).is_ok()
    }

    #[test]
    fn updates_exclude_everything_and_copies_share() {
        let (first_copy, release_first) = holder(ProjectLock::copy, -51);
        assert!(holds(&first_copy));
        let (second_copy, release_second) = holder(ProjectLock::copy, -51);
        assert!(holds(&second_copy), "copies share the directory");
        let (update, release_update) = holder(ProjectLock::update, -51);
        assert!(!holds(&update), "an update ran beside copies");
        // An update waiting keeps new copies out.
        let (late_copy, release_late) = holder(ProjectLock::copy, -51);
        assert!(!holds(&late_copy), "a copy overtook a waiting update");
        // Another project is not held back.
        let (other, release_other) = holder(ProjectLock::update, -52);
        assert!(holds(&other));
        release_first.send(()).expect("sent");
        assert!(!holds(&update), "an update ran beside a copy");
        release_second.send(()).expect("sent");
        assert!(
            update.recv_timeout(Duration::from_secs(5)).is_ok(),
            "the update ran once the copies ended"
        );
        assert!(!holds(&late_copy), "a copy ran beside an update");
        release_update.send(()).expect("sent");
        assert!(late_copy.recv_timeout(Duration::from_secs(5)).is_ok());
        release_late.send(()).expect("sent");
        release_other.send(()).expect("sent");
    }

    #[test]
    fn one_update_at_a_time() {
        let (first, release_first) = holder(ProjectLock::update, -53);
        assert!(holds(&first));
        let (second, release_second) = holder(ProjectLock::update, -53);
        assert!(!holds(&second), "a second update ran beside the first");
        release_first.send(()).expect("sent");
        assert!(second.recv_timeout(Duration::from_secs(5)).is_ok());
        release_second.send(()).expect("sent");
    }
}
