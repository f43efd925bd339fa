/**
 * Values the examples of the OpenAPI document share across slices (what /docs puts into "Try it out"),
 * so that what one example makes is what the next one names: the issuer the configuration example
 * belongs to, the credential type the verification policy example accepts, the claims the issuance
 * examples supply. An id the server makes appears as its example id; whoever tries the examples puts in
 * the real one.
 */

export const EXAMPLE_ISSUER_ID = "iss_01jd5x6c3v8w9y0z1a2b3c4d5e";

/**
 * The `vct` of the example credential configuration, named explicitly so that the verification policy
 * example can accept it (a default `vct` holds the issuer's id, which only its creation tells).
 */
export const EXAMPLE_CREDENTIAL_TYPE = "https://credentials.acme.example/membership-card";

/** Claim values of the example configuration's claims (credential-configuration.schema.ts). */
export const EXAMPLE_CLAIM_VALUES = {
  given_name: "Erika",
  family_name: "Mustermann",
  birthdate: "1984-01-26",
  membership_number: "00012345",
  age_equal_or_over: { "18": true },
};

/*
 * Certificates, so that an example carries a PEM that parses rather than a placeholder. Made once with
 * @peculiar/x509: a P-256 CA "Acme Example CA" (its private key was discarded, so nothing else can be
 * issued under it) and two end-entity certificates it issued, valid 2025-01-01 to 2125-01-01. Examples
 * only: no service trusts this CA.
 */

/** The example CA ("Acme Example CA"; its key was discarded) that certifies both example leaves. */
export const EXAMPLE_CA_CERTIFICATE_PEM = `-----BEGIN CERTIFICATE-----
MIIBkTCCATigAwIBAgIBATAKBggqhkjOPQQDAjAuMRgwFgYDVQQDEw9BY21lIEV4
YW1wbGUgQ0ExEjAQBgNVBAoTCUFjbWUgQmFuazAgFw0yNTAxMDEwMDAwMDBaGA8y
MTI1MDEwMTAwMDAwMFowLjEYMBYGA1UEAxMPQWNtZSBFeGFtcGxlIENBMRIwEAYD
VQQKEwlBY21lIEJhbmswWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQZynZXtWyt
EfRLCPGjLtvfUE+xbubSJNLNyw7bb+nZM9el84H+y/UgnPJwgzGdJ9qvrAyrUZQ6
iQVW3wHtE/5Ao0UwQzASBgNVHRMBAf8ECDAGAQH/AgEAMA4GA1UdDwEB/wQEAwIB
BjAdBgNVHQ4EFgQUMLvjddqyKjtR4v02Dk0K21SucZcwCgYIKoZIzj0EAwIDRwAw
RAIgM1jdh0D3Som9za0MVYEX731o0VX07XbqD81GgL7SM7YCIFM4+vf0QmhuQyC4
qBGeunOYhA/pwO0LHi9WByLbg7eS
-----END CERTIFICATE-----
`;

/** Issuer "Acme Bank": subjectAltName URI https://credentials.example/issuers/iss_01jd5x6c3v8w9y0z1a2b3c4d5e, then the CA. */
export const EXAMPLE_ISSUER_CERTIFICATE_CHAIN_PEM = `-----BEGIN CERTIFICATE-----
MIIB2zCCAYCgAwIBAgICEAEwCgYIKoZIzj0EAwIwLjEYMBYGA1UEAxMPQWNtZSBF
eGFtcGxlIENBMRIwEAYDVQQKEwlBY21lIEJhbmswIBcNMjUwMTAxMDAwMDAwWhgP
MjEyNTAxMDEwMDAwMDBaMCgxEjAQBgNVBAMTCUFjbWUgQmFuazESMBAGA1UEChMJ
QWNtZSBCYW5rMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEH0d+wsRrzd8hGUzQ
mg5Zn3IuCBqkUE4pWpcYZoMMO9ksiGvFS/+1JdpLjhu/Vzm8l1MwgwR05AQJAV8X
k9xZeqOBkTCBjjAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIHgDBNBgNVHREE
RjBEhkJodHRwczovL2NyZWRlbnRpYWxzLmV4YW1wbGUvaXNzdWVycy9pc3NfMDFq
ZDV4NmMzdjh3OXkwejFhMmIzYzRkNWUwHwYDVR0jBBgwFoAUMLvjddqyKjtR4v02
Dk0K21SucZcwCgYIKoZIzj0EAwIDSQAwRgIhAMOnGfU3vWLVVw2ZOyp0oOKH7oQT
RgoaXdeowmY7qHOpAiEAiyA5CZxwrxUtZuh70Nphq+qjgypHr0dyO45xRyiXxbQ=
-----END CERTIFICATE-----
${EXAMPLE_CA_CERTIFICATE_PEM}`;

/** Verifier: subjectAltName dNSName verifier.example.com, then the CA. */
export const EXAMPLE_VERIFIER_CERTIFICATE_CHAIN_PEM = `-----BEGIN CERTIFICATE-----
MIIBtTCCAVugAwIBAgICEAIwCgYIKoZIzj0EAwIwLjEYMBYGA1UEAxMPQWNtZSBF
eGFtcGxlIENBMRIwEAYDVQQKEwlBY21lIEJhbmswIBcNMjUwMTAxMDAwMDAwWhgP
MjEyNTAxMDEwMDAwMDBaMDMxHTAbBgNVBAMTFHZlcmlmaWVyLmV4YW1wbGUuY29t
MRIwEAYDVQQKEwlBY21lIEJhbmswWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAR4
Q3gSrPxiTV8oe74i0iCdWwH9jYQhmrlfCfB4v9D9hKvK96UVS+TU0TfpTnSLujzT
3krn1Ms41dMn6LapBVRYo2IwYDAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIH
gDAfBgNVHREEGDAWghR2ZXJpZmllci5leGFtcGxlLmNvbTAfBgNVHSMEGDAWgBQw
u+N12rIqO1Hi/TYOTQrbVK5xlzAKBggqhkjOPQQDAgNIADBFAiEA5c11VBF+j9J3
mlDu/Auk9eDCI+rlXnFIlAuZGvK9b5wCIBiVtly9gAUWQbBuMZPWWnpTzFQHDm9n
1Mhbj88U56TI
-----END CERTIFICATE-----
${EXAMPLE_CA_CERTIFICATE_PEM}`;

/**
 * The verifier certificate's private key (PKCS#8). Published here on purpose, so the upload example is
 * complete: a certificate whose key anyone can read identifies no one, so upload your own.
 */
export const EXAMPLE_VERIFIER_PRIVATE_KEY_PEM = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg0L6dAnx8IrPBwP9w
X8E3pfi+ipE6gH6k+Cr1NbnbvWGhRANCAAR4Q3gSrPxiTV8oe74i0iCdWwH9jYQh
mrlfCfB4v9D9hKvK96UVS+TU0TfpTnSLujzT3krn1Ms41dMn6LapBVRY
-----END PRIVATE KEY-----
`;
