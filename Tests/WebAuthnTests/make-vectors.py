"""Makes Vectors.swift: WebAuthn registrations and sign-ins for ES256, RS256 and EdDSA, built with
PyPI `fido2` 2.2.1's builders (AttestedCredentialData, AuthenticatorData, AttestationObject,
CollectedClientData) and keys from `cryptography`, each accepted by `fido2.server.Fido2Server` before
it is written (the outside oracle). Run once; the output is committed:

    python3 -m venv /tmp/fido && /tmp/fido/bin/pip install fido2==2.2.1
    /tmp/fido/bin/python Tests/WebAuthnTests/make-vectors.py > Tests/WebAuthnTests/Vectors.swift
"""

import base64
import hashlib
import json
import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from fido2 import cose
from fido2.server import Fido2Server
from fido2.webauthn import (AttestationObject, AttestedCredentialData, AuthenticationResponse,
                            AuthenticatorAssertionResponse, AuthenticatorAttestationResponse, AuthenticatorData,
                            CollectedClientData, PublicKeyCredentialRpEntity, PublicKeyCredentialUserEntity,
                            RegistrationResponse, UserVerificationRequirement)

RP_ID, ORIGIN = "localhost", "http://localhost:8080"
FLAGS = AuthenticatorData.FLAG


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def sign(algorithm, key, data):
    if algorithm == "ES256":
        return key.sign(data, ec.ECDSA(hashes.SHA256()))
    if algorithm == "RS256":
        return key.sign(data, padding.PKCS1v15(), hashes.SHA256())
    return key.sign(data)


def vector(algorithm):
    key = {"ES256": lambda: ec.generate_private_key(ec.SECP256R1()),
           "RS256": lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048),
           "EdDSA": ed25519.Ed25519PrivateKey.generate}[algorithm]()
    public = {"ES256": cose.ES256, "RS256": cose.RS256, "EdDSA": cose.EdDSA}[algorithm].from_cryptography_key(key.public_key())
    server = Fido2Server(PublicKeyCredentialRpEntity(id=RP_ID, name="Demo"), verify_origin=lambda origin: origin == ORIGIN)
    user_handle = os.urandom(16)
    options, state = server.register_begin(PublicKeyCredentialUserEntity(id=user_handle, name="ada"),
                                           user_verification=UserVerificationRequirement.REQUIRED)
    challenge = options.public_key.challenge
    credential_id = os.urandom(32)
    credential = AttestedCredentialData.create(b"\0" * 16, credential_id, public)
    rp_hash = hashlib.sha256(RP_ID.encode()).digest()
    created = AuthenticatorData.create(rp_hash, FLAGS.UP | FLAGS.UV | FLAGS.AT | FLAGS.BE, 0, credential)
    attestation = AttestationObject.create("none", created, {})
    client = CollectedClientData.create("webauthn.create", challenge, ORIGIN)
    server.register_complete(state, RegistrationResponse(raw_id=credential_id, response=AuthenticatorAttestationResponse(
        client_data=client, attestation_object=attestation)))

    options, state = server.authenticate_begin([credential], user_verification=UserVerificationRequirement.REQUIRED)
    sign_challenge = options.public_key.challenge
    asserted = AuthenticatorData.create(rp_hash, FLAGS.UP | FLAGS.UV | FLAGS.BE, 7)
    sign_client = CollectedClientData.create("webauthn.get", sign_challenge, ORIGIN)
    signature = sign(algorithm, key, bytes(asserted) + hashlib.sha256(bytes(sign_client)).digest())
    server.authenticate_complete(state, [credential], AuthenticationResponse(raw_id=credential_id, response=(
        AuthenticatorAssertionResponse(client_data=sign_client, authenticator_data=asserted, signature=signature,
                                       user_handle=user_handle))))
    return {"algorithm": algorithm, "rpId": RP_ID, "origin": ORIGIN, "credentialId": b64(credential_id),
            "userHandle": b64(user_handle), "publicKey": b64(bytes(cbor_key(public))),
            "registration": {"challenge": b64(challenge), "clientDataJSON": b64(bytes(client)),
                             "attestationObject": b64(bytes(attestation))},
            "assertion": {"challenge": b64(sign_challenge), "clientDataJSON": b64(bytes(sign_client)),
                          "authenticatorData": b64(bytes(asserted)), "signature": b64(signature), "signCount": 7}}


def cbor_key(public):
    from fido2 import cbor
    return cbor.encode(dict(public))


vectors = [vector(algorithm) for algorithm in ("ES256", "RS256", "EdDSA")]
print("// Made by make-vectors.py (PyPI fido2 2.2.1; each vector accepted by fido2.server.Fido2Server). Do not edit.")
print("enum Vectors {")
print('    static let json = #"""')
print(json.dumps(vectors, indent=1))
print('"""#')
print("}")
