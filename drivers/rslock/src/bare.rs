//! The driver's bare loop (docs/drivers.md, "The bare loop"), lockbench
//! calibrate --driver's reference, run as `rslock-driver --bare FORM`: init
//! and the loop request read on stdin, the LockManager set up as init sets
//! it, then a task per client on this runtime cycling the form's library
//! calls (Driver::cycle) on a lock name of its own, with no protocol in the
//! way; one loop_ok line on stdout, or an error line and exit status 1.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use crate::{error, init, Form, Out};

/// Runs the loop and exits the process.
pub async fn run(form: Form) -> ! {
    match bare(form).await {
        Ok(ok) => {
            println!("{ok}");
            std::process::exit(0)
        }
        Err((code, text)) => {
            eprintln!("rslock driver: bare loop: {text}");
            println!("{}", error(Value::Null, Value::Null, true, code, &text));
            std::process::exit(1)
        }
    }
}

async fn bare(form: Form) -> Result<Value, (&'static str, String)> {
    let mut stdin = BufReader::new(tokio::io::stdin()).lines();
    let mut next = async || -> Result<Value, (&'static str, String)> {
        let line = stdin.next_line().await.ok().flatten().ok_or(("malformed", "stdin ended before init and the loop request".to_string()))?;
        serde_json::from_str(&line).map_err(|e| ("malformed", format!("not JSON: {e}")))
    };
    let req = next().await?;
    let lp = next().await?;
    // the driver's replies go nowhere: the bare loop sends none
    let (d, ok) = init(&req, form, Out { stdout: false })?;
    let d = Arc::new(d);
    let prefix = req.get("prefix").and_then(Value::as_str).unwrap_or("").to_string();
    let clients = lp.get("clients").and_then(Value::as_u64).unwrap_or(1);
    let ms = |f: &str| Duration::from_secs_f64(lp.get(f).and_then(Value::as_f64).unwrap_or(0.0) / 1000.0);
    let (stop, measuring, cycles) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
    let tasks: Vec<_> = (0..clients)
        .map(|i| {
            let (d, stop, measuring, cycles) = (d.clone(), stop.clone(), measuring.clone(), cycles.clone());
            let key = format!("{prefix}c0:lock:{i}");
            tokio::spawn(async move {
                let mut took = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    match d.cycle(&key).await {
                        Ok(t) => {
                            cycles.fetch_add(1, Ordering::Relaxed);
                            if measuring.load(Ordering::Relaxed) {
                                took.push(t);
                            }
                        }
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            return Err(format!("client {i} on {key}: {e}"));
                        }
                    }
                }
                Ok(took)
            })
        })
        .collect();
    tokio::time::sleep(ms("warmup_ms")).await;
    let warmup = cycles.load(Ordering::Relaxed);
    let cpu0 = cpu();
    let t0 = Instant::now();
    measuring.store(true, Ordering::Relaxed);
    tokio::time::sleep(ms("duration_ms")).await;
    stop.store(true, Ordering::Relaxed);
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.map_err(|e| ("crash", e.to_string()))?.map_err(|e| ("io", e))?);
    }
    let elapsed = t0.elapsed();
    let cpu = cpu() - cpu0;
    all.sort();
    let p50 = all.get(all.len() / 2).copied().unwrap_or_default();
    Ok(json!({
        "type": "loop_ok",
        "library": ok["library"],
        "version": ok["version"],
        "cycles": cycles.load(Ordering::Relaxed) - warmup,
        "warmup_cycles": warmup,
        "elapsed_us": elapsed.as_secs_f64() * 1e6,
        "cpu_us": cpu.as_secs_f64() * 1e6,
        "acquire_p50_us": p50.as_secs_f64() * 1e6,
    }))
}

/// This process's user and system CPU, all its threads: /proc/self/stat's
/// utime and stime, in the kernel's clock ticks (USER_HZ, 100 a second on
/// Linux).
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // the fields after the command's ")": state is the 3rd field, utime the 14th
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}
