"""A real SMTP server for Rollcall's mail tests (aiosmtpd), on loopback.

Every accepted message is written to DIR/messages as NNNN.eml (the bytes after DATA, exactly as received) and NNNN.json
(the envelope and the authenticated user). When listening, the port is written to DIR/ready. With --tls, a
self-signed certificate for localhost and 127.0.0.1 is made once in DIR (cert.pem, key.pem) and kept across restarts.

    python smtp_server.py --dir DIR [--port N] [--tls none|starttls|implicit] [--auth USER:PASSWORD] [--only-login]
                          [--no-smtputf8]

It offers SMTPUTF8 (addresses outside ASCII, RFC 6531) unless told not to; the envelope keeps MAIL's parameters.

Mail to an address starting with "nobody" is refused with 550.
"""

import argparse
import asyncio
import datetime
import ipaddress
import json
import ssl
from pathlib import Path

from aiosmtpd.smtp import SMTP, AuthResult


def certificate(directory):
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    if cert_path.exists() and key_path.exists():
        return cert_path, key_path
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


class Mailroom:
    """Keeps every message it accepts, numbered in order of arrival."""

    def __init__(self, directory, implicit_tls):
        self.implicit_tls = implicit_tls
        self.directory = directory / "messages"
        self.directory.mkdir(parents=True, exist_ok=True)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        # An address that does not exist here, for the tests of a refused message.
        if address.startswith("nobody"):
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        number = len(list(self.directory.glob("*.eml"))) + 1
        stem = self.directory / f"{number:04d}"
        (stem.with_suffix(".json")).write_text(
            json.dumps(
                {
                    "mail_from": envelope.mail_from,
                    "rcpt_tos": envelope.rcpt_tos,
                    "mail_options": envelope.mail_options,
                    "login": session.auth_data.decode() if session.authenticated else None,
                    "tls": self.implicit_tls or session.ssl is not None,
                }
            )
        )
        (stem.with_suffix(".eml")).write_bytes(envelope.original_content)
        return "250 Message accepted for delivery"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", choices=["none", "starttls", "implicit"], default="none")
    parser.add_argument("--auth")
    parser.add_argument("--only-login", action="store_true", help="offer AUTH LOGIN and not AUTH PLAIN")
    parser.add_argument("--no-smtputf8", action="store_true", help="take ASCII addresses only")
    options = parser.parse_args()
    directory = Path(options.dir)
    directory.mkdir(parents=True, exist_ok=True)

    context = None
    if options.tls != "none":
        cert_path, key_path = certificate(directory)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert_path, key_path)

    # With implicit TLS aiosmtpd does not see the TLS under it; the connection is encrypted all the same.
    parameters = {
        "hostname": "mail.test", "auth_require_tls": options.tls == "starttls", "enable_SMTPUTF8": not options.no_smtputf8,
    }
    if options.tls == "starttls":
        parameters.update(tls_context=context, require_starttls=True)
    if options.auth:
        user, password = options.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            good = auth_data.login.decode() == user and auth_data.password.decode() == password
            return AuthResult(success=good, handled=False, auth_data=auth_data.login if good else None)

        parameters.update(authenticator=authenticator, auth_required=True)
        if options.only_login:
            parameters.update(auth_exclude_mechanism=["PLAIN"])
    handler = Mailroom(directory, options.tls == "implicit")

    async def serve():
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: SMTP(handler, **parameters),
            host="127.0.0.1",
            port=options.port,
            ssl=context if options.tls == "implicit" else None,
        )
        port = server.sockets[0].getsockname()[1]
        (directory / "ready.tmp").write_text(str(port))
        (directory / "ready.tmp").rename(directory / "ready")
        await server.serve_forever()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
