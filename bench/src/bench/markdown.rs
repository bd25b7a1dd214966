//! `benchmarks.md`: the report for people. Its prose is here; what bounds each path is in
//! `bounds`; every figure comes from the run.

use std::fmt::Write;

use super::bounds::{BOUNDS, TO_FILL};
use super::report::{Report, TARGET_PEAK_MIB};
use super::row::Row;
use super::scale::{Scale, TARGET_RATIO, TARGET_SCENARIOS};
use super::{housekeeping, injection, key_rotation};

/// The whole document.
pub fn render(report: &Report) -> String {
    let mut text = String::from("# Benchmarks\n\n");
    warnings(&mut text, report);
    text.push_str(
        "Written by `cargo xtask bench` from one run (see README, Performance); do not edit \
         by hand. The prose of \"What bounds each path\" lives in `bench/src/bench/bounds.rs`.\n\n",
    );
    machine(&mut text, report);
    if let Some(baseline) = &report.baseline {
        let _ = write!(
            text,
            "## Baseline\n\nA bare actix-web handler answering `GET /api/v2/me/` with a fixed \
             body, on {} workers as the server (`ACS_WORKERS`, set on both), in the bench's own \
             process, driven by `wrk` (two threads, the connections below), as every \
             closed-loop row is: {} requests/s (p50 {:.3} ms, p99 {:.3} ms) at the start of the \
             run. Each closed-loop row is measured in three windows, each followed by one of \
             the bare handler under the same load; its percentage is of those windows \
             (\"baseline beside\"), its percentiles the worst window's, and its rate counts \
             the expected answers only (any other fails the row; a row whose server refuses by \
             design when full, 503 with `Retry-After`, shows those refusals beside its errors \
             and counts them neither as speed nor as errors).\n\n",
            super::baseline::workers(),
            thousands(baseline.requests_per_sec),
            baseline.p50_ms,
            baseline.p99_ms
        );
    }
    if let Some(generator) = &report.generator {
        let _ = write!(
            text,
            "The bench's own generator, which drives the open-loop rows (`*_half_load`, a set \
             rate wrk cannot hold), drove the same handler at {} requests/s, {:.0}% of wrk's \
             rate: it holds the half-load rates, far below that. Each half-load row is three \
             windows, the server's and the bare handler's in turn; its p50 and p99 are of all \
             its windows' latencies together.\n\n",
            thousands(generator.requests_per_sec),
            generator.baseline_percent,
        );
    }
    for database in &report.databases {
        let (Some(suite), Some(baseline)) = (&database.suite, &report.baseline) else {
            continue;
        };
        let _ = writeln!(text, "## {}\n", database.backend.title());
        rows_table(&mut text, Some(baseline), &suite.rows);
        for row in &suite.rows {
            job_runs(&mut text, row);
        }
        let judged = super::targets::judge(database.backend, &suite.rows);
        if !judged.is_empty() {
            let sentences: Vec<String> = judged.iter().map(|target| target.sentence()).collect();
            let _ = writeln!(text, "\nTargets: {}.", sentences.join("; "));
        }
        let miss = &suite.principal_miss;
        let _ = writeln!(
            text,
            "\nprincipal_miss (in process, before the server starts): the list user's \
             principal built as on a cache miss, its {} roles and its teams' {}, {} times: \
             p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} the {} ms target).",
            thousands(miss.direct as f64),
            thousands(miss.through_teams as f64),
            miss.samples,
            miss.p50_ms,
            miss.p99_ms,
            miss.max_ms,
            if miss.on_target() { "under" } else { "over" },
            super::principal_miss::TARGET_MS,
        );
        text.push('\n');
    }
    scale(&mut text, report);
    memory(&mut text, report);
    if let Some(injection) = &report.injection {
        text.push_str(
            "## Injection planning (in process)\n\nA whole injection plan for a typical custom \
             credential type, on one core, next to the same output written by hand with \
             `format!` and `serde_json`.\n\n",
        );
        text.push_str(&injection::markdown(injection));
        text.push('\n');
    }
    if report
        .databases
        .iter()
        .any(|db| !db.housekeeping.is_empty())
    {
        let _ = write!(
            text,
            "## Token housekeeping\n\nThe release `revoke_oauth2_tokens --all` and \
             `cleanup_tokens` on {} seeded access tokens, next to the same work as plain SQL in \
             one transaction (the ratio).\n\n",
            thousands(report.settings.tokens as f64)
        );
        for database in report
            .databases
            .iter()
            .filter(|db| !db.housekeeping.is_empty())
        {
            let _ = writeln!(text, "### {}\n", database.backend.title());
            text.push_str(&housekeeping::markdown(&database.housekeeping));
            text.push('\n');
        }
    }
    let rotations: Vec<(&str, &key_rotation::Step)> = report
        .databases
        .iter()
        .filter_map(|db| {
            db.key_rotation
                .as_ref()
                .map(|step| (db.backend.title(), step))
        })
        .collect();
    if !rotations.is_empty() {
        text.push_str(
            "## Secret key rotation\n\nThe release `rotate_secret_key --settle 0` on 100 000 \
             credentials with one secret input each: values sealed again under a new key per \
             second, next to the same rows rewritten by one plain `UPDATE` in one transaction \
             (the ratio).\n\n",
        );
        text.push_str(&key_rotation::markdown(&rotations));
        text.push('\n');
    }
    text.push_str("## What bounds each path\n\n");
    for (path, bound) in BOUNDS {
        let _ = writeln!(text, "- **{path}**: {bound}");
    }
    if BOUNDS.iter().any(|(_, bound)| bound.contains(TO_FILL)) {
        let _ = writeln!(
            text,
            "\nWhat is marked {TO_FILL} awaits a profile of the release server under the \
             scenario's load."
        );
    }
    text
}

