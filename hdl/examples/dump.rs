fn main() {
    for c in nanotransport_hdl::configs::CONFIGS {
        nanotransport_hdl::generate::write_modules(&std::path::Path::new("/tmp/vout").join(c.name), &c.generate()).unwrap();
    }
}
