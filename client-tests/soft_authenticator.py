"""A software WebAuthn authenticator and the browser around it, for the passkey tests: it answers
`credentialCreationOptions` and `credentialRequestOptions` as a platform authenticator with user
verification does (resident ES256, RS256 or EdDSA keys, attestation `none`), and every part of what it
sends can be spoiled (origin, rp id, type, flags, counter, signature, user handle). Its bytes are built
with PyPI `fido2`'s builders; `oracle()` hands the same bytes to `fido2.server.Fido2Server`, the outside
judge the server's verdicts are compared with.

Encodings: the web SDK sends base64url without padding, the iOS SDK standard base64 with padding;
shapes: the SDKs' W3C JSON (`id`, `rawId`, `response`) or Google's proto shape (`credentialId`,
`authenticatorAttestationResponse` / `authenticatorAssertionResponse`, `clientDataJson`)."""

import base64
import hashlib
import os
from dataclasses import dataclass, field

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from fido2 import cose
from fido2.server import Fido2Server
from fido2.webauthn import (AttestationObject, AttestedCredentialData, AuthenticationResponse,
                            AuthenticatorAssertionResponse, AuthenticatorAttestationResponse, AuthenticatorData,
                            CollectedClientData, PublicKeyCredentialRpEntity, PublicKeyCredentialUserEntity,
                            RegistrationResponse, UserVerificationRequirement)

FLAGS = AuthenticatorData.FLAG


def b64decode(text: str) -> bytes:
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def web(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def ios(data: bytes) -> str:
    return base64.b64encode(data).decode()


@dataclass
class Credential:
    algorithm: str
    key: object
    credential_id: bytes
    user_handle: bytes
    rp_id: str
    counter: int = 0

    @property
    def public(self):
        kind = {"ES256": cose.ES256, "RS256": cose.RS256, "EdDSA": cose.EdDSA}[self.algorithm]
        return kind.from_cryptography_key(self.key.public_key())

    def sign(self, data: bytes) -> bytes:
        if self.algorithm == "ES256":
            return self.key.sign(data, ec.ECDSA(hashes.SHA256()))
        if self.algorithm == "RS256":
            return self.key.sign(data, padding.PKCS1v15(), hashes.SHA256())
        return self.key.sign(data)


@dataclass
class Made:
    """What the authenticator made, as bytes, and the request member that carries it."""
    body: dict
    client_data: CollectedClientData
    attestation: AttestationObject | None = None
    authenticator_data: AuthenticatorData | None = None
    signature: bytes = b""
    user_handle: bytes | None = None
    credential_id: bytes = b""


@dataclass
class Authenticator:
    origin: str
    credentials: list = field(default_factory=list)

    @staticmethod
    def new_key(algorithm: str):
        return {"ES256": lambda: ec.generate_private_key(ec.SECP256R1()),
                "RS256": lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048),
                "EdDSA": ed25519.Ed25519PrivateKey.generate}[algorithm]()

    def create(self, options: dict, algorithm: str = "ES256", encode=web, shape: str = "sdk", origin: str | None = None,
               rp_id: str | None = None, kind: str = "webauthn.create", flags=None, challenge: bytes | None = None,
               credential_id: bytes | None = None, claimed_id: bytes | None = None) -> Made:
        """`navigator.credentials.create` with these options; each keyword spoils one part."""
        rp = rp_id or options["rp"]["id"]
        offered = [entry["alg"] for entry in options["pubKeyCredParams"]]
        assert {"ES256": -7, "RS256": -257, "EdDSA": -8}[algorithm] in offered
        credential = Credential(algorithm, self.new_key(algorithm), credential_id or os.urandom(32),
                                b64decode(options["user"]["id"]), rp)
        data = AuthenticatorData.create(
            hashlib.sha256(rp.encode()).digest(), FLAGS.UP | FLAGS.UV | FLAGS.AT | FLAGS.BE | FLAGS.BS if flags is None else flags,
            0, AttestedCredentialData.create(b"\0" * 16, credential.credential_id, credential.public))
        attestation = AttestationObject.create("none", data, {})
        client = CollectedClientData.create(kind, challenge or b64decode(options["challenge"]), origin or self.origin)
        self.credentials.append(credential)
        sent_id = claimed_id or credential.credential_id
        if shape == "sdk":
            response = {"id": web(sent_id), "rawId": encode(sent_id), "type": "public-key",
                        "response": {"clientDataJSON": encode(bytes(client)), "attestationObject": encode(bytes(attestation))}}
        else:
            response = {"credentialId": encode(sent_id), "credentialType": "public-key",
                        "authenticatorAttestationResponse": {"clientDataJson": encode(bytes(client)),
                                                             "attestationObject": encode(bytes(attestation))}}
        return Made(response, client, attestation=attestation, credential_id=credential.credential_id)

    def get(self, options: dict, credential: Credential | None = None, encode=web, shape: str = "sdk", origin: str | None = None,
            rp_id: str | None = None, kind: str = "webauthn.get", flags=None, counter: int | None = None,
            challenge: bytes | None = None, user_handle: bytes | None = None, spoil_signature: bool = False) -> Made:
        """`navigator.credentials.get`: the newest credential (a discoverable one, as passkeys are)."""
        credential = credential or self.credentials[-1]
        rp = rp_id or options["rpId"]
        credential.counter = credential.counter + 1 if counter is None else counter
        data = AuthenticatorData.create(hashlib.sha256(rp.encode()).digest(),
                                        FLAGS.UP | FLAGS.UV | FLAGS.BE | FLAGS.BS if flags is None else flags, credential.counter)
        client = CollectedClientData.create(kind, challenge or b64decode(options["challenge"]), origin or self.origin)
        signature = credential.sign(bytes(data) + hashlib.sha256(bytes(client)).digest())
        if spoil_signature:
            signature = signature[:-1] + bytes([signature[-1] ^ 1])
        handle = credential.user_handle if user_handle is None else user_handle
        if shape == "sdk":
            response = {"id": web(credential.credential_id), "rawId": encode(credential.credential_id), "type": "public-key",
                        "response": {"clientDataJSON": encode(bytes(client)), "authenticatorData": encode(bytes(data)),
                                     "signature": encode(signature), "userHandle": encode(handle)}}
        else:
            response = {"credentialId": encode(credential.credential_id), "credentialType": "public-key",
                        "authenticatorAssertionResponse": {"clientDataJson": encode(bytes(client)),
                                                           "authenticatorData": encode(bytes(data)),
                                                           "signature": encode(signature), "userHandle": encode(handle)}}
        return Made(response, client, authenticator_data=data, signature=signature, user_handle=handle,
                    credential_id=credential.credential_id)