/// Says when the figures are not the ones to publish.
fn warnings(text: &mut String, report: &Report) {
    if report.short {
        let _ = write!(
            text,
            "> **Short run** ({} s per scenario): these figures show that the harness works, \
             not how fast ACS is.\n\n",
            report.settings.duration.as_secs()
        );
    }
    if !report.complete {
        text.push_str(
            "> **Partial run**: some scenarios or one database only; the published report \
             comes from a run of everything.\n\n",
        );
    }
}

fn machine(text: &mut String, report: &Report) {
    let machine = &report.machine;
    let unknown = || "unknown".to_owned();
    let commit = match (&machine.commit, machine.uncommitted_changes) {
        (Some(commit), true) => format!("`{commit}` with uncommitted changes"),
        (Some(commit), false) => format!("`{commit}`"),
        (None, _) => unknown(),
    };
    let settings = &report.settings;
    let _ = write!(
        text,
        "## Machine and run\n\n\
         | | |\n|---|---|\n\
         | date | {} |\n\
         | commit | {commit} |\n\
         | CPUs | {} × {} |\n\
         | kernel | {} |\n\
         | load average at the start (1, 5, 15 min) | {} |\n\
         | load | {} keep-alive connections, each sending its next request once answered; \
         {} s of warm-up, then {} s measured, per scenario |\n\
         | server | release build, default settings and log level (`info`: an access-log line \
         per request, written to a file) |\n\
         | run time | {:.1} min |\n\n",
        machine.date,
        machine.cpus,
        machine.cpu_model.clone().unwrap_or_else(unknown),
        machine.kernel.clone().unwrap_or_else(unknown),
        machine.load_average.clone().unwrap_or_else(unknown),
        settings.connections,
        settings.warmup.as_secs_f64(),
        settings.duration.as_secs_f64(),
        report.elapsed.as_secs_f64() / 60.0,
    );
}

