import Testing

@testable import RollcallCore

@Suite("Client address behind proxies", .timeLimit(.minutes(5)))
struct ClientAddressTests {
    static let proxies = ["10.0.0.0/8", "2001:db8:ffff::/48", "127.0.0.1/32"].map { NetworkRange(cidr: $0)! }

    func resolve(
        peer: String?, xff: [String] = [], forwarded: [String] = [], trusted: [NetworkRange] = proxies
    ) -> String? {
        ClientAddress.resolve(peer: peer, forwardedFor: xff, forwarded: forwarded, trustedProxies: trusted)
    }

    // MARK: Who may speak for the client

    @Test func without_trusted_proxies_the_peer_is_the_client_whatever_the_headers_say() {
        #expect(
            resolve(peer: "198.51.100.7", xff: ["10.1.2.3"], forwarded: ["for=10.1.2.3"], trusted: []) == "198.51.100.7"
        )
        #expect(resolve(peer: "10.0.0.2", xff: ["192.0.2.1"], trusted: []) == "10.0.0.2")
        #expect(resolve(peer: nil, xff: ["192.0.2.1"], trusted: []) == nil)
    }

    @Test(arguments: ["192.0.2.66", "11.0.0.1", "127.0.0.2", "2001:db8:fffe::1", "::1"])
    func a_peer_that_is_not_a_trusted_proxy_cannot_name_another_client(peer: String) {
        #expect(resolve(peer: peer, xff: ["10.1.2.3"]) == peer)
        #expect(resolve(peer: peer, forwarded: ["for=10.1.2.3"]) == peer)
        #expect(resolve(peer: peer, xff: ["192.0.2.1, 10.0.0.1"], forwarded: ["for=192.0.2.1"]) == peer)
    }

    @Test func no_peer_is_no_client() {
        #expect(resolve(peer: nil, xff: ["192.0.2.1"]) == nil)
    }

    @Test func a_trusted_peer_without_headers_is_the_client_itself() {
        #expect(resolve(peer: "10.0.0.2") == "10.0.0.2")
        #expect(resolve(peer: "10.0.0.2", xff: [""]) == "10.0.0.2")
        #expect(resolve(peer: "10.0.0.2", xff: [" , "]) == "10.0.0.2")
    }

    // MARK: Reading the chain from the right

    @Test(arguments: [
        // One proxy: the address it appended is the client.
        (["192.0.2.1"], "192.0.2.1"),
        // The client sent its own header: the proxy appended the real address; the made-up one is ignored.
        (["10.9.9.9, 192.0.2.1"], "192.0.2.1"),
        (["203.0.113.5, 192.0.2.1"], "192.0.2.1"),
        // Two trusted proxies in a row are skipped.
        (["192.0.2.1, 10.0.0.3"], "192.0.2.1"),
        (["203.0.113.5, 192.0.2.1, 10.0.0.3, 10.0.0.4"], "192.0.2.1"),
        // Several header lines are one list, in order.
        (["203.0.113.5", "192.0.2.1", "10.0.0.3"], "192.0.2.1"),
        (["192.0.2.1", "10.0.0.3, 10.0.0.4"], "192.0.2.1"),
        // Everyone in the chain is a trusted proxy: the left-most is the client (a machine on the proxies' network).
        (["10.0.0.5"], "10.0.0.5"),
        (["10.0.0.5, 10.0.0.3"], "10.0.0.5"),
        (["127.0.0.1"], "127.0.0.1"),
        // Ports and spacing.
        (["192.0.2.1:4711"], "192.0.2.1"),
        (["  192.0.2.1  ,10.0.0.3"], "192.0.2.1"),
        (["[2001:db8::7]:4711"], "2001:db8::7"),
        (["[2001:db8::7]"], "2001:db8::7"),
        (["2001:DB8:0::7"], "2001:db8::7"),
        (["192.0.2.1, 2001:db8:ffff::1"], "192.0.2.1"),
        (["::ffff:192.0.2.1"], "::ffff:192.0.2.1"),
        (["fe80::1%eth0"], "fe80::1"),
        // Empty list entries are skipped.
        (["192.0.2.1,,10.0.0.3,"], "192.0.2.1"),
    ])
    func x_forwarded_for_gives_the_right_most_address_that_is_not_a_trusted_proxy(lines: [String], client: String) {
        #expect(resolve(peer: "10.0.0.2", xff: lines) == client)
        #expect(resolve(peer: "::ffff:10.0.0.2", xff: lines) == client, "a dual-stack listener's form of the peer")
    }

    @Test(arguments: [
        // Something that is not an address before the client is found: the client cannot be known.
        ["unknown"],
        ["192.0.2.1, unknown"],
        ["192.0.2.1, garbage, 10.0.0.3"],
        ["192.0.2.1, 010.0.0.3"],
        ["192.0.2.1, 10.0.0.3:"],
        ["192.0.2.1, 10.0.0.3:123456"],
        ["192.0.2.1, 10.0.0.3:http"],
        ["[2001:db8::7"],
        ["[2001:db8::7]x"],
        ["192.0.2.1 10.0.0.3"],
        ["256.0.0.1"],
    ])
    func an_unreadable_entry_before_the_client_makes_the_client_unknown(lines: [String]) {
        #expect(resolve(peer: "10.0.0.2", xff: lines) == nil)
    }

    @Test func an_unreadable_entry_left_of_the_client_does_not_matter() {
        #expect(resolve(peer: "10.0.0.2", xff: ["garbage, unknown, 192.0.2.1"]) == "192.0.2.1")
    }

    // MARK: Forwarded (RFC 7239)

    @Test(arguments: [
        (["for=192.0.2.60;proto=http;by=203.0.113.43"], "192.0.2.60"),
        (["For=\"192.0.2.60\""], "192.0.2.60"),
        (["for=192.0.2.43, for=198.51.100.17"], "198.51.100.17"),
        (["for=192.0.2.43, for=10.0.0.3"], "192.0.2.43"),
        (["for=192.0.2.43", "for=10.0.0.3;proto=https"], "192.0.2.43"),
        (["for=\"[2001:db8:cafe::17]:4711\""], "2001:db8:cafe::17"),
        (["for=\"[2001:db8:cafe::17]\";proto=https"], "2001:db8:cafe::17"),
        (["for=\"192.0.2.60:8080\""], "192.0.2.60"),
        (["proto=https; for=192.0.2.60"], "192.0.2.60"),
        (["host=\"a,b\";for=192.0.2.60"], "192.0.2.60"),
        (["for=10.0.0.5"], "10.0.0.5"),
    ])
    func forwarded_gives_the_right_most_for_that_is_not_a_trusted_proxy(lines: [String], client: String) {
        #expect(resolve(peer: "10.0.0.2", forwarded: lines) == client)
    }

    @Test(arguments: [
        ["for=unknown"],
        ["for=_hidden"],
        ["for=192.0.2.43, for=\"_gazonk\""],
        ["for=192.0.2.43, proto=https"],
        ["for=[2001:db8:cafe::17]x"],
    ])
    func a_hop_that_hides_its_client_makes_the_client_unknown(lines: [String]) {
        #expect(resolve(peer: "10.0.0.2", forwarded: lines) == nil)
    }

    // MARK: Both headers

    @Test func both_headers_must_agree() {
        // A proxy that writes X-Forwarded-For passes a client's own Forwarded through, and the other way round.
        #expect(resolve(peer: "10.0.0.2", xff: ["192.0.2.1"], forwarded: ["for=192.0.2.1"]) == "192.0.2.1")
        #expect(resolve(peer: "10.0.0.2", xff: ["192.0.2.1"], forwarded: ["for=10.9.9.9"]) == nil)
        #expect(resolve(peer: "10.0.0.2", xff: ["10.9.9.9"], forwarded: ["for=192.0.2.1"]) == nil)
        #expect(resolve(peer: "10.0.0.2", xff: ["192.0.2.1"], forwarded: ["for=unknown"]) == nil)
        #expect(resolve(peer: "10.0.0.2", xff: ["192.0.2.1:1"], forwarded: ["for=\"192.0.2.1:2\""]) == "192.0.2.1")
        // An empty header says nothing, so the other one decides.
        #expect(resolve(peer: "10.0.0.2", xff: ["192.0.2.1"], forwarded: [""]) == "192.0.2.1")
    }

    // MARK: What a network restriction then sees

    @Test func a_spoofed_header_does_not_pass_a_network_restriction() {
        let campus = NetworkRange(cidr: "192.0.2.0/24")!
        func allowed(_ address: String?) -> Bool { address.map(campus.contains) ?? false }
        // Straight to Rollcall, not through the proxy.
        #expect(!allowed(resolve(peer: "198.51.100.9", xff: ["192.0.2.1"])))
        #expect(!allowed(resolve(peer: "198.51.100.9", forwarded: ["for=192.0.2.1"])))
        // Through the proxy, which appends the real address.
        #expect(!allowed(resolve(peer: "10.0.0.2", xff: ["192.0.2.1, 198.51.100.9"])))
        #expect(!allowed(resolve(peer: "10.0.0.2", xff: ["198.51.100.9"], forwarded: ["for=192.0.2.1"])))
        // The real thing.
        #expect(allowed(resolve(peer: "10.0.0.2", xff: ["198.51.100.9, 192.0.2.1"])))
    }
}
