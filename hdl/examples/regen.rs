use nanotransport_hdl::configs::{CONFIGS, SWITCH_CONFIGS};
use nanotransport_hdl::generate::write_modules;
fn main() {
    let only: Vec<String> = std::env::args().skip(1).collect();
    for c in CONFIGS {
        if !only.is_empty() && !only.iter().any(|o| o == c.name) { continue; }
        let t = std::time::Instant::now();
        let m = c.generate();
        write_modules(&std::path::Path::new("verilog-out").join(c.name), &m).unwrap();
        println!("{} {} modules {:.1}s", c.name, m.len(), t.elapsed().as_secs_f64());
    }
    let _ = SWITCH_CONFIGS;
}
