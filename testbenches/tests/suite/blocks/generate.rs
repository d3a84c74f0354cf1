//! Unit tests of the block in `hdl/generate.rs`, on the natively stepped block.

use nanotransport_hdl::generate::*;

#[test]
fn renames_declarations_trailers_and_instances_only() {
    let src = "module top(a);\n    top$r r(\n    top$x = 1;\nendmodule // top\nmodule top$r(d);\nendmodule // top$r\n";
    let out = rename_top(src, "nt_x");
    assert_eq!(out, "module nt_x(a);\n    nt_x$r r(\n    top$x = 1;\nendmodule // nt_x\nmodule nt_x$r(d);\nendmodule // nt_x$r\n");
}
