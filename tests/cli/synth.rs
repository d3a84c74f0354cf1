//! `synth` (resources and logic depth after Yosys) on one small block, the depth-counting rules
//! on a hand-made netlist, `fpga ooc`'s folder dry-run under tclsh, and one-line errors for bad
//! input. Whole NICs are not synthesised here (minutes each): `nanotransport synth` does that.

use super::{assert_one_line_error, nanotransport};
use nanotransport_flow::synth::{logic_depth, NS_PER_LEVEL};
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};

#[test]
fn synth_reports_resources_per_block_and_depth_of_a_small_block() {
    let keep_tmp = super::temp_dir();
    let keep = keep_tmp.path().join("keep");
    let k = keep.to_str().unwrap();
    let o = nanotransport(&["synth", "--config", "blocks-16", "--block", "arbiter", "--json", "--keep", k]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = super::json_output(&o);
    // The kept outputs give the same report without running Yosys again.
    let again = nanotransport(&["synth", "--config", "blocks-16", "--block", "arbiter", "--json", "--keep", k, "--reanalyse"]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(super::json_output(&again), v);
    assert!(keep.join("nt_blocks_16_arbiter/flat.json").is_file());
    assert_eq!(v["config"], "blocks-16");
    let r = &v["reports"][0];
    println!("{}", serde_json::to_string_pretty(r).unwrap());
    assert_eq!(r["top"], "nt_blocks_16_arbiter");
    let res = &r["resources"];
    for key in ["lut", "ff", "lutram_cells", "lutram_luts", "srl", "bram36", "bram18", "uram", "dsp", "carry", "muxf", "cells"] {
        assert!(res[key].is_u64(), "resources.{key}");
    }
    assert!(res["lut"].as_u64().unwrap() > 0 && res["ff"].as_u64().unwrap() > 0);
    // The first-level blocks and the top's own cells add up to the total.
    let blocks = r["blocks"].as_array().unwrap();
    assert!(!blocks.is_empty());
    for key in ["lut", "ff", "carry", "cells"] {
        let sum: u64 = blocks.iter().map(|b| b["resources"][key].as_u64().unwrap() * b["instances"].as_u64().unwrap()).sum::<u64>()
            + r["top_own_resources"][key].as_u64().unwrap();
        assert_eq!(sum, res[key].as_u64().unwrap(), "{key}");
    }
    let d = &r["depth"];
    let levels = d["levels"].as_u64().unwrap();
    assert!(levels > 0);
    let fmax = d["fmax_mhz_estimate"].as_f64().unwrap();
    assert!((fmax - 1000.0 / (NS_PER_LEVEL * levels as f64)).abs() < 1e-6);
    let paths = d["paths"].as_array().unwrap();
    assert!(!paths.is_empty() && paths.len() <= 10);
    assert_eq!(paths[0]["levels"].as_u64().unwrap(), levels, "the first path is the deepest");
    for p in paths {
        assert!(p["levels"].as_u64().unwrap() <= levels);
        assert!(!p["start"].as_str().unwrap().is_empty() && !p["end"].as_str().unwrap().is_empty());
        // Levels are the LUTs, carry chains and LUTRAM reads on the path.
        let counted = p["luts"].as_u64().unwrap() + p["carry_chains"].as_u64().unwrap() + p["lutram_reads"].as_u64().unwrap();
        assert_eq!(counted, p["levels"].as_u64().unwrap(), "{p}");
    }
    assert_eq!(d["loops"], 0);
    // Flattened before synthesis: one whole, no block split, no flip-flop that the kept
    // hierarchy does not have.
    let flat = nanotransport(&["synth", "--config", "blocks-16", "--block", "arbiter", "--json", "--flatten"]);
    assert!(flat.status.success(), "{}", String::from_utf8_lossy(&flat.stderr));
    let f = &super::json_output(&flat)["reports"][0];
    assert!(f["flow"].as_str().unwrap().contains("-flatten"), "{}", f["flow"]);
    assert!(f["blocks"].as_array().unwrap().is_empty());
    let (flat_lut, flat_ff) = (f["resources"]["lut"].as_u64().unwrap(), f["resources"]["ff"].as_u64().unwrap());
    println!("arbiter flattened: {flat_lut} LUT, {flat_ff} FF (per module {} / {})", res["lut"], res["ff"]);
    assert!(flat_lut > 0 && flat_ff > 0 && flat_ff <= res["ff"].as_u64().unwrap());
    assert!(f["depth"]["levels"].as_u64().unwrap() > 0);
}

/// A cell of a hand-made flattened netlist.
fn cell(kind: &str, dirs: &[(&str, &str)], conns: &[(&str, Vec<u64>)]) -> Value {
    let dirs: serde_json::Map<String, Value> = dirs.iter().map(|(p, d)| (p.to_string(), json!(d))).collect();
    let conns: serde_json::Map<String, Value> = conns.iter().map(|(p, b)| (p.to_string(), json!(b))).collect();
    json!({ "type": kind, "parameters": {}, "port_directions": dirs, "connections": conns })
}

fn ff(d: u64, q: u64) -> Value {
    cell("FDRE", &[("C", "input"), ("D", "input"), ("Q", "output")], &[("C", vec![1]), ("D", vec![d]), ("Q", vec![q])])
}

fn lut2(a: u64, b: u64, o: u64) -> Value {
    cell("LUT2", &[("I0", "input"), ("I1", "input"), ("O", "output")], &[("I0", vec![a]), ("I1", vec![b]), ("O", vec![o])])
}

fn carry(ci: u64, s: u64, co: u64) -> Value {
    cell("CARRY4", &[("CI", "input"), ("S", "input"), ("CO", "output")], &[("CI", vec![ci]), ("S", vec![s]), ("CO", vec![co])])
}

#[test]
fn depth_counts_luts_one_carry_chain_once_and_muxes_not_at_all() {
    // first -> LUT -> CARRY4 -> CARRY4 (chained) -> LUT -> MUXF7 -> last: 3 levels.
    // A second path first -> LUT -> LUT -> LUT -> LUT -> other: 4 levels, the deepest.
    let netlist = json!({ "modules": { "top": {
        "ports": { "clock": { "direction": "input", "bits": [1] }, "x": { "direction": "input", "bits": [2] } },
        "cells": {
            "first": ff(2, 10),
            "l1": lut2(10, 10, 11),
            "c1": carry(11, 11, 12),
            "c2": carry(12, 10, 13),
            "l2": lut2(13, 10, 14),
            "m": cell("MUXF7", &[("I0", "input"), ("I1", "input"), ("S", "input"), ("O", "output")],
                      &[("I0", vec![14]), ("I1", vec![10]), ("S", vec![10]), ("O", vec![15])]),
            "last": ff(15, 16),
            "a": lut2(10, 16, 20), "b": lut2(20, 10, 21), "c": lut2(21, 10, 22), "d": lut2(22, 10, 23),
            "other": ff(23, 24),
        },
        "netnames": {
            "first": { "hide_name": 0, "bits": [10] }, "last": { "hide_name": 0, "bits": [16] },
            "other": { "hide_name": 0, "bits": [24] },
            "mid_a": { "hide_name": 0, "bits": [20] }, "mid_b": { "hide_name": 0, "bits": [21] },
            "mid_d": { "hide_name": 0, "bits": [23] },
            "$abc$internal": { "hide_name": 1, "bits": [22] },
        },
    } } });
    let d = logic_depth(&netlist, "top").unwrap();
    assert_eq!(d.levels, 4);
    assert_eq!((d.paths[0].start.as_str(), d.paths[0].end.as_str()), ("first", "other"));
    // The named nets between start and end, in order; hidden ones and the end's own net left out.
    assert_eq!(d.paths[0].through, ["mid_a", "mid_b"]);
    let last = d.paths.iter().find(|p| p.end == "last").expect("a path into last");
    assert_eq!((last.levels, last.luts, last.carry_chains, last.muxf), (3, 2, 1, 1));
    assert_eq!(last.start, "first");
    assert_eq!(d.loops, 0);
}

#[test]
fn synth_of_an_unknown_configuration_or_block_is_a_one_line_error() {
    assert_one_line_error(&nanotransport(&["synth", "--config", "ndp-9"]), &["ndp-9", "blocks-16", "homa-128", "bolt-ingress-64p"]);
    assert_one_line_error(&nanotransport(&["synth", "--config", "blocks-16", "--block", "nope"]), &["nope", "arbiter", "timer"]);
    // A whole NIC's first-level instances are its blocks.
    assert_one_line_error(&nanotransport(&["synth", "--config", "ndp-16", "--block", "nope"]), &["nope", "nic"]);
}

pub(crate) fn dry_run(build_tcl: &Path) -> Output {
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("fpga/vivado_dry_run.tcl");
    Command::new("tclsh").arg(harness).arg(build_tcl).output().expect("tclsh (Tcl 8.6) on PATH")
}

#[test]
fn fpga_ooc_writes_a_folder_whose_tcl_dry_runs_clean() {
    let out_tmp = super::temp_dir();
    let out = out_tmp.path().join("ooc");
    let o = nanotransport(&["fpga", "ooc", "--config", "homa-128", "--clock-mhz", "322", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["build.tcl", "settings.tcl", "README.md", "verilog/nt_homa_128_nic.v", "constraints/nt_homa_128_nic_ooc.xdc"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let xdc = std::fs::read_to_string(out.join("constraints/nt_homa_128_nic_ooc.xdc")).unwrap();
    assert!(xdc.contains("create_clock -period 3.106 -name clock [get_ports clock]"), "{xdc}");
    assert!(xdc.contains("s_axis_rx_tdata[*]") && xdc.contains("s_axil_awaddr[*]") && xdc.contains("m_axis_tx_tready"), "{xdc}");
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(readme.contains("vivado -mode batch -source build.tcl") && readme.contains("has not been run"), "{readme}");
    let settings = std::fs::read_to_string(out.join("settings.tcl")).unwrap();
    assert!(settings.contains("set nt_part xcvu9p-flga2104-2L-e"), "{settings}");

    let o = dry_run(&out.join("build.tcl"));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("dry run ok: top nt_homa_128_nic, part xcvu9p-flga2104-2L-e"), "{text}");
    assert!(text.contains("clock on port clock (3.106 ns)"), "{text}");
    assert!(text.contains("steps: synth_design opt_design place_design route_design"), "{text}");

    // The dry run fails when the XDC names something that is not a port of the top...
    let xdc_path = out.join("constraints/nt_homa_128_nic_ooc.xdc");
    std::fs::write(&xdc_path, format!("{xdc}\ncreate_clock -period 5.0 -name other [get_ports not_a_port]\n")).unwrap();
    let o = dry_run(&out.join("build.tcl"));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not_a_port"), "{}", String::from_utf8_lossy(&o.stderr));
    // ...and when a file it reads is missing.
    std::fs::write(&xdc_path, &xdc).unwrap();
    std::fs::remove_file(out.join("verilog/nt_homa_128_nic.v")).unwrap();
    let o = dry_run(&out.join("build.tcl"));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not exist"), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn fpga_ooc_bad_input_is_a_one_line_error_listing_the_choices_and_writes_nothing() {
    let out_tmp = super::temp_dir();
    let out = out_tmp.path().join("ooc-bad");
    let o = out.to_str().unwrap();
    let cases: [(Vec<&str>, Vec<&str>); 6] = [
        (vec!["--config", "ndp-16", "--part", "xc7a35t"], vec!["xc7a35t", "xcvu9p-flga2104-2L-e", "xcvu9p-flgb2104-2-i"]),
        (vec!["--config", "ndp-16", "--clock-mhz", "40"], vec!["40", "50", "800"]),
        (vec!["--config", "ndp-16", "--clock-mhz", "900"], vec!["900", "50", "800"]),
        (vec!["--config", "blocks-16"], vec!["blocks-16", "ndp-16", "homa-128"]),
        (vec!["--config", "bolt-ingress-64p"], vec!["bolt-ingress-64p", "ndp-16", "homa-tr-16"]),
        (vec!["--config", "ndp-9"], vec!["ndp-9", "ndp-16", "homa-128"]),
    ];
    for (args, mentions) in cases {
        let mut all = vec!["fpga", "ooc", "--out", o];
        all.extend(args);
        assert_one_line_error(&nanotransport(&all), &mentions);
        assert!(!out.exists(), "{all:?} wrote {o}");
    }
}

#[test]
fn stat_json_with_the_hierarchy_text_inside_is_read() {
    // Yosys 0.23 writes the hierarchy as text into "design" when the top has nested submodules.
    let broken = "{\n   \"creator\": \"Yosys 0.23\",\n   \"modules\": {\n      \"\\\\top\": {\n         \"num_cells_by_type\": {\n            \"LUT2\": 3,\n            \"top$sub\": 1\n         }\n      },\n      \"\\\\top$sub\": {\n         \"num_cells_by_type\": {\n            \"FDRE\": 2\n         }\n      }\n   },\n       top$sub      1\n   \"design\": {\n   }\n}\n";
    assert!(serde_json::from_str::<Value>(broken).is_err());
    let v = nanotransport_flow::synth::stat_json(broken).unwrap();
    let (total, own, blocks) = nanotransport_flow::synth::hierarchy_resources(&v, "top").unwrap();
    assert_eq!((total.lut, total.ff, own.lut, own.ff), (3, 2, 3, 0));
    assert_eq!((blocks[0].name.as_str(), blocks[0].resources.ff), ("sub", 2));
}
