//! Reassembly module on the Verilator model of its generated Verilog: directed delivery,
//! latency and throughput figures, every bad input with its counter, back-pressure.

use nanotransport_sim::cosim::rx_harness::{RxHarness, RxPacket};
use nanotransport_sim::model::rx::{app_header, RxMeta, RxRequest, RxResponse};

const MODULE: &str = "nt_nic_16_reassembly";

fn request(ip: u32, port: u16, tx: u16, len: u16, off: u8) -> RxRequest {
    RxRequest { mark_received: true, src_ip: ip, src_port: port, tx_msg_id: tx, msg_len: len, pkt_offset: off }
}

/// Calls GetRxMsgInfo and returns the response (two cycles, nothing else moving).
fn call(h: &mut RxHarness, r: &RxRequest) -> RxResponse {
    h.step(Some(r), false, true);
    h.step(None, false, true).response.expect("response one cycle after the request")
}

fn packet(r: &RxRequest, resp: &RxResponse, local_port: u16, payload: Vec<u8>) -> RxPacket {
    RxPacket {
        meta: RxMeta {
            remote_ip: r.src_ip,
            remote_port: r.src_port,
            msg_len: r.msg_len,
            pkt_offset: r.pkt_offset,
            local_port,
            rx_msg_id: resp.rx_msg_id,
            tx_msg_id: r.tx_msg_id,
            is_last_pkt: resp.is_last_pkt,
        },
        payload,
    }
}

fn bytes(n: usize, salt: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(salt)).collect()
}

/// Runs until `n` messages were read out (or `limit` cycles pass), CPU always ready.
fn drain(h: &mut RxHarness, n: usize, limit: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for _ in 0..limit {
        let c = h.step(None, true, true);
        out.extend(c.message_done);
        if out.len() == n && h.packets.is_empty() {
            break;
        }
    }
    out
}

#[test]
fn three_packets_out_of_order_are_delivered_in_order() {
    let mut h = RxHarness::new(MODULE, 100_000);
    let len = 2 * 1024 + 100;
    let data = bytes(len, 3);
    for off in [2u8, 0, 1] {
        let r = request(0x0a000001, 4000, 9, len as u16, off);
        let resp = call(&mut h, &r);
        assert!(!resp.fail, "{resp:?}");
        let o = off as usize * 1024;
        h.packets.push_back(packet(&r, &resp, 80, data[o..(o + 1024).min(len)].to_vec()));
    }
    let msgs = drain(&mut h, 1, 2000);
    let mut want = app_header(0x0a000001, 4000, 80, len as u16).to_vec();
    want.extend_from_slice(&data);
    assert_eq!(msgs, vec![want]);
    let c = h.counters();
    assert_eq!(c.delivered, 1);
    for _ in 0..4 {
        h.step(None, false, true);
    }
    assert_eq!(h.output("free_lists_full"), 0x1f, "ID and buffer freed after read-out");
    assert_eq!(h.output("busy_slots"), 0);
}

/// Table 3.1's reassembly figure: first beat of a single-packet message with a 16-byte payload
/// entering the module → first beat leaving towards the CPU, and → first payload byte leaving.
#[test]
fn latency_of_a_single_packet_16_byte_message() {
    let mut h = RxHarness::new(MODULE, 100_000);
    let r = request(0x0a000002, 5000, 1, 16, 0);
    let resp = call(&mut h, &r);
    assert!(!resp.fail && resp.is_last_pkt);
    let data = bytes(16, 7);
    h.packets.push_back(packet(&r, &resp, 81, data.clone()));
    let mut first_in = None;
    let mut first_out = None;
    let mut first_payload_out = None;
    let mut msg = Vec::new();
    for _ in 0..50 {
        let cycle = h.cycle;
        let c = h.step(None, true, true);
        if c.packet_started {
            first_in.get_or_insert(cycle);
        }
        if c.beat_out {
            let beat_index = {
                let b = first_out.map_or(0, |f: u64| cycle - f);
                b
            };
            first_out.get_or_insert(cycle);
            // The header is 16 bytes = 2 beats; the third beat carries payload bytes 0..7.
            if beat_index == 2 {
                first_payload_out.get_or_insert(cycle);
            }
        }
        if let Some(m) = c.message_done {
            msg = m;
            break;
        }
    }
    let mut want = app_header(0x0a000002, 5000, 81, 16).to_vec();
    want.extend_from_slice(&data);
    assert_eq!(msg, want);
    let (i, o, p) = (first_in.unwrap(), first_out.unwrap(), first_payload_out.unwrap());
    println!("reassembly latency: first beat in -> first beat out {} cycles, -> first payload byte out {} cycles", o - i, p - i);
    assert!(o - i <= 3, "Table 3.1 target: 3 cycles");
    assert_eq!(p - i, 5);
}