/// A table of HTTP rows, the baseline first when given.
fn rows_table(text: &mut String, baseline: Option<&Row>, rows: &[Row]) {
    text.push_str(
        "| scenario | requests/s | p50 ms | p99 ms | baseline beside, requests/s | % of baseline | errors | server peak MiB |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in baseline.into_iter().chain(rows) {
        let _ = writeln!(
            text,
            "| {} | {} | {:.3} | {:.3} | {} | {:.1}% | {} | {} |",
            if baseline.is_some_and(|b| std::ptr::eq(b, row)) {
                "baseline (bare actix-web)"
            } else {
                row.scenario
            },
            thousands(row.requests_per_sec),
            row.p50_ms,
            row.p99_ms,
            row.baseline_rps.map_or("–".to_owned(), thousands),
            row.baseline_percent,
            errors(row),
            peak(row.peak_mib),
        );
    }
}

/// A row's errors, flagged: a scenario with errors measured something other than its name.
/// The refusals it expects (503 by design) follow, neither errors nor in its rate.
fn errors(row: &Row) -> String {
    let errors = if row.errors == 0 {
        "0".to_owned()
    } else {
        format!("{} of {} !", row.errors, row.requests)
    };
    if row.refused == 0 {
        errors
    } else {
        format!("{errors} ({} refused)", thousands(row.refused as f64))
    }
}

/// What the runs of a job-launch row did.
fn job_runs(text: &mut String, row: &Row) {
    let Some(runs) = &row.process_starts else {
        return;
    };
    let outcome = if runs.unsuccessful == 0 {
        "all successful".to_owned()
    } else {
        format!("**{} not successful**", runs.unsuccessful)
    };
    let _ = writeln!(
        text,
        "\n`{}`: {} runs launched (warm-up included), {outcome}; {} launches refused (503: as \
         many runs waiting as the node lets wait). The row's rate is of launches accepted into \
         the queue; at most {} runs were launched and not yet started at once (waiting, or being prepared); runs **started** {:.1} per second and **finished** \
         {:.1} per second (each run's `started` and `finished`, first to last); from launch to \
         the start of the process p50 {:.1} ms, p99 {:.1} ms (each run's `created` to its \
         `started`); the last ended {:.1} s after the load stopped.",
        row.scenario,
        thousands(runs.runs as f64),
        thousands(row.refused as f64),
        thousands(runs.most_waiting as f64),
        runs.started_per_sec,
        runs.finished_per_sec,
        runs.p50_ms,
        runs.p99_ms,
        runs.drain_seconds
    );
}