def oracle(rp_id: str, origins: list[str]) -> Fido2Server:
    return Fido2Server(PublicKeyCredentialRpEntity(id=rp_id, name=rp_id), verify_origin=lambda origin: origin in origins)


def oracle_registers(rp_id: str, origins: list[str], options: dict, made: Made) -> bool:
    """Whether python-fido2's server accepts the registration the server was sent, for the challenge the
    server issued."""
    server = oracle(rp_id, origins)
    _, state = server.register_begin(PublicKeyCredentialUserEntity(id=b64decode(options["user"]["id"]), name="user"),
                                     user_verification=UserVerificationRequirement.REQUIRED,
                                     challenge=b64decode(options["challenge"]))
    try:
        server.register_complete(state, RegistrationResponse(raw_id=made.credential_id, response=AuthenticatorAttestationResponse(
            client_data=made.client_data, attestation_object=made.attestation)))
        return True
    except Exception:
        return False


def oracle_authenticates(rp_id: str, origins: list[str], options: dict, made: Made, credential: Credential) -> bool:
    server = oracle(rp_id, origins)
    stored = AttestedCredentialData.create(b"\0" * 16, credential.credential_id, credential.public)
    _, state = server.authenticate_begin([stored], user_verification=UserVerificationRequirement.REQUIRED,
                                         challenge=b64decode(options["challenge"]))
    try:
        server.authenticate_complete(state, [stored], AuthenticationResponse(
            raw_id=made.credential_id, response=AuthenticatorAssertionResponse(
                client_data=made.client_data, authenticator_data=made.authenticator_data, signature=made.signature,
                user_handle=made.user_handle)))
        return True
    except Exception:
        return False
