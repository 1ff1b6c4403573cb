"""Finding 5: a peer is a service of the deployment only if its client certificate, issued by the
deployment CA, also names it as `urn:mfa-backend:service:<name>` (a URI no public CA issues). The
common name alone no longer makes a caller `gateway`."""

import datetime
import json

import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def client_certificate(stack, directory, name, uri):
    """A client certificate for CN=`name` from the stack's own CA, with `uri` as its URI name (or none)."""
    ca = x509.load_pem_x509_certificate((stack.certs / "ca.pem").read_bytes())
    ca_key = serialization.load_pem_private_key((stack.certs / "ca-key.pem").read_bytes(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
               .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False))
    names = [x509.DNSName("localhost")] + ([x509.UniformResourceIdentifier(uri)] if uri else [])
    cert = builder.add_extension(x509.SubjectAlternativeName(names), critical=False).sign(ca_key, hashes.SHA256())
    cert_path, key_path = directory / f"{name}-{bool(uri)}.pem", directory / f"{name}-{bool(uri)}-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)


def call(stack, cert):
    return requests.post(f"https://127.0.0.1:{stack.ports['session-token'][0]}/rpc", timeout=30,
                         headers={"content-type": "application/json"}, cert=cert, verify=str(stack.certs / "ca.pem"),
                         data=json.dumps({"jsonrpc": "2.0", "method": "service.ping", "params": {}, "id": 1}))


def test_a_deployment_certificate_without_the_service_identity_is_no_peer(stack, tmp_path):
    bare = call(stack, client_certificate(stack, tmp_path, "gateway", None))
    assert bare.status_code == 403, bare.text
    wrong = call(stack, client_certificate(stack, tmp_path, "gateway", "urn:mfa-backend:service:factor-registry"))
    assert wrong.status_code == 403, wrong.text
    named = call(stack, client_certificate(stack, tmp_path, "gateway", "urn:mfa-backend:service:gateway"))
    assert named.status_code == 200 and named.json()["result"] == {}, named.text


def test_the_development_pki_names_every_service(stack):
    for service in ("gateway", "factor-registry", "challenge-issuer", "session-token"):
        cert = x509.load_pem_x509_certificate((stack.certs / f"{service}.pem").read_bytes())
        uris = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
            x509.UniformResourceIdentifier)
        assert uris == [f"urn:mfa-backend:service:{service}"]


def test_mfa_dev_pki_reissues_a_certificate_from_before_the_identity_and_keeps_the_ca(stack, tmp_path):
    import shutil
    import subprocess

    pki = tmp_path / "pki"
    shutil.copytree(stack.certs, pki)
    old_cert, old_key = client_certificate(stack, tmp_path, "gateway", None)
    shutil.copy(old_cert, pki / "gateway.pem")
    shutil.copy(old_key, pki / "gateway-key.pem")
    ca_before = (pki / "ca.pem").read_bytes()
    subprocess.run([str(stack.bin_dir / "mfa-dev-pki"), str(pki)], check=True, capture_output=True)
    cert = x509.load_pem_x509_certificate((pki / "gateway.pem").read_bytes())
    uris = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.UniformResourceIdentifier)
    assert uris == ["urn:mfa-backend:service:gateway"]
    assert (pki / "ca.pem").read_bytes() == ca_before
