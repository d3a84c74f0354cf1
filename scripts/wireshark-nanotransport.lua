-- Wireshark / tshark dissector for the nanoTransport header (the 30 bytes after IPv4, then 14
-- bytes of padding, then the payload; layout in hdl/pisa/wire.rs), IP protocols 155 (NDP) and
-- 154 (Homa). Use: wireshark -X lua_script:scripts/wireshark-nanotransport.lua OUT.pcap
-- (or copy it into Wireshark's personal plugins folder). PL2 frames (IP protocol 253) and Bolt frames (153) are decoded too.

local nt = Proto("nanotransport", "nanoTransport")

local flag_names = { [0x01] = "DATA", [0x02] = "ACK", [0x04] = "NACK", [0x08] = "PULL/GRANT", [0x10] = "CHOP" }

local f = nt.fields
f.flags = ProtoField.uint8("nanotransport.flags", "Flags", base.HEX)
f.data = ProtoField.bool("nanotransport.flags.data", "DATA", 8, nil, 0x01)
f.ack = ProtoField.bool("nanotransport.flags.ack", "ACK", 8, nil, 0x02)
f.nack = ProtoField.bool("nanotransport.flags.nack", "NACK", 8, nil, 0x04)
f.pull = ProtoField.bool("nanotransport.flags.pull", "PULL (NDP) / GRANT (Homa)", 8, nil, 0x08)
f.chop = ProtoField.bool("nanotransport.flags.chop", "CHOP", 8, nil, 0x10)
f.src_context = ProtoField.uint16("nanotransport.src_context", "Source context (port)")
f.dst_context = ProtoField.uint16("nanotransport.dst_context", "Destination context (port)")
f.msg_len = ProtoField.uint16("nanotransport.msg_len", "Message length")
f.pkt_offset = ProtoField.uint8("nanotransport.pkt_offset", "Packet offset")
f.pull_offset = ProtoField.uint16("nanotransport.pull_offset", "Pull offset (NDP) / grant offset (Homa)")
f.grant_prio = ProtoField.uint8("nanotransport.grant_prio", "Grant priority (Homa)")
f.tx_msg_id = ProtoField.uint16("nanotransport.tx_msg_id", "tx_msg_id")
f.buf_ptr = ProtoField.uint16("nanotransport.buf_ptr", "Buffer pointer")
f.buf_size_class = ProtoField.uint8("nanotransport.buf_size_class", "Buffer size class")
f.padding = ProtoField.bytes("nanotransport.padding", "Padding")
f.payload = ProtoField.bytes("nanotransport.payload", "Payload")

function nt.dissector(buf, pinfo, tree)
    if buf:len() < 30 then
        return 0
    end
    pinfo.cols.protocol = (pinfo.match_uint == 154) and "nT-Homa" or "nT-NDP"
    local t = tree:add(nt, buf(0, 30))
    local flags = buf(0, 1):uint()
    local names = {}
    for bit = 0, 4 do
        local v = 2 ^ bit
        if math.floor(flags / v) % 2 == 1 then
            names[#names + 1] = flag_names[math.floor(v)]
        end
    end
    local ft = t:add(f.flags, buf(0, 1))
    ft:append_text(" (" .. table.concat(names, ",") .. ")")
    ft:add(f.data, buf(0, 1))
    ft:add(f.ack, buf(0, 1))
    ft:add(f.nack, buf(0, 1))
    ft:add(f.pull, buf(0, 1))
    ft:add(f.chop, buf(0, 1))
    t:add(f.src_context, buf(1, 2))
    t:add(f.dst_context, buf(3, 2))
    t:add(f.msg_len, buf(5, 2))
    t:add(f.pkt_offset, buf(7, 1))
    t:add(f.pull_offset, buf(8, 2))
    t:add(f.grant_prio, buf(10, 1))
    t:add(f.tx_msg_id, buf(11, 2))
    t:add(f.buf_ptr, buf(13, 2))
    t:add(f.buf_size_class, buf(15, 1))
    t:add(f.padding, buf(16, 14))
    if buf:len() > 30 then
        tree:add(f.payload, buf(30))
    end
    pinfo.cols.info = string.format("%s %d -> %d msg_len=%d offset=%d tx_msg_id=%d",
        table.concat(names, ","), buf(1, 2):uint(), buf(3, 2):uint(), buf(5, 2):uint(), buf(7, 1):uint(), buf(11, 2):uint())
    return buf:len()
end

local ip_proto = DissectorTable.get("ip.proto")
ip_proto:add(155, nt)
ip_proto:add(154, nt)

-- PL2 (IP protocol 253): the 20-byte PL2 header after IPv4 and, on data frames, the message
-- fields at the start of the payload (layout in net/pl2/frame.rs).
local pl2 = Proto("pl2", "PL2")
local pl2_types = { [1] = "RSV", [2] = "GRT", [3] = "DATA" }
local p = pl2.fields
p.type = ProtoField.uint8("pl2.type", "Type", base.DEC, pl2_types)
p.flags = ProtoField.uint8("pl2.flags", "Flags", base.HEX)
-- One-bit flag fields of a flags byte: { field suffix, label, bit } each; `flag_fields` declares
-- them as <proto>.flags.<suffix>, `add_flags` shows them and returns the names of those set.
local function flag_fields(fields, proto, list)
    for _, fl in ipairs(list) do
        fields[fl[1]] = ProtoField.bool(proto .. ".flags." .. fl[1], fl[2], 8, nil, fl[3])
    end
end
local function add_flags(item, fields, list, range)
    local names = {}
    for _, fl in ipairs(list) do
        item:add(fields[fl[1]], range)
        if math.floor(range:uint() / fl[3]) % 2 == 1 then
            names[#names + 1] = string.upper(fl[1])
        end
    end
    return names
end
local pl2_flag_names = { { "unsolicited", "Unsolicited", 0x01 }, { "resent", "Resent", 0x02 }, { "encapsulated", "Encapsulated IPv4", 0x04 } }
flag_fields(p, "pl2", pl2_flag_names)
p.demand = ProtoField.uint8("pl2.demand", "Demand (packets)")
p.index = ProtoField.uint8("pl2.index", "Packet in burst")
p.burst = ProtoField.uint32("pl2.burst", "Burst")
p.send_timeslot = ProtoField.uint32("pl2.send_timeslot", "sendTimeslot")
p.recv_timeslot = ProtoField.uint32("pl2.recv_timeslot", "recvTimeslot")
p.flow = ProtoField.uint16("pl2.flow", "Flow")
p.msg_created_ps = ProtoField.uint64("pl2.msg_created_ps", "Message created (ps)")
p.msg_id = ProtoField.uint32("pl2.msg_id", "Message")
p.msg_packets = ProtoField.uint16("pl2.msg_packets", "Message packets")
p.msg_index = ProtoField.uint16("pl2.msg_index", "Packet in message")

function pl2.dissector(buf, pinfo, tree)
    if buf:len() < 20 then
        return 0
    end
    pinfo.cols.protocol = "PL2"
    local t = tree:add(pl2, buf(0, 20))
    local kind = buf(0, 1):uint()
    t:add(p.type, buf(0, 1))
    add_flags(t:add(p.flags, buf(1, 1)), p, pl2_flag_names, buf(1, 1))
    t:add(p.demand, buf(2, 1))
    t:add(p.index, buf(3, 1))
    t:add(p.burst, buf(4, 4))
    t:add(p.send_timeslot, buf(8, 4))
    t:add(p.recv_timeslot, buf(12, 4))
    t:add(p.flow, buf(16, 2))
    local encapsulated = math.floor(buf(1, 1):uint() / 4) % 2 == 1
    if kind == 3 and encapsulated and buf:len() > 20 then
        -- A host's IPv4 packet under the PL2 layer (net/pl2/layer.rs).
        Dissector.get("ip"):call(buf(20):tvb(), pinfo, tree)
        return buf:len()
    elseif kind == 3 and buf:len() >= 36 then
        local m = tree:add(pl2, buf(20, 16), "PL2 message")
        m:add(p.msg_created_ps, buf(20, 8))
        m:add(p.msg_id, buf(28, 4))
        m:add(p.msg_packets, buf(32, 2))
        m:add(p.msg_index, buf(34, 2))
    end
    pinfo.cols.info = string.format("%s flow=%d burst=%d demand=%d send=%d recv=%d",
        pl2_types[kind] or "?", buf(16, 2):uint(), buf(4, 4):uint(), buf(2, 1):uint(), buf(8, 4):uint(), buf(12, 4):uint())
    return buf:len()
end

ip_proto:add(253, pl2)

-- Bolt (IP protocol 153): the 9-byte header of thesis Listing 4.1 after IPv4, then the 16-byte
-- transport header of net/bolt/frame.rs (ports, offset or next byte expected, flow size).
local bolt = Proto("bolt", "Bolt")
local b = bolt.fields
b.q_size = ProtoField.uint24("bolt.q_size", "Queue size (bytes)")
b.link_rate = ProtoField.uint8("bolt.link_rate", "Link rate code")
b.flags = ProtoField.uint8("bolt.flags", "Flags", base.HEX)
local bolt_flag_names = { { "data", "DATA", 0x80 }, { "ack", "ACK", 0x40 }, { "src", "SRC", 0x20 }, { "last", "LAST", 0x10 },
    { "first", "FIRST", 0x08 }, { "inc", "INC", 0x04 }, { "dec", "DEC", 0x02 }, { "ai", "AI (reserved bit)", 0x01 } }
flag_fields(b, "bolt", bolt_flag_names)
b.t_data_tx = ProtoField.uint32("bolt.t_data_tx", "t_data_tx (ns)")
b.src_port = ProtoField.uint16("bolt.src_port", "Source port")
b.dst_port = ProtoField.uint16("bolt.dst_port", "Destination port")
b.seq = ProtoField.uint32("bolt.seq", "Offset (data) or next byte expected (ACK)")
b.flow_bytes = ProtoField.uint32("bolt.flow_bytes", "Flow size (bytes)")

function bolt.dissector(buf, pinfo, tree)
    if buf:len() < 9 then
        return 0
    end
    pinfo.cols.protocol = "Bolt"
    local t = tree:add(bolt, buf(0, math.min(buf:len(), 25)))
    t:add(b.q_size, buf(0, 3))
    t:add(b.link_rate, buf(3, 1))
    local names = add_flags(t:add(b.flags, buf(4, 1)), b, bolt_flag_names, buf(4, 1))
    t:add(b.t_data_tx, buf(5, 4))
    if buf:len() >= 25 then
        t:add(b.src_port, buf(9, 2))
        t:add(b.dst_port, buf(11, 2))
        t:add(b.seq, buf(13, 4))
        t:add(b.flow_bytes, buf(17, 4))
        pinfo.cols.info = string.format("%s %d -> %d seq=%d q_size=%d", table.concat(names, ","), buf(9, 2):uint(), buf(11, 2):uint(),
            buf(13, 4):uint(), buf(0, 3):uint())
    end
    return buf:len()
end

ip_proto:add(153, bolt)
