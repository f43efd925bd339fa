import { generateEs256KeyPair } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REDIRECT, type TestIssuer, verifierFixture, type WalletOptions } from "./fixtures/verifier";
import { call, errorCode, type TestServer } from "./harness";

/** The verification engine's checks, one negative each, and what the wallet is told of a failure (OpenID4VP §8.5). */

let t: TestServer;
let prisma: TestServer["server"]["database"]["prisma"];
let issuerA: TestIssuer;
let issuerB: TestIssuer;

const {
  setUp,
  issue,
  recordCredential,
  setRevoked,
  policyBody,
  createPolicy,
  read,
  verifyWith,
  reasonCodes,
  events,
} = verifierFixture();

beforeAll(async () => {
  ({ t, prisma, issuerA, issuerB } = await setUp());
});
afterAll(() => t?.close());

describe("engine negatives (one per check)", () => {
  const expectRejected = async (
    policy: string,
    options: Partial<WalletOptions> & { credential: string | string[] },
    code: string,
  ) => {
    const { session, wallet } = await verifyWith(policy, options);
    expect(wallet.status).toBe(200);
    expect(session.status).toBe("rejected");
    expect(reasonCodes(session)).toContain(code);
    expect(session.result.credentials).toEqual([]);
    return session;
  };

  it("bad issuer signature", async () => {
    const { credential } = await issue();
    const [jws, ...rest] = credential.split("~");
    const [h, p, s] = jws!.split(".");
    const flipped = `${s!.slice(0, 10)}${s![10] === "A" ? "B" : "A"}${s!.slice(11)}`;
    await expectRejected(
      "pid-jwt",
      { credential: [`${h}.${p}.${flipped}`, ...rest].join("~") },
      "invalid_issuer_signature",
    );
  });

  it("bad key-binding signature (KB-JWT not signed by the cnf key)", async () => {
    const other = await generateEs256KeyPair();
    await expectRejected(
      "pid-jwt",
      { credential: (await issue()).credential, holderPrivateKey: other.privateJwk },
      "invalid_kb_signature",
    );
  });

  it("wrong aud", async () => {
    await expectRejected(
      "pid-jwt",
      { credential: (await issue()).credential, keyBindingOverrides: { aud: "x509_hash:someone-else" } },
      "kb_audience_mismatch",
    );
  });

  it("wrong nonce", async () => {
    await expectRejected(
      "pid-jwt",
      {
        credential: (await issue()).credential,
        keyBindingOverrides: { nonce: "not-the-request-nonce-0000" },
      },
      "kb_nonce_mismatch",
    );
  });

  it("stale iat", async () => {
    await expectRejected(
      "pid-jwt",
      { credential: (await issue()).credential, now: () => Math.floor(Date.now() / 1000) - 3600 },
      "kb_iat_out_of_window",
    );
  });

  it("wrong sd_hash", async () => {
    await expectRejected(
      "pid-jwt",
      { credential: (await issue()).credential, keyBindingOverrides: { sd_hash: "AAAA" } },
      "kb_sd_hash_mismatch",
    );
  });

  it("missing key binding when the policy requires it", async () => {
    await expectRejected(
      "pid-jwt",
      { credential: (await issue()).credential, withoutKeyBinding: true },
      "key_binding_missing",
    );
  });

  it("tampered disclosure", async () => {
    const { credential } = await issue();
    const parts = credential.split("~");
    const i = parts.findIndex(
      (d, j) => j > 0 && d && JSON.parse(Buffer.from(d, "base64url").toString())[1] === "given_name",
    );
    const [salt] = JSON.parse(Buffer.from(parts[i]!, "base64url").toString());
    parts[i] = Buffer.from(JSON.stringify([salt, "given_name", "Mallory"])).toString("base64url");
    await expectRejected("pid-jwt", { credential: parts.join("~") }, "invalid_disclosure");
  });

  it("revoked (status list bit set)", async () => {
    const { credential, idx } = await issue();
    await setRevoked(issuerA, idx);
    await expectRejected("pid-jwt", { credential }, "credential_revoked");
    // The same credential passes when the policy does not check status.
    const { session } = await verifyWith("pid-nostatus", { credential });
    expect(session.status).toBe("verified");
    expect(session.result.credentials[0].checks.status).toBe("skipped");
  });

  it("revoked through Credentials_Revoke takes effect for the very next verification", async () => {
    const { credential, idx } = await issue();
    const credentialId = await recordCredential(issuerA, credential, { idx });
    const before = await verifyWith("pid-jwt", { credential });
    expect(before.session.status).toBe("verified");
    const revoke = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(revoke.status, JSON.stringify(revoke.body)).toBe(200);
    await expectRejected("pid-jwt", { credential }, "credential_revoked");
  });

  it("expired", async () => {
    const now = Math.floor(Date.now() / 1000);
    const { credential } = await issue({ iat: now - 7200, exp: now - 3600 });
    await expectRejected("pid-jwt", { credential }, "expired");
  });

  it("older than maxCredentialAgeDays", async () => {
    const now = Math.floor(Date.now() / 1000);
    const { credential } = await issue({ iat: now - 3 * 86_400 });
    await expectRejected("pid-young", { credential }, "credential_too_old");
    const fresh = await verifyWith("pid-young", { credential: (await issue()).credential });
    expect(fresh.session.status).toBe("verified");
  });

  it("untrusted issuer (a platform issuer the policy does not list)", async () => {
    const { credential } = await issue({ issuer: { ...issuerB, vct: issuerA.vct } });
    await expectRejected("pid-jwt", { credential }, "unknown_issuer_key");
  });

  it("missing required claim", async () => {
    const { credential } = await issue({ claims: { given_name: "Erika", family_name: "M" } });
    await expectRejected("pid-jwt", { credential }, "missing_required_claims");
  });

  it("over-disclosure never reaches the result", async () => {
    const { session } = await verifyWith("pid-jwt", {
      credential: (await issue()).credential,
      discloseAll: true,
    });
    expect(session.status).toBe("verified");
    expect(session.result.credentials[0].claims).toEqual({
      given_name: "Erika",
      family_name: "Mustermann",
      age_over_18: true,
    });
    expect(JSON.stringify(session)).not.toContain("1984-01-26");
  });
});