fn scale(text: &mut String, report: &Report) {
    let measured: Vec<(&str, &Scale)> = report
        .databases
        .iter()
        .filter_map(|db| Some((db.backend.title(), db.scale.as_ref()?)))
        .collect();
    if measured.is_empty() {
        return;
    }
    let _ = write!(
        text,
        "## Scale\n\nThe same `bearer`, `token_list` and `cold_bearer` scenarios on a server \
         whose database holds {} users and {} or {} personal tokens (the list user's {} among \
         them), and the cold row's {} tokens besides, seeded straight into the database before \
         the server starts. \"vs\" compares the two shares of the baseline beside each row, \
         so that the machine's drift between the two servers is not counted.\n\n\
         | database | scenario | tokens | requests/s | p50 ms | p99 ms | baseline beside, requests/s | % of baseline | vs {} tokens | server peak MiB |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        thousands(report.settings.users as f64),
        thousands(super::dataset::LIST_TOKENS as f64),
        thousands(report.settings.tokens as f64),
        thousands(super::dataset::LIST_TOKENS as f64),
        thousands(super::dataset::COLD_TOKENS as f64),
        thousands(super::dataset::LIST_TOKENS as f64),
    );
    for (title, scale) in &measured {
        let small = scale.sizes.first();
        for size in &scale.sizes {
            for row in &size.rows {
                let versus = small
                    .and_then(|small| small.rows.iter().find(|r| r.scenario == row.scenario))
                    .filter(|small| small.baseline_percent > 0.0)
                    .map_or("–".to_owned(), |small| {
                        format!(
                            "{:.1}%",
                            100.0 * row.baseline_percent / small.baseline_percent
                        )
                    });
                let _ = writeln!(
                    text,
                    "| {title} | {}{} | {} | {} | {:.3} | {:.3} | {} | {:.1}% | {versus} | {} |",
                    row.scenario,
                    if row.errors > 0 { " !" } else { "" },
                    thousands(size.dataset.tokens as f64),
                    thousands(row.requests_per_sec),
                    row.p50_ms,
                    row.p99_ms,
                    row.baseline_rps.map_or("–".to_owned(), thousands),
                    row.baseline_percent,
                    peak(row.peak_mib),
                );
            }
        }
    }
    let _ = write!(
        text,
        "\nTarget: each of `{}` with the large dataset at least {:.0}% of its share of the \
         baseline with the small one.",
        TARGET_SCENARIOS.join("`, `"),
        100.0 * TARGET_RATIO
    );
    for (title, scale) in &measured {
        for scenario in TARGET_SCENARIOS {
            let verdict = match scale.ratio(scenario) {
                Some(ratio) if ratio >= TARGET_RATIO => format!("{:.1}%, met", 100.0 * ratio),
                Some(ratio) => format!("{:.1}%, **missed**", 100.0 * ratio),
                None => "not measured".to_owned(),
            };
            let _ = write!(text, " {title} `{scenario}`: {verdict}.");
        }
    }
    text.push_str(" Seeding took");
    let seeds: Vec<String> = measured
        .iter()
        .flat_map(|(title, scale)| {
            scale.sizes.iter().map(move |size| {
                format!(
                    " {:.1} s for {} tokens on {title}",
                    size.seed_seconds,
                    thousands(size.dataset.tokens as f64)
                )
            })
        })
        .collect();
    text.push_str(&seeds.join(","));
    text.push_str(".\n\n");
}

fn memory(text: &mut String, report: &Report) {
    let servers: Vec<_> = report
        .databases
        .iter()
        .flat_map(|db| {
            let title = db.backend.title();
            db.servers().into_iter().map(move |server| (title, server))
        })
        .collect();
    if servers.is_empty() {
        return;
    }
    let _ = write!(
        text,
        "## Peak memory\n\nEach server process's peak resident set (`VmHWM` in \
         `/proc/<pid>/status`) once its scenarios had run; the target is under {TARGET_PEAK_MIB:.0} \
         MiB throughout. The tables above give it after each scenario.\n\n\
         | database | server | peak MiB | under {TARGET_PEAK_MIB:.0} MiB |\n|---|---|---:|---|\n"
    );
    for (title, server) in servers {
        let served = if server.served == super::scale::NAME {
            format!(
                "scale: {} users, {} tokens",
                thousands(server.dataset.users as f64),
                thousands(server.dataset.tokens as f64)
            )
        } else {
            "HTTP scenarios".to_owned()
        };
        let verdict = match server.peak_mib {
            Some(mib) if mib < TARGET_PEAK_MIB => "yes",
            Some(_) => "**no**",
            None => "not measured",
        };
        let _ = writeln!(
            text,
            "| {title} | {served} | {} | {verdict} |",
            peak(server.peak_mib)
        );
    }
    text.push('\n');
}

/// A server's peak memory so far, or a dash where there is none (the baseline, or `/proc`
/// could not tell).
fn peak(mib: Option<f64>) -> String {
    mib.map_or("–".to_owned(), |mib| format!("{mib:.1}"))
}

/// `value` rounded, its thousands separated by spaces as in the README: `27 561`.
pub fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.abs());
    let mut grouped = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            grouped.push(' ');
        }
        grouped.push(digit);
    }
    if value < -0.5 {
        grouped.insert(0, '-');
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0.4), "0");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(thousands(27_561.3), "27 561");
        assert_eq!(thousands(1_000_000.0), "1 000 000");
        assert_eq!(thousands(-1234.0), "-1 234");
    }
}
