import Foundation
import Testing

@testable import RollcallCore

@Suite("Network range", .timeLimit(.minutes(5)))
struct NetworkRangeTests {
    func range(_ cidr: String) -> NetworkRange { NetworkRange(cidr: cidr)! }

    // MARK: Parsing

    @Test(arguments: [
        ("10.0.0.0/8", "10.0.0.0/8"),
        ("10.1.2.3/8", "10.0.0.0/8"),
        ("192.168.1.7/24", "192.168.1.0/24"),
        ("172.16.0.0/12", "172.16.0.0/12"),
        ("10.128.0.0/9", "10.128.0.0/9"),
        ("192.168.1.7", "192.168.1.7/32"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("255.255.255.255/32", "255.255.255.255/32"),
        ("1.2.3.4/0", "0.0.0.0/0"),
        ("2001:db8::/32", "2001:db8::/32"),
        ("2001:DB8::/32", "2001:db8::/32"),
        ("2001:db8:1234::/32", "2001:db8::/32"),
        ("2001:0db8:0000:0000:0000:ff00:0042:8329", "2001:db8::ff00:42:8329/128"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1/128"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1/128"),
        ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1/128"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8/128"),
        ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304/128"),
        ("::", "::/128"),
        ("::/0", "::/0"),
        ("::1", "::1/128"),
        ("1::", "1::/128"),
        ("1::8", "1::8/128"),
        ("1:0::8", "1::8/128"),
        ("fe80::1:2/64", "fe80::/64"),
        ("fe80::/10", "fe80::/10"),
        ("::ffff:10.0.0.0/104", "::ffff:10.0.0.0/104"),
        ("::FFFF:a00:0/104", "::ffff:10.0.0.0/104"),
        ("2001:db8::/128", "2001:db8::/128"),
    ])
    func good_ranges_parse_to_canonical_text(cidr: String, canonical: String) {
        #expect(NetworkRange(cidr: cidr)?.description == canonical)
    }

    @Test(arguments: [
        "", "/", "/8", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/08", "10.0.0.0/8/8",
        "10.0.0.0/1000", "10.0.0.0/8 ", " 10.0.0.0/8", "10.0.0.0 /8", "10.0.0.0/ 8", "10.0.0/8", "10.0.0.0.0",
        "10..0.0", "10.0.0.", ".10.0.0", "256.0.0.0", "1.2.3.1000", "01.2.3.4", "1.2.3.04", "0x1.2.3.4", "1.2.3.-4",
        "１.2.3.4", "campus", "localhost", "2001:db8::/129", "2001:db8:::1", "1::2::3", ":1::", ":1:2:3:4:5:6:7",
        "1:2:3:4:5:6:7:", "1::2:", "12345::", "g::", "+1::", "-1::", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9",
        "1::2:3:4:5:6:7:8", "::ffff:1.2.3", "::ffff:1.2.3.4.5", "1.2.3.4::", "::1.2.3.4:5", "[::1]", "[::1]/128",
        "fe80::1%en0", "fe80::1%en0/64", "::/", "::/+1", ":::", ":", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8",
    ])
    func bad_ranges_are_refused(cidr: String) {
        #expect(NetworkRange(cidr: cidr) == nil)
    }

    @Test func host_bits_are_cleared_so_equal_ranges_are_equal() {
        #expect(range("10.1.2.3/8") == range("10.0.0.0/8"))
        #expect(range("2001:db8:ffff::1/32") == range("2001:db8::/32"))
        #expect(range("10.0.0.0/8") != range("10.0.0.0/9"))
        #expect(Set([range("10.1.2.3/8"), range("10.9.9.9/8")]).count == 1)
        #expect(range("10.0.0.0/8").prefixLength == 8)
        #expect(range("10.0.0.0/8").isIPv4 && !range("::/0").isIPv4)
    }

    // MARK: Containment

    @Test(arguments: [
        ("10.0.0.0/8", "10.0.0.0", true), ("10.0.0.0/8", "10.255.255.255", true),
        ("10.0.0.0/8", "11.0.0.0", false), ("10.0.0.0/8", "9.255.255.255", false),
        ("10.128.0.0/9", "10.128.0.0", true), ("10.128.0.0/9", "10.255.255.255", true),
        ("10.128.0.0/9", "10.127.255.255", false),
        ("192.168.1.6/31", "192.168.1.7", true), ("192.168.1.6/31", "192.168.1.8", false),
        ("192.168.1.7", "192.168.1.7", true), ("192.168.1.7", "192.168.1.6", false),
        ("0.0.0.0/0", "203.0.113.9", true), ("0.0.0.0/0", "2001:db8::1", false),
        ("2001:db8::/32", "2001:db8::1", true), ("2001:db8::/32", "2001:DB8:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF", true),
        ("2001:db8::/32", "2001:db9::", false), ("2001:db8::/32", "2001:db7:ffff::", false),
        ("2001:db8::/33", "2001:db8:7fff::1", true), ("2001:db8::/33", "2001:db8:8000::1", false),
        ("::1", "::1", true), ("::1", "::2", false), ("::/0", "fe80::1", true), ("::/0", "10.0.0.1", true),
        ("2001:db8::/32", "10.0.0.1", false), ("fe80::/10", "febf::1", true), ("fe80::/10", "fec0::1", false),
    ])
    func containment(cidr: String, address: String, expected: Bool) {
        #expect(range(cidr).contains(address) == expected)
    }

