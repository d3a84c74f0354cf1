//! TCP hosts (`net/tcp.rs`), switch schemes chosen by name (`net/schemes/spec.rs`) and
//! Flexplane's bulk experiment (`net/experiments/flexplane.rs`) on shortened runs.

use nanotransport_hdl::clock::NicClock;
use nanotransport_net::experiments::flexplane::{run_bulk, BulkParams};
use nanotransport_net::experiments::stats::jain;
use nanotransport_net::schemes::Scheme;
use nanotransport_net::switch::{DscpClassify, PortQueues, QueueManager, StageContext, StrictPriority, Verdict};
use nanotransport_net::tcp::{CongestionControl, Segment, TcpConfig, TcpHost, TCP_IP_PROTOCOL};
use nanotransport_net::topology::{star_of, Member, SwitchStages};
use nanotransport_net::{LinkSpec, Network};
use rand::{Rng, SeedableRng};

const RECEIVER: u32 = 0x0A00_0001;
const SENDER: u32 = 0x0A00_0002;

fn ones_complement(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes.chunks(2).map(|w| u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

fn segment(payload: usize, sack: &[(u32, u32)]) -> Segment {
    let mut s = Segment {
        src_ip: SENDER,
        dst_ip: RECEIVER,
        src_port: 40_000,
        dst_port: 5001,
        seq: 0xFFFF_FF00,
        ack: 77,
        flags: 0x10,
        payload,
        ecn: 0b10,
        dscp: 3,
        sack: [(0, 0); 4],
        sack_blocks: sack.len(),
    };
    s.sack[..sack.len()].copy_from_slice(sack);
    s
}

#[test]
fn segments_round_trip_with_valid_checksums_and_sack_blocks() {
    for (payload, sack) in [(1460, vec![]), (0, vec![(100, 200)]), (0, vec![(1, 2), (3, 4), (5, 6), (7, 8)]), (10, vec![])] {
        let s = segment(payload, &sack);
        let f = s.frame();
        assert!(f.len() >= 60);
        assert_eq!(Segment::parse(&f), Some(s), "{payload} {sack:?}");
        // IPv4 header and TCP (pseudo header + segment) checksums verify to all ones.
        assert_eq!(ones_complement(&f[14..34]), 0xffff);
        let tcp_len = u16::from_be_bytes([f[16], f[17]]) as usize - 20;
        let mut pseudo = f[26..34].to_vec();
        pseudo.extend_from_slice(&[0, TCP_IP_PROTOCOL]);
        pseudo.extend_from_slice(&(tcp_len as u16).to_be_bytes());
        pseudo.extend_from_slice(&f[34..34 + tcp_len]);
        assert_eq!(ones_complement(&pseudo), 0xffff, "{payload} {sack:?}");
    }
}

#[test]
fn malformed_frames_are_not_segments_and_a_host_counts_them() {
    let good = segment(100, &[(1, 2)]).frame();
    let mut cases = vec![good[..40].to_vec()];
    let mut other_protocol = good.clone();
    other_protocol[23] = 17;
    cases.push(other_protocol);
    let mut short_offset = good.clone();
    short_offset[34 + 12] = 4 << 4; // a TCP header of 16 bytes
    cases.push(short_offset);
    let mut long_ip = good.clone();
    long_ip[16..18].copy_from_slice(&4000u16.to_be_bytes()); // beyond the frame
    cases.push(long_ip);
    let mut bad_option = good.clone();
    bad_option[34 + 23] = 60; // the SACK option's length runs past the header
    cases.push(bad_option);
    for (i, f) in cases.iter().enumerate() {
        assert_eq!(Segment::parse(f), None, "case {i}");
    }
    // Into a network: the receiving host counts them and stays well.
    let config = TcpConfig::with_cc(CongestionControl::Reno);
    let receiver = TcpHost::new(RECEIVER, config.clone()).unwrap();
    let mut net = star_of(
        NicClock::THESIS,
        vec![Member::Host(Box::new(receiver)), Member::Host(Box::new(Replay { ip: SENDER, frames: cases }))],
        LinkSpec::new(10.0, 1000.0),
        stages(),
        1,
    )
    .unwrap();
    net.run(1_000_000, &mut |_| false, &mut |_| {});
    let rx = net.host::<TcpHost>(0).unwrap();
    assert_eq!(rx.malformed, 5);
    assert!(rx.connections.is_empty());
}

/// Sends its frames at start.
struct Replay {
    ip: u32,
    frames: Vec<Vec<u8>>,
}

impl nanotransport_net::Host for Replay {
    fn ip(&self) -> u32 {
        self.ip
    }
    fn start(&mut self, io: &mut nanotransport_net::HostIo) {
        for f in &self.frames {
            io.send(f.clone());
        }
    }
    fn receive(&mut self, _frame: Vec<u8>, _io: &mut nanotransport_net::HostIo) {}
    fn timer(&mut self, _id: u64, _io: &mut nanotransport_net::HostIo) {}
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn stages() -> SwitchStages {
    Scheme::named("droptail").unwrap().stages(1).unwrap()
}

/// A queue manager that, with a seeded generator, drops, duplicates or holds back (reorders
/// behind the next frame) a fraction of the frames of each kind.
#[derive(Clone)]
struct Mangler {
    rng: rand_chacha::ChaCha8Rng,
    drop: f64,
    duplicate: f64,
    reorder: f64,
    held: Option<Vec<u8>>,
    counts: [u64; 3],
}

impl QueueManager for Mangler {
    fn enqueue(&mut self, q: &mut PortQueues, band: usize, frame: Vec<u8>, _ctx: &mut StageContext) -> Verdict {
        let x: f64 = self.rng.gen();
        if x < self.drop {
            self.counts[0] += 1;
            return Verdict::Dropped;
        }
        if x < self.drop + self.duplicate {
            self.counts[1] += 1;
            q.push(band, frame.clone());
        } else if x < self.drop + self.duplicate + self.reorder && self.held.is_none() {
            self.counts[2] += 1;
            self.held = Some(frame);
            return Verdict::Enqueued;
        }
        q.push(band, frame);
        if let Some(h) = self.held.take() {
            q.push(band, h);
        }
        Verdict::Enqueued
    }
}

/// One transfer of `bytes` from SENDER to RECEIVER through a switch with `qm`; returns the
/// network after `ms` of simulated time.
fn transfer(config: &TcpConfig, bytes: u64, qm: Box<dyn QueueManager>, ms: f64) -> Network {
    let receiver = TcpHost::new(RECEIVER, config.clone()).unwrap();
    let mut sender = TcpHost::new(SENDER, config.clone()).unwrap();
    sender.open(RECEIVER, 40_000, 5001, bytes, 0.0);
    let stages: SwitchStages = (Box::new(DscpClassify { bands: 1 }), qm, Box::new(StrictPriority), 1);
    let mut net = star_of(
        NicClock::THESIS,
        vec![Member::Host(Box::new(receiver)), Member::Host(Box::new(sender))],
        LinkSpec::new(10.0, 5000.0),
        stages,
        1,
    )
    .unwrap();
    net.run((ms * 3.2e6) as u64, &mut |_| false, &mut |_| {});
    net
}

#[test]
fn a_clean_transfer_arrives_whole_without_a_retransmission_and_delayed_acks_halve_the_acks() {
    for (delayed, cc) in [(true, CongestionControl::Cubic), (false, CongestionControl::Reno), (true, CongestionControl::Dctcp)] {
        let config = TcpConfig { delayed_ack: delayed, ..TcpConfig::with_cc(cc) };
        let drop_tail = Scheme::named("droptail").unwrap().stages(1).unwrap().1;
        let net = transfer(&config, 3_000_000, drop_tail, 60.0);
        let tx = &net.host::<TcpHost>(1).unwrap().connections[0];
        let rx = &net.host::<TcpHost>(0).unwrap().connections[0];
        assert_eq!(rx.stats.bytes_received, 3_000_000, "{cc:?}");
        assert_eq!(tx.acked(), 3_000_000);
        assert_eq!(tx.stats.retransmits, 0);
        let segments = 3_000_000u64.div_ceil(1460);
        assert_eq!(tx.stats.segments_sent, segments);
        if delayed {
            // One ACK per two segments; the odd last one is acknowledged by the 40 ms timer.
            assert!(rx.stats.acks_sent.abs_diff(segments / 2) <= 2, "{} ACKs for {segments} segments", rx.stats.acks_sent);
        } else {
            assert_eq!(rx.stats.acks_sent, segments);
        }
        assert!(tx.srtt_ns().is_some_and(|r| r > 20_000.0), "a sample of at least the 4 × 5 µs delay");
    }
}

#[test]
fn transfers_survive_lost_duplicated_and_reordered_segments_and_acks() {
    let seed = 7;
    println!("seed {seed}");
    for cc in [CongestionControl::Reno, CongestionControl::Cubic, CongestionControl::Dctcp] {
        // A lower minimum RTO keeps the test short; the rule is the same.
        let config = TcpConfig { min_rto_ms: 5.0, ..TcpConfig::with_cc(cc) };
        let mangler = Mangler {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            drop: 0.02,
            duplicate: 0.02,
            reorder: 0.02,
            held: None,
            counts: [0; 3],
        };
        let net = transfer(&config, 2_000_000, Box::new(mangler), 2000.0);
        let tx = &net.host::<TcpHost>(1).unwrap().connections[0];
        let rx = &net.host::<TcpHost>(0).unwrap().connections[0];
        assert_eq!(rx.stats.bytes_received, 2_000_000, "{cc:?}: {:?}", tx.stats);
        assert_eq!(tx.acked(), 2_000_000, "{cc:?}");
        assert!(tx.stats.fast_retransmits > 0, "{cc:?}: SACK recovery exercised");
        assert!(rx.stats.duplicate_segments > 0 && rx.stats.out_of_order_segments > 0, "{cc:?}: {:?}", rx.stats);
        // Everything sent was needed once, plus what was lost: no storm of resends.
        assert!(tx.stats.retransmits < tx.stats.segments_sent / 5, "{cc:?}: {:?}", tx.stats);
    }
}

#[test]
fn a_loss_cuts_the_window_as_each_congestion_control_says() {
    // One drop in a clean transfer: the window after recovery is the cut from the flight.
    #[derive(Clone)]
    struct DropNth(u64, u64);
    impl QueueManager for DropNth {
        fn enqueue(&mut self, q: &mut PortQueues, band: usize, frame: Vec<u8>, _ctx: &mut StageContext) -> Verdict {
            self.0 += 1;
            if frame.len() > 100 && self.0 == self.1 {
                return Verdict::Dropped;
            }
            q.push(band, frame);
            Verdict::Enqueued
        }
    }
    for (cc, beta) in [(CongestionControl::Reno, 0.5), (CongestionControl::Cubic, 0.7)] {
        let config = TcpConfig::with_cc(cc);
        let net = transfer(&config, 400 * 1460, Box::new(DropNth(0, 60)), 60.0);
        let tx = &net.host::<TcpHost>(1).unwrap().connections[0];
        assert_eq!(tx.stats.fast_retransmits, 1, "{cc:?}");
        assert_eq!(tx.stats.timeouts, 0);
        assert_eq!(net.host::<TcpHost>(0).unwrap().connections[0].stats.bytes_received, 400 * 1460);
        // ssthresh = β × the window in use at the loss (slow start's, below 2 × 60 segments).
        let w = tx.ssthresh / beta / 1460.0;
        assert!((20.0..120.0).contains(&w), "{cc:?}: ssthresh {} → window {w} segments", tx.ssthresh);
    }
}

#[test]
fn schemes_are_chosen_by_name_or_toml_with_one_line_errors() {
    let by_sets = Scheme::from_sets("red", &["min=100".into(), "max=200".into(), "ecn=true".into()]).unwrap();
    let by_toml = Scheme::from_toml("scheme = \"red\"\nmin = 100\nmax = 200.0\necn = true\n").unwrap();
    assert_eq!(by_sets, by_toml);
    assert_eq!(by_sets, Scheme::Red { min: 100.0, max: 200.0, max_p: 0.1, weight: 1.0 / 32.0, ecn: true, capacity: 1024 });
    assert_eq!(
        Scheme::from_toml("scheme = \"wdrr\"\nweights = [4, 2, 1]").unwrap(),
        Scheme::from_sets("wdrr", &["weights=4:2:1".into()]).unwrap()
    );
    for name in nanotransport_net::schemes::SCHEME_NAMES {
        let s = Scheme::named(name).unwrap();
        assert_eq!(s.name(), *name);
        s.stages(1).unwrap();
    }
    let errors = [
        Scheme::from_sets("codel", &[]),
        Scheme::from_sets("red", &["min=300".into()]),
        Scheme::from_sets("red", &["max_p=0".into()]),
        Scheme::from_sets("red", &["frobs=1".into()]),
        Scheme::from_sets("red", &["min=lots".into()]),
        Scheme::from_sets("dctcp", &["k=2000".into()]),
        Scheme::from_sets("drr", &["quantum=0".into()]),
        Scheme::from_sets("wdrr", &["weights=1:0".into()]),
        Scheme::from_sets("hull", &["drain=1.5".into()]),
        Scheme::from_sets("droptail", &["capacity".into()]),
        Scheme::from_toml("min = 3"),
        Scheme::from_toml("scheme = \"red\"\nmin = "),
    ];
    let words = ["codel", "min", "max_p", "frobs", "lots", "2000", "quantum", "weight", "drain", "KEY=VALUE", "scheme", "scheme file"];
    for (e, word) in errors.into_iter().zip(words) {
        let e = e.expect_err(word);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(word), "{e} should name {word}");
    }
}

#[test]
fn nonsense_tcp_and_experiment_parameters_are_one_line_errors() {
    let bad = [
        TcpConfig { mss: 10, ..TcpConfig::default() },
        TcpConfig { initial_window_segments: 0, ..TcpConfig::default() },
        TcpConfig { min_rto_ms: 0.0, ..TcpConfig::default() },
        TcpConfig { tx_queue_bytes: 100, ..TcpConfig::default() },
        TcpConfig { dscp: 64, ..TcpConfig::default() },
    ];
    for c in bad {
        let e = TcpHost::new(RECEIVER, c.clone()).expect_err("invalid");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    assert!("vegas".parse::<CongestionControl>().unwrap_err().contains("cubic"));
    let ok = BulkParams::defaults(Scheme::named("droptail").unwrap());
    for (p, word) in [
        (BulkParams { senders: 0, ..ok.clone() }, "--senders"),
        (BulkParams { seconds: 1.5, ..ok.clone() }, "--seconds"),
        (BulkParams { sender_ppm: -1.0, ..ok.clone() }, "--sender-ppm"),
        (BulkParams { link_ns: 0.0, ..ok.clone() }, "--link-ns"),
        (BulkParams { scheme: Scheme::Dctcp { k: 5000, capacity: 1024 }, ..ok.clone() }, "K"),
    ] {
        let e = run_bulk(&p, &mut |_| {}).expect_err(word);
        assert!(e.contains(word) && e.lines().count() == 1, "{e}");
    }
}

#[test]
fn jain_index_is_one_for_equal_shares_and_one_over_n_for_one_taker() {
    assert_eq!(jain(&[2.0, 2.0, 2.0]), 1.0);
    assert!((jain(&[5.0, 0.0, 0.0, 0.0, 0.0]) - 0.2).abs() < 1e-12);
    assert!((jain(&[1.0, 3.0]) - 0.8).abs() < 1e-12);
}

/// Flexplane's Table 4.2 ordering on shortened runs (1.5 s, 0.5 s warm-up, 0.25 s intervals):
/// DropTail > RED > DCTCP in median queue, each within a factor 1.5 of the hardware column,
/// goodput ≥ 9 Gb/s; DCTCP and RED fair.
#[test]
fn bulk_orders_droptail_above_red_above_dctcp_near_the_hardware_queues() {
    let mut medians = Vec::new();
    for name in ["droptail", "red", "dctcp"] {
        let mut p = BulkParams::defaults(Scheme::named(name).unwrap());
        (p.seconds, p.warmup_s, p.interval_s) = (1.5, 0.5, 0.25);
        println!("seed {}", p.seed);
        let r = run_bulk(&p, &mut |_| {}).unwrap();
        let hardware = r.paper.unwrap().queue_hardware.0;
        println!(
            "{name}: queue {} (σ {:.1}), fairness {:.3}, {:.2} Gb/s",
            r.queue_median_pkts, r.queue_sigma_pkts, r.fairness_median, r.goodput_gbps
        );
        assert!(
            r.queue_median_pkts > hardware / 1.5 && r.queue_median_pkts < hardware * 1.5,
            "{name}: {} vs {hardware}",
            r.queue_median_pkts
        );
        assert!(r.goodput_gbps >= 9.0, "{name}: {}", r.goodput_gbps);
        assert_eq!(r.fairness.len(), 4);
        if name != "droptail" {
            assert!(r.fairness_median >= 0.95, "{name}: {}", r.fairness_median);
        }
        medians.push(r.queue_median_pkts);
    }
    assert!(medians[0] > medians[1] && medians[1] > medians[2], "{medians:?}");
}

/// One client, two servers, one request of each class on a clean network: both answered once,
/// each no sooner than its response's serialisation plus a round trip.
#[test]
fn rpc_requests_are_answered_in_order_with_their_response_sizes() {
    use nanotransport_net::rpc::{Request, RpcClient, RpcServer, REQUEST_BYTES};
    let config = TcpConfig::default();
    let servers = [0x0A00_0010, 0x0A00_0011];
    let schedule = vec![
        Request { at_ns: 1000.0, server: 0, class: 0, response_bytes: 1500 },
        Request { at_ns: 2000.0, server: 1, class: 1, response_bytes: 1_000_000 },
        Request { at_ns: 3000.0, server: 1, class: 1, response_bytes: 2000 },
    ];
    let client = RpcClient::new(RECEIVER, config.clone(), &servers, schedule.clone()).unwrap();
    let mut members = vec![Member::Host(Box::new(client))];
    for (k, ip) in servers.iter().enumerate() {
        let mut s = RpcServer::new(*ip, config.clone()).unwrap();
        for r in schedule.iter().filter(|r| r.server == k) {
            s.expect(RECEIVER, nanotransport_net::rpc::client_port(r.server, r.class), r.response_bytes);
        }
        members.push(Member::Host(Box::new(s)));
    }
    let mut net = star_of(NicClock::THESIS, members, LinkSpec::new(10.0, 5000.0), stages(), 1).unwrap();
    net.run(3_200_000 * 50, &mut |_| false, &mut |_| {});
    let c = net.host::<RpcClient>(0).unwrap();
    assert_eq!(c.outstanding(), 0);
    let sizes: Vec<u64> = c.completions.iter().map(|x| x.response_bytes).collect();
    assert_eq!(sizes, [1500, 1_000_000, 2000], "in order per connection");
    for x in &c.completions {
        let floor = x.response_bytes as f64 * 8.0 / 10.0 + 4.0 * 5000.0;
        assert!(x.done_ns - x.sent_ns > floor, "{x:?} faster than {floor} ns");
    }
    // The short response came back in the request's class (DSCP 0), the long ones in DSCP 1.
    let s1 = net.host::<RpcServer>(2).unwrap();
    assert_eq!(s1.tcp.connections[0].dscp, 1);
    assert_eq!(s1.tcp.connections[0].stats.bytes_received, 2 * REQUEST_BYTES);
    assert_eq!(s1.unexpected_requests, 0);
}

/// Flexplane's Fig. 4-2 trade-off on a shortened run (1 s of requests after 0.5 s, 1 s drain):
/// DCTCP, HULL and per-source DRR give short requests shorter mean times than DropTail, whose
/// senders rarely cut back; HULL's phantom queue is quicker than DCTCP for short requests and
/// slower for long ones; every request is answered.
#[test]
fn rpc_short_requests_are_quicker_under_dctcp_hull_and_drr_than_droptail() {
    use nanotransport_net::experiments::flexplane::{run_rpc, RpcParams};
    let mut runs = std::collections::HashMap::new();
    for name in ["droptail", "dctcp", "hull", "drr"] {
        let mut p = RpcParams::defaults(Scheme::named(name).unwrap());
        (p.seconds, p.warmup_s) = (1.5, 0.5);
        println!("seed {}", p.seed);
        let r = run_rpc(&p, &mut |_| {}).unwrap();
        println!("{name}: short {:?} µs, long {:?} µs, load {:.2}", r.short.mean_us, r.long.mean_us, r.client_link_load);
        assert_eq!(r.unanswered, 0, "{name}");
        assert!((0.5..0.75).contains(&r.client_link_load), "{name}: {}", r.client_link_load);
        assert!(r.short.requests > 500 && r.long.requests > 100, "{name}");
        runs.insert(name, (r.short.mean_us.unwrap(), r.long.mean_us.unwrap()));
    }
    for name in ["dctcp", "hull", "drr"] {
        assert!(runs[name].0 < runs["droptail"].0, "{name} {:?} vs droptail {:?}", runs[name], runs["droptail"]);
    }
    assert!(runs["hull"].0 < runs["dctcp"].0 && runs["hull"].1 > runs["dctcp"].1, "{runs:?}");
}

#[test]
fn a_host_refuses_connections_beyond_its_table_and_counts_them() {
    use nanotransport_net::tcp::MAX_CONNECTIONS;
    let frames: Vec<Vec<u8>> = (0..MAX_CONNECTIONS + 3)
        .map(|k| {
            let mut s = segment(0, &[]);
            s.src_port = k as u16;
            s.frame()
        })
        .collect();
    let receiver = TcpHost::new(RECEIVER, TcpConfig::default()).unwrap();
    let members = vec![Member::Host(Box::new(receiver)), Member::Host(Box::new(Replay { ip: SENDER, frames }))];
    let mut net = star_of(NicClock::THESIS, members, LinkSpec::new(10.0, 1000.0), stages(), 1).unwrap();
    net.run(100_000_000, &mut |_| false, &mut |_| {});
    let rx = net.host::<TcpHost>(0).unwrap();
    assert_eq!((rx.connections.len(), rx.refused, rx.malformed), (MAX_CONNECTIONS, 3, 0));
}

/// The line counts beside Flexplane's Table 3.1 in `net/schemes/mod.rs` are the files' own.
#[test]
fn scheme_line_counts_in_the_rustdoc_are_current() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../net/schemes");
    let doc = std::fs::read_to_string(dir.join("mod.rs")).unwrap();
    let mut checked = 0;
    for line in doc.lines().filter(|l| l.starts_with("//! |")) {
        let Some(cell) = line.trim_end_matches('|').rsplit('|').next() else { continue };
        let mut words = cell.split_whitespace();
        let (Some(file), Some(count)) = (words.next(), words.next()) else { continue };
        let (Some(file), Ok(count)) = (file.strip_prefix('`').and_then(|f| f.strip_suffix('`')), count.parse::<usize>()) else { continue };
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let code = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//")).count();
        assert_eq!(code, count, "{file}: the rustdoc says {count} lines");
        checked += 1;
    }
    assert_eq!(checked, 5);
}
