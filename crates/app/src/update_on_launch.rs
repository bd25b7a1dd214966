//! Whether a job's launch updates its project first (`scm_update_on_launch`), decided as the
//! reference's task manager does: an update still pending or running is joined (the job
//! waits for it), a successful one younger than `scm_update_cache_timeout` seconds spares the
//! launch, and anything else (no update yet, a failed one, an old one) starts a new update.

use acs_storage::Timestamp;
use acs_storage::projects::Project;
use acs_storage::unified_jobs::{RunStatus, UnifiedJob};

/// What a launch does about its project before the job runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchUpdate {
    /// Nothing: the project does not update on launch, or its checkout is fresh enough.
    None,
    /// Wait for update `id`, already pending or running.
    Join(i64),
    /// Start an update, and wait for it.
    Start,
}

/// What the launch of a job on `project`, whose latest update is `last`, does at `now`.
pub fn decide(project: &Project, last: Option<&UnifiedJob>, now: Timestamp) -> LaunchUpdate {
    if !project.is_git() || !project.scm_update_on_launch {
        return LaunchUpdate::None;
    }
    let Some(last) = last else {
        return LaunchUpdate::Start;
    };
    if !last.is_finished() {
        return LaunchUpdate::Join(last.id);
    }
    let fresh_until = last.finished.map(|finished| {
        finished + chrono::TimeDelta::seconds(i64::from(project.scm_update_cache_timeout))
    });
    let succeeded = last.status == RunStatus::Successful.as_str();
    match fresh_until {
        Some(until) if succeeded && until > now => LaunchUpdate::None,
        _ => LaunchUpdate::Start,
    }
}

/// The explanation of a job that never started because the update it waited for did not
/// succeed, in the reference's words.
pub fn previous_task_failed(update: &UnifiedJob) -> String {
    // Python's `json.dumps` layout, in the reference's key order.
    let name = serde_json::Value::from(update.name.as_str());
    format!(
        r#"Previous Task Failed: {{"job_type": "project_update", "job_name": {name}, "job_id": "{}"}}"#,
        update.id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        chrono::DateTime::from_timestamp(1_800_000_000 + seconds, 0)
            .expect("a time")
            .naive_utc()
    }

    fn update(id: i64, status: &str, finished: Option<i64>) -> UnifiedJob {
        UnifiedJob {
            id,
            status: status.into(),
            finished: finished.map(at),
            ..UnifiedJob::default()
        }
    }

    #[test]
    fn launches_update_unless_a_fresh_success_or_a_running_update_serves() {
        let project = Project {
            scm_type: "git".into(),
            scm_update_on_launch: true,
            scm_update_cache_timeout: 60,
            ..Project::default()
        };
        let now = at(100);
        let cases = [
            (None, LaunchUpdate::Start),
            (Some(update(4, "running", None)), LaunchUpdate::Join(4)),
            (Some(update(5, "pending", None)), LaunchUpdate::Join(5)),
            (Some(update(6, "successful", Some(50))), LaunchUpdate::None),
            (Some(update(7, "successful", Some(40))), LaunchUpdate::Start),
            (Some(update(8, "failed", Some(99))), LaunchUpdate::Start),
            (Some(update(9, "canceled", Some(99))), LaunchUpdate::Start),
        ];
        for (last, expected) in cases {
            assert_eq!(decide(&project, last.as_ref(), now), expected, "{last:?}");
        }
        let every_launch = Project {
            scm_update_cache_timeout: 0,
            ..project.clone()
        };
        let just_done = update(6, "successful", Some(100));
        assert_eq!(
            decide(&every_launch, Some(&just_done), now),
            LaunchUpdate::Start
        );
        for off in [
            Project {
                scm_update_on_launch: false,
                ..project.clone()
            },
            Project {
                scm_type: String::new(),
                ..project
            },
        ] {
            assert_eq!(decide(&off, None, now), LaunchUpdate::None);
        }
    }

    #[test]
    fn a_failed_update_is_named_as_the_reference_names_it() {
        let failed = UnifiedJob {
            id: 12,
            name: "Site".into(),
            ..UnifiedJob::default()
        };
        assert_eq!(
            previous_task_failed(&failed),
            r#"Previous Task Failed: {"job_type": "project_update", "job_name": "Site", "job_id": "12"}"#
        );
    }
}