    @Test func ipv4_mapped_ipv6_addresses_match_ipv4_ranges_and_back() {
        let campus = range("10.0.0.0/8")
        #expect(campus.contains("::ffff:10.1.2.3"))
        #expect(campus.contains("::FFFF:10.1.2.3"))
        #expect(campus.contains("::ffff:a01:203"), "the same address in hex groups")
        #expect(campus.contains("0:0:0:0:0:ffff:10.1.2.3"))
        #expect(!campus.contains("::ffff:11.1.2.3"))
        #expect(!campus.contains("::10.1.2.3"), "IPv4-compatible is not IPv4-mapped")
        #expect(!campus.contains("64:ff9b::10.1.2.3"), "NAT64 is another network")
        let mapped = range("::ffff:10.0.0.0/104")
        #expect(mapped.contains("10.200.0.1"))
        #expect(mapped.contains("::ffff:10.200.0.1"))
        #expect(!mapped.contains("11.0.0.1"))
    }

    @Test func socket_spellings_are_understood() {
        #expect(range("2001:db8::/32").contains("[2001:db8::1]"))
        #expect(range("fe80::/10").contains("fe80::1%en0"))
        #expect(range("fe80::/10").contains("[fe80::1%25en0]"))
        #expect(!range("10.0.0.0/8").contains("[10.0.0.1"))
        #expect(!range("10.0.0.0/8").contains("10.0.0.1%en0"), "zones belong to IPv6 only")
    }

    @Test(arguments: ["", " ", "nonsense", "10.1.2", "10.1.2.3/8", "10.1.2.3:443", "::ffff:10.1.2", "10.1.2.3 "])
    func anything_but_an_address_is_in_no_range(address: String) {
        #expect(!range("0.0.0.0/0").contains(address))
        #expect(!range("::/0").contains(address))
    }

    // MARK: Properties

    @Test func a_range_holds_exactly_the_addresses_sharing_its_prefix() {
        var generator = SeededRandom(seed: 17)
        for _ in 0..<400 {
            let v6 = Bool.random(using: &generator)
            let count = v6 ? 16 : 4
            let address = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let prefix = Int.random(in: 0...(count * 8), using: &generator)
            let text = v6 ? NetworkRange.ipv6Text(address) : NetworkRange.ipv4Text(address[...])
            let network = range("\(text)/\(prefix)")
            #expect(network.contains(text))
            #expect(NetworkRange(cidr: network.description) == network, "\(network) round-trips")
            let bit = Int.random(in: 0..<(count * 8), using: &generator)
            var flipped = address
            flipped[bit / 8] ^= 0x80 >> UInt8(bit % 8)
            let flippedText = v6 ? NetworkRange.ipv6Text(flipped) : NetworkRange.ipv4Text(flipped[...])
            #expect(network.contains(flippedText) == (bit >= prefix), "\(network) and \(flippedText)")
        }
    }

    @Test func canonical_ipv6_text_parses_back_to_the_same_bytes() {
        var generator = SeededRandom(seed: 19)
        for _ in 0..<400 {
            // Many zero groups, so the `::` placement rules are exercised.
            let groups = (0..<8).map { _ in
                Bool.random(using: &generator) ? 0 : UInt16.random(in: 0...0xFFFF, using: &generator)
            }
            let bytes = groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            let text = NetworkRange.ipv6Text(bytes)
            #expect(NetworkRange.parseAddress(Substring(text)) == bytes, "\(text)")
            #expect(!text.contains(":::") && text.components(separatedBy: "::").count <= 2)
        }
    }

    // MARK: Codable

    @Test func ranges_are_coded_as_their_cidr_text() throws {
        let ranges = [range("10.1.2.3/8"), range("2001:DB8::/32"), range("192.0.2.1")]
        let json = try JSONEncoder().encode(ranges)
        #expect(try JSONDecoder().decode([String].self, from: json) == ["10.0.0.0/8", "2001:db8::/32", "192.0.2.1/32"])
        #expect(try JSONDecoder().decode([NetworkRange].self, from: json) == ranges)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([NetworkRange].self, from: Data(#"["10.0.0.0/33"]"#.utf8))
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([NetworkRange].self, from: Data("[8]".utf8)) }
    }
}
