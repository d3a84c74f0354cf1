//! The command line: help for every subcommand, one-line errors for bad input, generation,
//! the benchmark's JSON, and the set-up script's tool checks.

use super::nanotransport;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The subcommands a help text lists under `Commands:` (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

/// Every command's `--help`, found by walking the command tree from the top, pinned by a
/// snapshot (`tests/cli/snapshots/`): a changed option, default or wording shows in review, and
/// a new command without a snapshot fails until one is accepted.
#[test]
fn every_command_s_help_matches_its_snapshot() {
    let mut pending = vec![Vec::<String>::new()];
    let mut seen = 0;
    while let Some(path) = pending.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let o = nanotransport(&args);
        assert!(o.status.success(), "{args:?}");
        let help = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(help.contains("Usage:"), "{args:?}");
        let name = if path.is_empty() { "help".to_string() } else { format!("help-{}", path.join("-")) };
        insta::assert_snapshot!(name, help);
        seen += 1;
        for sub in subcommands(&help) {
            pending.push(path.iter().cloned().chain([sub]).collect());
        }
    }
    assert!(seen >= 16, "only {seen} commands found");
}

#[test]
fn unknown_configuration_is_a_one_line_error_listing_the_choices() {
    let o = nanotransport(&["gen", "--config", "ndp-9", "--out", "/nonexistent"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("ndp-9") && err.contains("blocks-16") && err.contains("blocks-128"), "{err}");
    let o = nanotransport(&["lint", "--config", "x"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn unknown_parameter_is_a_one_line_error() {
    for args in [vec!["gen", "--messages", "7"], vec!["frobnicate"], vec!["bench", "cosim", "--cycles", "many"]] {
        let o = nanotransport(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn gen_writes_the_committed_verilog() {
    let out_tmp = super::temp_dir();
    let out = out_tmp.path().to_path_buf();
    let o = nanotransport(&["gen", "--config", "blocks-16", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("verilog-out/blocks-16");
    let mut n = 0;
    for e in std::fs::read_dir(out.join("blocks-16")).unwrap().flatten() {
        let ours = std::fs::read_to_string(e.path()).unwrap();
        let theirs = std::fs::read_to_string(committed.join(e.file_name())).unwrap();
        assert_eq!(ours, theirs, "{:?}", e.file_name());
        n += 1;
    }
    let committed_files =
        std::fs::read_dir(&committed).unwrap().flatten().filter(|e| e.path().extension().is_some_and(|x| x == "v")).count();
    assert!(n >= 6);
    assert_eq!(n, committed_files, "every committed file is generated");
}

#[test]
fn lint_without_generated_verilog_says_so() {
    let empty_tmp = super::temp_dir();
    let empty = empty_tmp.path().to_path_buf();
    let o = nanotransport(&["lint", "--config", "blocks-16", "--dir", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nanotransport gen"));
}

#[test]
fn bench_cosim_json_has_the_documented_fields() {
    let o = nanotransport(&["bench", "cosim", "--json", "--cycles", "3000"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = super::json_output(&o);
    assert_eq!(v["block"], "nt_blocks_128_timer");
    assert_eq!(v["cycles"], 3000);
    let native = v["native_cycles_per_s"].as_f64().unwrap();
    let verilator = v["verilator_cycles_per_s"].as_f64().unwrap();
    let ratio = v["ratio"].as_f64().unwrap();
    assert!(native > 0.0 && verilator > 0.0);
    assert!((ratio - verilator / native).abs() < 1e-6 * ratio);
}

#[test]
fn bench_nic_json_has_exactly_the_documented_fields() {
    let o = nanotransport(&["bench", "nic", "--config", "ndp-16", "--json", "--cycles", "500"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = super::json_output(&o);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 5, "the four figures and the schema version: {v}");
    assert_eq!(v["config"], "ndp-16");
    assert_eq!(v["cycles"], 500);
    let (wall, rate) = (v["wall_s"].as_f64().unwrap(), v["verilator_cycles_per_s"].as_f64().unwrap());
    assert!(wall > 0.0 && rate > 0.0);
    assert!((rate - 500.0 / wall).abs() < 1e-6 * rate);
}

#[test]
fn bench_nic_rejects_a_block_configuration_and_zero_cycles_in_one_line() {
    for args in [["bench", "nic", "--config", "blocks-16", "--cycles", "10"], ["bench", "nic", "--config", "ndp-16", "--cycles", "0"]] {
        let o = nanotransport(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// A folder of symlinks to the tools the set-up script uses, minus `without`, plus a fake
/// `verilator` printing `verilator_version`; removed when dropped.
fn fake_path(without: &str, verilator_version: &str) -> tempfile::TempDir {
    let dir_tmp = super::temp_dir();
    let dir = dir_tmp.path();
    for tool in ["bash", "env", "id", "awk", "cut", "cargo", "g++", "make", "ar", "iverilog", "yosys", "tshark", "sudo", "apt-get"] {
        if tool == without {
            continue;
        }
        if let Ok(o) = Command::new("bash").arg("-c").arg(format!("command -v {tool}")).output() {
            let path = String::from_utf8_lossy(&o.stdout).trim().to_string();
            if !path.is_empty() {
                let _ = std::os::unix::fs::symlink(path, dir.join(tool));
            }
        }
    }
    let fake = dir.join("verilator");
    std::fs::write(&fake, format!("#!/bin/sh\necho '{verilator_version}'\n")).unwrap();
    let _ = Command::new("chmod").arg("+x").arg(&fake).status();
    dir_tmp
}

/// Runs the set-up script with only the tools of `fake_path` and installation disabled;
/// returns whether it succeeded and its error output.
fn setup_script(without: &str, verilator_version: &str) -> (bool, String) {
    let path = fake_path(without, verilator_version);
    let o = Command::new("/bin/bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/setup-tools.sh"))
        .env("PATH", path.path())
        .env("NANOTRANSPORT_NO_INSTALL", "1")
        .output()
        .unwrap();
    (o.status.success(), String::from_utf8_lossy(&o.stderr).to_string())
}

#[test]
fn setup_names_an_old_verilator() {
    let (ok, err) = setup_script("", "Verilator 4.038 2020-07-11 rev v4.036-114-g0cd4a57ad");
    assert!(!ok);
    assert!(err.contains("4.038") && err.contains("Verilator 5"), "{err}");
}

#[test]
fn setup_names_a_missing_tool() {
    let (ok, err) = setup_script("yosys", "Verilator 5.006 2023-01-22");
    assert!(!ok);
    assert!(err.contains("yosys"), "{err}");
}

#[test]
fn setup_accepts_verilator_5() {
    let (ok, err) = setup_script("", "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)");
    assert!(ok, "{err}");
}

#[test]
fn gen_writes_the_switch_configurations_and_configs_lists_them() {
    let out_tmp = super::temp_dir();
    let out = out_tmp.path().to_path_buf();
    let o = nanotransport(&[
        "gen",
        "--config",
        "bolt-ingress-64p-lut",
        "--config",
        "bolt-ingress-64p",
        "--config",
        "pl2-reservation-64p",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut n = 0;
    for config in ["bolt-ingress-64p", "bolt-ingress-64p-lut", "pl2-reservation-64p"] {
        let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("verilog-out").join(config);
        for e in std::fs::read_dir(out.join(config)).unwrap().flatten() {
            let ours = std::fs::read_to_string(e.path()).unwrap();
            let theirs = std::fs::read_to_string(committed.join(e.file_name())).unwrap();
            assert!(ours == theirs, "{:?}", e.file_name());
            n += 1;
        }
    }
    assert_eq!(n, 6, "five Verilog files and the supply table");
    assert!(!out.join("blocks-16").exists(), "only the named configurations are written");
    let o = nanotransport(&["configs"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("bolt-ingress-64p ") && text.contains("bolt-ingress-64p-lut") && text.contains("blocks-16"), "{text}");
    assert!(text.contains("bolt-ingress-64p-src32") && text.contains("SRC carries 32 bytes"), "{text}");
    assert!(text.contains("pl2-reservation-64p") && text.contains("PL2 timeslot reservations, 64 ports"), "{text}");
    let o = nanotransport(&["gen", "--config", "bolt-9", "--out", "/nonexistent"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bolt-ingress-64p"));
}

#[test]
fn latency_json_has_the_documented_fields_and_meets_table_3_1() {
    let o = nanotransport(&["latency", "--protocol", "ndp", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = super::json_output(&o);
    assert_eq!(v["protocol"], "ndp");
    assert_eq!(v["config"], "ndp-16");
    assert_eq!(v["datapath_bits"], 64);
    assert_eq!(v["clock_ghz"], 3.2);
    let keys = ["ingress", "reassembly", "packetize", "egress", "rx_total", "tx_total", "total"];
    for k in keys {
        let (ours, paper) = (v["cycles"][k].as_u64().unwrap(), v["paper_cycles"][k].as_u64().unwrap());
        assert!(ours <= paper, "{k}: {ours} > {paper}");
    }
    assert_eq!(v["paper_cycles"]["total"], 29);
    let c = &v["cycles"];
    assert_eq!(c["total"].as_u64(), Some(c["rx_total"].as_u64().unwrap() + c["tx_total"].as_u64().unwrap()));
    for k in ["data_in_to_ack_out", "rx_first_payload_byte", "tx_first_payload_byte"] {
        assert!(v["extra"][k].as_u64().unwrap() > 0, "{k}");
    }
}

#[test]
fn throughput_json_has_the_documented_fields() {
    for dir in ["rx", "tx"] {
        let o = nanotransport(&["throughput", "--protocol", "ndp", "--direction", dir, "--packets", "300", "--json"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = super::json_output(&o);
        assert_eq!(v["direction"], dir);
        assert_eq!(v["packet_bytes"], 65);
        assert_eq!(v["packets"], 300);
        let (cycles, idle) = (v["cycles"].as_u64().unwrap(), v["idle_beats"].as_u64().unwrap());
        assert_eq!(cycles, 300 * 9, "{dir}: line rate is 9 cycles per 65-byte packet");
        assert_eq!(idle, 0);
        assert!((v["beats_per_cycle"].as_f64().unwrap() - 1.0).abs() < 1e-9);
        assert!(v["gbps_at_3_2ghz"].as_f64().unwrap() > 184.0);
        assert_eq!((v["beats_per_packet"].as_u64(), v["clock_mhz"].as_f64()), (Some(9), Some(3200.0)));
        assert!((v["mpps_at_nic_clock"].as_f64().unwrap() - 3200.0 / 9.0).abs() < 1.0);
    }
    // Full-size packets: 136 beats each, still no idle beat; a size that is no packet is refused.
    let o =
        nanotransport(&["throughput", "--protocol", "ndp", "--direction", "tx", "--packets", "100", "--packet-bytes", "1088", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = super::json_output(&o);
    assert_eq!((v["cycles"].as_u64(), v["idle_beats"].as_u64(), v["beats_per_packet"].as_u64()), (Some(100 * 136), Some(0), Some(136)));
    let o = nanotransport(&["throughput", "--protocol", "ndp", "--direction", "rx", "--packet-bytes", "64"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("65..=1088") && err.trim().lines().count() == 1, "{err}");
}

#[test]
fn latency_of_an_unknown_protocol_is_a_one_line_error() {
    for args in [vec!["latency", "--protocol", "tcp"], vec!["throughput", "--direction", "up"], vec!["latency", "--config", "blocks-16"]] {
        let o = nanotransport(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn without_protocol_the_configuration_s_protocol_runs_and_a_disagreeing_one_is_refused() {
    let o = nanotransport(&["latency", "--config", "homa-tr-16"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("homa-tr on homa-tr-16,"));
    let o = nanotransport(&["latency", "--protocol", "ndp", "--config", "homa-16"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim(), "error: configuration 'homa-16' is not a whole NIC running ndp (it runs homa)");
}

/// A capture of two DATA frames (a 1-byte and a 1500-byte message) from 10.0.0.2.
fn replay_capture(dir: &Path) -> PathBuf {
    use nanotransport_sim::scenarios::{data_frame, NIC_IP, PEER_IP};
    let long: Vec<u8> = (0..1500).map(|i| i as u8).collect();
    let frames = vec![
        (0u128, data_frame(PEER_IP, NIC_IP, 7000, 80, 1, &[0xAB], 0)),
        (1000, data_frame(PEER_IP, NIC_IP, 7001, 80, 2, &long, 0)),
        (1000, data_frame(PEER_IP, NIC_IP, 7001, 80, 2, &long, 1)),
    ];
    let path = dir.join("in.pcap");
    std::fs::write(&path, nanotransport_sim::replay::pcap_bytes(&frames, nanotransport_sim::replay::TsResolution::MicroSecond).unwrap())
        .unwrap();
    path
}

#[test]
fn replay_writes_the_output_capture_and_the_messages() {
    let dir_tmp = super::temp_dir();
    let dir = dir_tmp.path().to_path_buf();
    let input = replay_capture(&dir);
    let (out, msgs, send) = (dir.join("out.pcap"), dir.join("messages.jsonl"), dir.join("send.json"));
    std::fs::write(&send, r#"[{"remote_ip": "10.0.0.2", "remote_port": 9, "local_port": 10, "len": 100}]"#).unwrap();
    let args = [
        "replay",
        "--protocol",
        "ndp",
        "--config",
        "ndp-16",
        "--rtt-pkts",
        "4",
        "--in",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let more = [
        "--messages",
        msgs.to_str().unwrap(),
        "--send",
        send.to_str().unwrap(),
        "--nic-mac",
        "02:00:00:00:00:01",
        "--nic-ip",
        "10.0.0.1",
        "--max-cycles",
        "1000000",
        "--json",
    ];
    let o = nanotransport(&[&args[..], &more[..]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = super::json_output(&o);
    println!("{r}");
    assert_eq!(r["records"], 3);
    assert_eq!(r["messages_delivered"], 2);
    assert_eq!(r["messages_sent"], 1);
    assert_eq!(r["stopped"], "idle");
    assert_eq!(r["nic_ip"], "10.0.0.1");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&msgs).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["bytes"], "ab");
    assert_eq!(lines[1]["msg_len"], 1500);
    // Out: 3 ACKs and the sent message's DATA frame (possibly retransmitted: nobody answers it).
    let cap = nanotransport_sim::replay::read_pcap(&out).unwrap();
    let data = cap.records.iter().filter(|r| r.frame[34] & 1 == 1).count();
    let acks = cap.records.iter().filter(|r| r.frame[34] & 2 == 2).count();
    assert_eq!(acks, 3);
    assert!(data >= 1);
    // The text report says the same.
    let o = nanotransport(&args);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("2 delivered") && text.contains("stopped: idle"), "{text}");
}

/// `frames` with a second copy of the first DATA frame carrying other payload bytes appended
/// `after_ns` after the last: traffic no valid sender makes (the checker's `input-inconsistent`).
fn with_an_inconsistent_copy(records: &[nanotransport_sim::replay::PcapRecord], after_ns: u128) -> Vec<(u128, Vec<u8>)> {
    let mut frames: Vec<(u128, Vec<u8>)> = records.iter().map(|r| (r.time_ns, r.frame.clone())).collect();
    let (_, first) = frames.iter().find(|(_, f)| f.len() > 64 && f[34] == 1).expect("a DATA frame").clone();
    let mut copy = first;
    let last = copy.len() - 1;
    copy[last] ^= 0x01;
    frames.push((frames.last().unwrap().0 + after_ns, copy));
    frames
}

/// `replay --check` judges a capture with the whole-NIC checker: a clean one passes (exit 0), one
/// with an inconsistent copy fails with exit status 1 and names the mismatch. `replay --bundle`
/// replays a fuzz run's reproducer bundle to the checker's verdict: the clean run's bundle is
/// reproduced (exit 0); the same bundle with an inconsistent copy in its capture shows that
/// mismatch, is not what the fuzz run recorded, and exits 1.
#[test]
fn replay_check_and_bundle_give_the_checker_s_verdict_and_exit_status() {
    use nanotransport_sim::replay::{pcap_bytes, read_pcap, TsResolution};
    let dir_tmp = super::temp_dir();
    let dir = dir_tmp.path().to_path_buf();
    let input = replay_capture(&dir);
    let out = dir.join("out.pcap");
    let check = |input: &Path| {
        let o = nanotransport(&[
            "replay",
            "--config",
            "ndp-16",
            "--in",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--check",
            "--json",
        ]);
        let v: serde_json::Value = super::json_output(&o);
        (o.status.code(), v["mismatches"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect::<Vec<_>>())
    };
    assert_eq!(check(&input), (Some(0), vec![]));
    let bad = dir.join("inconsistent.pcap");
    let frames = with_an_inconsistent_copy(&read_pcap(&input).unwrap().records, 2_000);
    std::fs::write(&bad, pcap_bytes(&frames, TsResolution::NanoSecond).unwrap()).unwrap();
    let (code, mismatches) = check(&bad);
    assert_eq!(code, Some(1), "{mismatches:?}");
    assert!(mismatches.iter().any(|m| m.contains("input-inconsistent")), "{mismatches:?}");

    let bundle = dir.join("bundle");
    let run = nanotransport_sim::fuzz::fuzz(
        &nanotransport_sim::fuzz::FuzzOptions::new(&nanotransport_sim::whole_nic::WholeNic::preset("ndp-16").unwrap(), 300, 9),
        &mut |_| {},
    )
    .unwrap();
    assert!(run.check.mismatches.is_empty(), "{:?}", run.check.mismatches);
    nanotransport_sim::fuzz::write_bundle(&bundle, &run).unwrap();
    let replay_bundle = || {
        let o = nanotransport(&["replay", "--bundle", bundle.to_str().unwrap(), "--json"]);
        let v: serde_json::Value = super::json_output(&o);
        (o.status.code(), v)
    };
    let (code, v) = replay_bundle();
    assert_eq!((code, &v["reproduced"], v["mismatches"].as_array().unwrap().len()), (Some(0), &serde_json::json!(true), 0), "{v}");
    assert_eq!(v["frames_fed"].as_u64().unwrap() as usize, run.frames_in);
    let capture = bundle.join("input.pcap");
    let frames = with_an_inconsistent_copy(&read_pcap(&capture).unwrap().records, 5);
    std::fs::write(&capture, pcap_bytes(&frames, TsResolution::NanoSecond).unwrap()).unwrap();
    let (code, v) = replay_bundle();
    assert_eq!((code, &v["reproduced"]), (Some(1), &serde_json::json!(false)), "{v}");
    assert!(v["mismatches"].as_array().unwrap().iter().any(|m| m.as_str().unwrap().contains("input-inconsistent")), "{v}");
}

#[test]
fn replay_of_a_malformed_capture_is_a_one_line_error_and_writes_nothing() {
    let dir_tmp = super::temp_dir();
    let dir = dir_tmp.path().to_path_buf();
    let input = replay_capture(&dir);
    let bytes = std::fs::read(&input).unwrap();
    std::fs::write(&input, &bytes[..bytes.len() - 7]).unwrap();
    let (out, msgs) = (dir.join("out.pcap"), dir.join("messages.jsonl"));
    let o =
        nanotransport(&["replay", "--in", input.to_str().unwrap(), "--out", out.to_str().unwrap(), "--messages", msgs.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("record 3") && err.contains("truncated"), "{err}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "only the input is there");
    for (flag, value, want) in [
        ("--nic-ip", "10.0.0", "--nic-ip"),
        ("--nic-mac", "02:00", "--nic-mac"),
        ("--protocol", "tcp", "invalid value 'tcp' for '--protocol"),
    ] {
        let o = nanotransport(&["replay", "--in", input.to_str().unwrap(), "--out", out.to_str().unwrap(), flag, value]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{err}");
    }
    assert!(!out.exists());
}

#[test]
fn set_writes_registers_by_name_and_rejects_bad_ones_in_one_line() {
    for (args, want) in [
        (vec!["latency", "--protocol", "ndp", "--set", "rtt_pkts=65"], "0..=64"),
        (vec!["throughput", "--direction", "rx", "--set", "no_such_register=1"], "unknown register"),
        (vec!["latency", "--set", "rto_cycles=0"], "rto_cycles takes 1..="),
        (vec!["replay", "--in", "x.pcap", "--out", "y.pcap", "--set", "own_ip=10.0.0"], "own_ip takes an IPv4 address"),
        (vec!["replay", "--in", "x.pcap", "--out", "y.pcap", "--stall", "1.5"], "--stall 1.5: valid 0 ≤ P < 1"),
    ] {
        let o = nanotransport(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // A register set by name is what the NIC reads back (the report reads its own IP register).
    let dir_tmp = super::temp_dir();
    let dir = dir_tmp.path().to_path_buf();
    let input = replay_capture(&dir);
    let out = dir.join("out.pcap");
    let o = nanotransport(&[
        "replay",
        "--in",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--set",
        "own_ip=10.0.0.9",
        "--set",
        "own_mac=02:00:00:00:00:09",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = super::json_output(&o);
    assert_eq!(r["nic_ip"], "10.0.0.9");
    assert_eq!(r["nic_mac"], "02:00:00:00:00:09");
}

#[test]
fn a_missing_verilator_is_a_one_line_error_naming_it_and_the_fix() {
    // No tool on PATH at all: the first model the command opens needs Verilator.
    let empty = super::temp_dir();
    let o = assert_cmd::Command::cargo_bin("nanotransport")
        .unwrap()
        .args(["bench", "cosim", "--cycles", "10"])
        .env("PATH", empty.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    super::assert_one_line_error(&o, &["Verilator", "scripts/setup-tools.sh"]);
}
