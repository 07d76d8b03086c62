/// Which address a request comes from, when Rollcall may run behind reverse proxies.
///
/// A proxy connects on the client's behalf and names the client in `X-Forwarded-For` (`client, proxy1, proxy2`,
/// each proxy appending the address it was connected from) or in RFC 7239's `Forwarded` (`for=client, for=proxy1`).
/// Anyone can send these headers, so they count only when the connection itself comes from a trusted proxy, and
/// then only back to the first address that is not one: the right-most address that is not a trusted proxy is the
/// client as the last trusted proxy saw it; anything to its left was written by that client and may be made up.
///
/// - With no trusted proxies, or a peer that is not one, the answer is the peer: headers are ignored.
/// - The chain is read from the right, skipping trusted proxies; the first other address is the client.
/// - When every address in the chain is a trusted proxy, the left-most is the client (a client on the proxy's own
///   network, such as the proxy's machine itself).
/// - A trusted peer that sends no forwarding header is the client itself.
/// - An entry that is not an address (`unknown`, an obfuscated `_name`, garbage) reached before the client makes
///   the client unknown (`nil`), which passes no network restriction: guessing further left would trust text the
///   client may have written.
/// - When both headers are present and name different clients, the client is unknown: one of them was written by
///   the client (a proxy that writes one header passes the other through untouched).
///
/// Addresses come back in canonical text (`192.0.2.7`, RFC 5952 for IPv6), without port or brackets.
public enum ClientAddress {
    /// The client's address, from the connection's `peer` and the forwarding headers, each header's field lines
    /// in the order they arrived.
    public static func resolve(
        peer: String?, forwardedFor: [String], forwarded: [String], trustedProxies: [NetworkRange]
    ) -> String? {
        guard let peer else { return nil }
        guard !trustedProxies.isEmpty, let peerText = canonical(peer) else { return peer }
        guard isTrusted(peerText, trustedProxies) else { return peerText }
        let fromForwardedFor = forwardedFor.isEmpty ? nil : client(in: forwardedForChain(forwardedFor), trustedProxies)
        let fromForwarded = forwarded.isEmpty ? nil : client(in: forwardedChain(forwarded), trustedProxies)
        switch (fromForwardedFor, fromForwarded) {
        case (nil, nil): return peerText
        case (let one?, nil), (nil, let one?): return one.address
        case (let one?, let other?): return one.address == other.address ? one.address : nil
        }
    }

    /// What a chain says: the client's address, or `nil` inside `Answer` when it cannot be known.
    private struct Answer { var address: String? }

    /// Walks the chain from the right; an empty chain (a header with nothing in it) says nothing.
    private static func client(in chain: [String?], _ trusted: [NetworkRange]) -> Answer? {
        guard !chain.isEmpty else { return nil }
        for entry in chain.reversed() {
            guard let address = entry else { return Answer(address: nil) }
            if !isTrusted(address, trusted) { return Answer(address: address) }
        }
        return Answer(address: chain.first!)
    }

    private static func isTrusted(_ address: String, _ ranges: [NetworkRange]) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// `X-Forwarded-For`: comma-separated nodes, each an address, perhaps with a port (`192.0.2.7:4711`,
    /// `[2001:db8::7]:4711`).
    static func forwardedForChain(_ lines: [String]) -> [String?] {
        lines.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { trimmed($0) }
            .filter { !$0.isEmpty }
            .map { node($0) }
    }

    /// `Forwarded` (RFC 7239): comma-separated elements of `;`-separated pairs; each element's `for=` is a node,
    /// quoted when it holds `:` or brackets. An element without `for=` is a hop that did not say.
    static func forwardedChain(_ lines: [String]) -> [String?] {
        lines.flatMap { splitOutsideQuotes($0, ",") }.compactMap { element -> String?? in
            let element = trimmed(Substring(element))
            guard !element.isEmpty else { return nil }
            for pair in splitOutsideQuotes(String(element), ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, trimmed(parts[0]).lowercased() == "for" else {
                    continue
                }
                var value = trimmed(parts[1])
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = value.dropFirst().dropLast()
                }
                return .some(node(value))
            }
            return .some(nil)
        }
    }

    /// An address from a node: `192.0.2.7`, `192.0.2.7:80`, `2001:db8::7`, `[2001:db8::7]`, `[2001:db8::7]:80`.
    static func node(_ text: Substring) -> String? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || isPort(rest) else { return nil }
            return canonical(String(text[text.index(after: text.startIndex)..<close]))
        }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            guard isPort(text[colon...]) else { return nil }
            return canonical(String(text[..<colon]))
        }
        return canonical(String(text))
    }

    /// `:` and 1–5 digits.
    private static func isPort(_ text: Substring) -> Bool {
        let digits = text.dropFirst()
        return text.first == ":" && (1...5).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The canonical text of an address, or `nil` for anything that is not one. A zone (`fe80::1%eth0`) is dropped.
    static func canonical(_ address: String) -> String? {
        var text = Substring(address)
        if text.contains(":"), let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        guard let bytes = NetworkRange.parseAddress(text) else { return nil }
        return bytes.count == 4 ? NetworkRange.ipv4Text(bytes[...]) : NetworkRange.ipv6Text(bytes)
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) })
        else { return "" }
        return text[first...last]
    }

    /// Splits on `separator` except inside double quotes (a quoted-string may hold `,` or `;`).
    private static func splitOutsideQuotes(_ text: String, _ separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator && !quoted {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }
}
