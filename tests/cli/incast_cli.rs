//! `incast`, `sweep` and `merge` from the command line: the JSON fields the documentation
//! promises, one-line errors with valid ranges, an incomplete run that says which and why, and
//! a sharded sweep merged into a table and plots. Short runs (3 senders, small messages).

use super::nanotransport;

const SHORT: [&str; 4] = ["--senders", "3", "--sizes", "4..8"];

#[test]
fn incast_json_has_the_documented_fields_and_writes_plots_and_pcaps() {
    let dir_tmp = super::temp_dir();
    let dir = dir_tmp.path().to_path_buf();
    let (plots, pcaps) = (dir.join("plots"), dir.join("pcap"));
    let mut args = vec!["incast", "--protocol", "homa-tr", "--json", "--plot", plots.to_str().unwrap(), "--pcap", pcaps.to_str().unwrap()];
    args.extend(SHORT);
    let o = nanotransport(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = super::json_output(&o);
    for key in ["protocol", "config", "buffer_kb", "messages", "median_slowdown", "p90_slowdown", "wall_s", "nic_cycles_per_s"] {
        assert!(!v[key].is_null(), "missing {key}: {v}");
    }
    assert_eq!(v["config"], "homa-tr-128");
    let messages = v["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    for m in messages {
        assert!(
            m["packets"].as_u64().is_some() && m["completion_ns"].as_f64().unwrap() > 0.0 && m["slowdown"].as_f64().unwrap() > 1.0,
            "{m}"
        );
    }
    for f in ["incast-queue.svg", "incast-slowdown.svg"] {
        assert!(std::fs::read_to_string(plots.join(f)).unwrap().starts_with("<svg"), "{f}");
    }
    for f in ["host1-to-switch.pcap", "switch-to-host0.pcap"] {
        assert!(std::fs::metadata(pcaps.join(f)).unwrap().len() > 24, "{f}");
    }
}

#[test]
fn impossible_parameters_are_one_line_errors_with_the_valid_range() {
    for (args, expect) in [
        (vec!["--senders", "0"], "valid 1..=16"),
        (vec!["--buffer-pkts", "1"], "valid >= 2 packets"),
        (vec!["--buffer-kb", "0.5"], "valid >= 2 packets"),
        (vec!["--sizes", "10..60"], "<= 38 packets"),
        (vec!["--config", "homa-128"], "not a whole NIC running ndp"),
        (vec!["--sender-config", "homa-16"], "--sender-config homa-16: not a whole NIC running ndp"),
        (vec!["--sender-config", "blocks-16"], "not a whole NIC"),
        (vec!["--senders", "17"], "valid 1..=16"),
        (vec!["--link-gbps", "400"], "valid 0.001..=204.8"),
        (vec!["--set", "rtt_pkts=99"], "0..=64"),
        (vec!["--device-queue-pkts", "65"], "--device-queue-pkts 65: valid 0..=64 frames"),
        (vec!["--scheme", "codel"], "scheme 'codel': valid droptail"),
        (vec!["--scheme", "red,dctcp"], "one scheme here (2 given)"),
        (vec!["--scheme", "dctcp", "--scheme-set", "k=4096"], "K must be below the capacity"),
        (vec!["--scheme-set", "k=4"], "--scheme-set needs exactly one --scheme"),
    ] {
        let mut a = vec!["incast", "--protocol", "ndp"];
        a.extend(&args);
        let o = nanotransport(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(err.contains(expect) && err.trim().lines().count() == 1, "{args:?}: {err}");
    }
}

/// A scheme chosen by name replaces the protocol's queue disc: drop-tail with a 6-packet buffer
/// drops where NDP's disc trims, and the run says which scheme it had.
#[test]
fn the_incast_takes_a_switch_scheme_by_name() {
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut a = vec!["incast", "--protocol", "ndp", "--json", "--buffer-pkts", "6"];
        a.extend(SHORT);
        a.extend(extra);
        let o = nanotransport(&a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let own = run(&[]);
    assert!(own["params"].get("scheme").is_none(), "the default writes no scheme (earlier results stay identical)");
    assert!(own["bottleneck"]["trimmed"].as_u64().unwrap() > 0);
    let droptail = run(&["--scheme", "droptail", "--scheme-set", "capacity=6"]);
    assert_eq!(droptail["params"]["scheme"], serde_json::json!({ "scheme": "droptail", "capacity": 6 }));
    assert_eq!(droptail["bottleneck"]["trimmed"], 0);
    assert!(droptail["bottleneck"]["dropped"].as_u64().unwrap() > 0);
}

#[test]
fn flexplane_bulk_prints_its_table_and_takes_a_scheme_file() {
    let dir_tmp = super::temp_dir();
    let file = dir_tmp.path().join("red.toml");
    std::fs::write(&file, "scheme = \"red\"\nmin = 50\nmax = 100\n").unwrap();
    let o = nanotransport(&[
        "flexplane",
        "bulk",
        "--seconds",
        "0.3",
        "--warmup-s",
        "0.1",
        "--interval-s",
        "0.1",
        "--scheme-file",
        file.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["params"]["scheme"]["min"], 50.0);
    assert_eq!(run["fairness"].as_array().unwrap().len(), 2);
    let median = run["queue_median_pkts"].as_f64().unwrap();
    assert!(median > 20.0 && median < 100.0, "RED at 50..100 holds the queue there: {median}");
    let o = nanotransport(&["flexplane", "bulk", "--seconds", "0.3", "--warmup-s", "0.1", "--interval-s", "0.1", "--scheme", "dctcp"]);
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && table.contains("| dctcp | dctcp | ") && table.contains("(61 / 51)"), "{table}");
    let o = nanotransport(&["flexplane", "bulk", "--scheme", "red", "--scheme-set", "max_p=2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.code() != Some(0) && err.trim().lines().count() == 1 && err.contains("max_p"), "{err}");
}

#[test]
fn a_run_cut_short_names_its_incomplete_messages_and_fails() {
    let mut args = vec!["incast", "--protocol", "ndp", "--max-us", "0.5"];
    args.extend(SHORT);
    let o = nanotransport(&args);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("sender 1 (4 packets): still in flight at --max-us 0.5"), "{err}");
}

#[test]
fn sharded_sweep_merges_into_a_table_and_plots() {
    let dir_tmp = super::temp_dir();
    let dir = dir_tmp.path().to_path_buf();
    let out = dir.join("runs");
    for shard in ["0/2", "1/2"] {
        let mut args = vec!["sweep", "--protocols", "ndp", "--buffers", "110,6", "--shard", shard, "--out", out.to_str().unwrap()];
        args.extend(SHORT);
        let o = nanotransport(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let files: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(files.len(), 2, "{files:?}");
    let plots = dir.join("plots");
    let o = nanotransport(&["merge", out.to_str().unwrap(), "--plot", plots.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("| ndp | 110 pkts") && table.contains("| ndp | 6 pkts"), "{table}");
    assert!(plots.join("incast-queue.svg").exists());
    let o = nanotransport(&["merge", dir.join("nothing-here.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn report_writes_one_folder_with_the_tables_plots_and_json() {
    let dir_tmp = super::temp_dir();
    let dir = dir_tmp.path().to_path_buf();
    let (out, verilog) = (dir.join("report"), dir.join("verilog"));
    let mut args = vec![
        "report",
        "--out",
        out.to_str().unwrap(),
        "--verilog",
        verilog.to_str().unwrap(),
        "--gen-config",
        "bolt-ingress-64p",
        "--protocols",
        "ndp",
        "--buffers",
        "110,6",
        "--packets",
        "40",
        "--bench-cycles",
        "5000",
        "--fuzz-frames",
        "100",
        "--flexplane-seconds",
        "2",
        "--rpc-seconds",
        "0.4",
    ];
    args.extend(SHORT);
    let o = nanotransport(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    for step in [
        "== generate Verilog",
        "== lint",
        "== per-stage latency",
        "== throughput",
        "== simulation speed",
        "== fuzz",
        "== Fig. 3.2 incast",
        "== Flexplane",
    ] {
        assert!(err.contains(step), "progress on stderr lacks {step}: {err}");
    }
    for f in [
        "results.md",
        "results.json",
        "incast-queue.svg",
        "incast-slowdown.svg",
        "incast-ndp-110p.json",
        "incast-ndp-6p.json",
        "flexplane-bulk-queue.svg",
    ] {
        assert!(std::fs::metadata(out.join(f)).map(|m| m.len() > 0).unwrap_or(false), "{f} missing or empty");
    }
    let page = std::fs::read_to_string(out.join("results.md")).unwrap();
    for table in [
        "| configuration | modules |",
        "| file | verilator |",
        "| protocol | config | RX ingress |",
        "| protocol | config | direction |",
        "| config | cycles | cycles per CPU s |",
        "| protocol | buffer | median |",
        "| scheme | hosts | queue median, pkts (hardware / Flexplane) |",
        "| scheme | hosts | short: requests | mean µs |",
    ] {
        assert!(page.contains(table), "results.md lacks {table}");
    }
    assert!(
        page.contains("| `bolt-ingress-64p` |") && page.contains("| ndp | `ndp-128` | rx | 40 |") && page.contains("| ndp | 6 pkts"),
        "{page}"
    );
    assert!(page.contains("](incast-queue.svg)") && page.contains("](incast-slowdown.svg)"));
    assert!(!page.contains("FAIL"), "{page}");
    insta::assert_snapshot!("report-tables", measured_tables(&page));
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(summary["schema_version"], 3);
    assert_eq!((summary["pl2"]["incast"].as_array().unwrap().len(), summary["pl2"]["outcast"].as_array().unwrap().len()), (8, 8));
    assert!(
        page.contains("## PL2 incast and outcast")
            && page.contains("](pl2-incast-queue.svg)")
            && out.join("pl2-outcast-goodput.svg").exists()
    );
    let schemes: Vec<&str> = summary["flexplane"]["runs"].as_array().unwrap().iter().map(|r| r["scheme"].as_str().unwrap()).collect();
    assert_eq!(schemes, ["droptail", "red", "dctcp"]);
    assert_eq!(summary["flexplane"]["rpc"].as_array().unwrap().len(), 6);
    assert_eq!(summary["incast"]["runs"].as_array().unwrap().len(), 2);
    assert_eq!(summary["throughput"].as_array().unwrap().len(), 2);
    assert_eq!(summary["simulation_speed"][0]["messages_delivered"], summary["simulation_speed"][0]["messages_intact"]);
    assert!(summary["latency"][0]["cycles"][0].as_u64().unwrap() > 0);
    assert_eq!((summary["fuzz"][0]["config"].as_str(), summary["fuzz"][0]["mismatches"].as_u64()), (Some("ndp-16"), Some(0)));

    // The page renders from the JSON alone, and a README's results block with it.
    let again = dir.join("again");
    std::fs::create_dir_all(&again).unwrap();
    let readme = again.join("README.md");
    std::fs::write(
        &readme,
        "before\n<!-- results:begin (generated by `nanotransport report --out docs`; do not edit) -->\nold\n<!-- results:end -->\nafter\n",
    )
    .unwrap();
    let o = nanotransport(&[
        "report",
        "--from-json",
        out.join("results.json").to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
        "--readme",
        readme.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(again.join("results.md")).unwrap(), page, "re-rendered from results.json");
    let readme = std::fs::read_to_string(&readme).unwrap();
    assert!(readme.starts_with("before\n") && readme.ends_with("<!-- results:end -->\nafter\n") && !readme.contains("\nold\n"), "{readme}");
    assert!(readme.contains("| ndp latency, cycles (`ndp-128`"), "{readme}");
}

/// The report's measured tables (latency, throughput, incast), without what depends on the
/// machine: the incast's wall time and simulation speed (its last two columns) and the section
/// timings. The runs are deterministic, so any other change is a change of behaviour.
fn measured_tables(page: &str) -> String {
    let section = |title: &str| {
        let from = page.find(title).unwrap_or_else(|| panic!("no {title} section"));
        let to = page[from + 1..].find("\n## ").map_or(page.len(), |k| from + 1 + k);
        &page[from..to]
    };
    let mut out = String::new();
    for title in ["## Latency", "## Throughput", "## Incast"] {
        for line in section(title).lines().filter(|l| l.starts_with('|')) {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let machine_dependent = cells.len() == 13;
            let kept = if machine_dependent { &cells[..11] } else { &cells[..] };
            out.push_str(&format!("| {} |\n", kept.join(" | ")));
        }
    }
    out
}

#[test]
fn pl2_incast_and_outcast_print_their_tables_json_and_plots() {
    let dir_tmp = super::temp_dir();
    let dir = dir_tmp.path().join("pl2");
    let short = ["--duration-us", "300", "--warmup-us", "50", "--drain-us", "100"];
    let mut args = vec!["pl2", "incast", "--load", "100,200", "--plot", dir.to_str().unwrap()];
    args.extend(short);
    let o = nanotransport(&args);
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(table.contains("| 4 → 1 | 200 | yes |") && table.contains("| 4 → 1 | 200 | no |") && table.contains("Paper:"), "{table}");
    for f in ["pl2-incast.json", "pl2-incast-goodput.svg", "pl2-incast-queue.svg"] {
        assert!(dir.join(f).exists(), "{f}");
    }
    let mut args = vec!["pl2", "outcast", "--receivers", "2", "--json"];
    args.extend(short);
    let o = nanotransport(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0]["params"]["receivers"].as_u64(), runs[0]["params"]["pl2"].as_bool()), (Some(2), Some(true)));
    assert!(runs[0]["rsvs"].as_u64().unwrap() > 0 && runs[1]["rsvs"].as_u64() == Some(0));
    assert!(v["schema_version"].as_u64().is_some());
    for bad in [["--senders", "0"], ["--k", "0"]] {
        let o = nanotransport(&["pl2", "incast", bad[0], bad[1]]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.code() == Some(2) && err.trim().lines().count() == 1 && err.contains(bad[0]), "{err}");
    }
}