describe("reportInvalidPresentationsToWallet (OpenID4VP §8.5)", () => {
  /** The credential with one character of its issuer signature changed. */
  const withBadSignature = (credential: string) => {
    const [jws, ...rest] = credential.split("~");
    const [h, p, sig] = jws!.split(".");
    return [`${h}.${p}.${sig!.slice(0, 10)}${sig![10] === "A" ? "B" : "A"}${sig!.slice(11)}`, ...rest].join(
      "~",
    );
  };

  beforeAll(async () => {
    await createPolicy(
      policyBody("pid-report", { sameDeviceRedirectUri: REDIRECT, reportInvalidPresentationsToWallet: true }),
    );
    await createPolicy(
      policyBody("pid-report-code", {
        sameDeviceRedirectUri: REDIRECT,
        requireResponseCode: true,
        reportInvalidPresentationsToWallet: true,
      }),
    );
  });

  it("is a policy rule: stored when given, false by default, a boolean only", async () => {
    const get = (id: string) =>
      call(t, "GET", `/management/verification-policies/${id}`, { key: t.adminKey });
    expect((await get("pid-report")).body.data.rules.reportInvalidPresentationsToWallet).toBe(true);
    expect((await get("pid-jwt")).body.data.rules.reportInvalidPresentationsToWallet).toBe(false);
    const bad = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: policyBody("pid-report-bad", { reportInvalidPresentationsToWallet: "yes" }),
    });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe("ValidationFailed");
    expect(JSON.stringify(bad.body.error.details)).toContain("reportInvalidPresentationsToWallet");
  });

  it("answers an integrity or binding failure with 400 invalid_request; the session is rejected as without it", async () => {
    const now = () => Math.floor(Date.now() / 1000);
    const other = await generateEs256KeyPair();
    const cases: [string, (credential: string) => Partial<WalletOptions> & { credential?: string }][] = [
      ["invalid_issuer_signature", (credential) => ({ credential: withBadSignature(credential) })],
      ["invalid_kb_signature", () => ({ holderPrivateKey: other.privateJwk })],
      ["kb_audience_mismatch", () => ({ keyBindingOverrides: { aud: "x509_hash:someone-else" } })],
      ["kb_nonce_mismatch", () => ({ keyBindingOverrides: { nonce: "not-the-request-nonce-0000" } })],
      ["kb_iat_out_of_window", () => ({ now: () => now() - 3600 })],
      ["kb_iat_out_of_window", () => ({ now: () => now() + 3600 })],
      ["kb_sd_hash_mismatch", () => ({ keyBindingOverrides: { sd_hash: "AAAA" } })],
      ["key_binding_missing", () => ({ withoutKeyBinding: true })],
    ];
    for (const [code, options] of cases) {
      const { credential } = await issue();
      for (const policy of ["pid-report", "pid-report-code"]) {
        const { session, wallet } = await verifyWith(policy, { credential, ...options(credential) });
        expect([code, wallet.status], JSON.stringify(wallet.body)).toEqual([code, 400]);
        expect(wallet.body).toEqual({
          error: "invalid_request",
          error_description: expect.stringContaining(code),
        });
        // Decided as under a policy without the switch: rejected, with the reason and the one event.
        expect(session.status).toBe("rejected");
        expect(session.result.credentials).toEqual([]);
        expect(reasonCodes(session)).toContain(code);
        expect(await events(session.id, "verification.session.rejected")).toHaveLength(1);
        // No redirect delivered a response code, so none was issued: the rejection is readable.
        expect(session).not.toHaveProperty("resultWithheld");
        const row = await prisma.verificationSession.findUniqueOrThrow({ where: { id: session.id } });
        expect(row.responseCodeHash).toBeNull();
        // Decided means decided: a second answer is refused as always.
        const state = String(wallet.request.state);
        const again = await fetch(`${t.baseUrl}/verifier/responses/${state}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ error: "access_denied", state }).toString(),
        });
        expect(again.status).toBe(400);
        expect((await read(session.id)).status).toBe("rejected");
      }
    }
    // The same failure under a policy without the switch: 200 and the redirect, as before.
    const { credential } = await issue();
    const { session, wallet } = await verifyWith("pid-jwt", {
      credential,
      keyBindingOverrides: { nonce: "not-the-request-nonce-0000" },
    });
    expect(wallet.status).toBe(200);
    expect((wallet.body as { redirect_uri: string }).redirect_uri).toMatch(/#response_code=/);
    expect(session.status).toBe("rejected");
  });

  it("still answers 200 (and redirects) for a valid presentation, a genuine one the policy refuses, and a wallet's error", async () => {
    const redirected = (wallet: { status: number; body: unknown }) => {
      expect(wallet.status, JSON.stringify(wallet.body)).toBe(200);
      expect((wallet.body as { redirect_uri: string }).redirect_uri).toMatch(
        new RegExp(`^${REDIRECT}#response_code=`),
      );
    };
    const valid = await verifyWith("pid-report", { credential: (await issue()).credential });
    redirected(valid.wallet);
    expect(valid.session.status).toBe("verified");

    const revoked = await issue();
    await setRevoked(issuerA, revoked.idx);
    const unaccepted: [string, string][] = [
      ["credential_revoked", revoked.credential],
      ["missing_required_claims", (await issue({ claims: { given_name: "Erika" } })).credential],
      ["unknown_issuer_key", (await issue({ issuer: { ...issuerB, vct: issuerA.vct } })).credential],
    ];
    for (const [code, credential] of unaccepted) {
      const { session, wallet } = await verifyWith("pid-report", { credential });
      redirected(wallet);
      expect(session.status).toBe("rejected");
      expect(reasonCodes(session)).toContain(code);
    }

    const declined = await verifyWith("pid-report", {
      credential: (await issue()).credential,
      error: { error: "access_denied", errorDescription: "the holder declined" },
    });
    redirected(declined.wallet);
    expect(declined.session.status).toBe("rejected");
  });
});
