// The Credo peer end to end, as pnpm bench drives it: its issuer and verifier as child processes, one
// pre-authorized-code issuance (SD-JWT VC with a holder-binding proof) and one OpenID4VP DCQL presentation
// over direct_post.jwt, through the same workload code and test wallet as the bench's driver.
import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../http";
import type { Service } from "../../processes";
import { holderKeys, presentOverDriver } from "../../workloads";
import { type PeerTarget, startCredoPeer, startCredoPeerVerifier } from "../start";
import { issueOne, peerWorkload } from "../workloads";

describe("Credo peer (bench/peer/credo)", { timeout: 120_000 }, () => {
  const services: Service[] = [];
  let target: PeerTarget;
  const client = createClient(4);

  beforeAll(async () => {
    const issuer = await startCredoPeer();
    services.push(issuer.service);
    const verifier = await startCredoPeerVerifier(issuer.target);
    services.push(verifier.service);
    target = verifier.target;
  }, 120_000);

  afterAll(async () => {
    for (const service of services.reverse()) await service.stop();
  });

  it("issues an SD-JWT VC bound to the holder's key, signed under its x5c certificate", async () => {
    const [holder] = await holderKeys(1);
    const steps: string[] = [];
    const credential = await issueOne(target, client, holder!, (name, fn) => {
      steps.push(name);
      return fn();
    });
    expect(steps).toEqual(["create", "offer", "token", "nonce", "client: sign proof", "credential"]);
    const jwt = credential.split("~")[0]!;
    expect(decodeProtectedHeader(jwt)).toMatchObject({ typ: "dc+sd-jwt", alg: "ES256" });
    expect(decodeProtectedHeader(jwt).x5c).toHaveLength(1);
    const payload = decodeJwt(jwt);
    expect(payload).toMatchObject({ iss: target.baseUrl, vct: `${target.baseUrl}/employee` });
    expect((payload.cnf as { jwk: { x: string } }).jwk.x).toBe(holder!.publicJwk.x);
    // The disclosure frame's claims are selectively disclosable, not in the clear.
    expect(payload.given_name).toBeUndefined();
  });

  it("verifies a DCQL presentation of it over direct_post.jwt", async () => {
    const workload = peerWorkload("verification", target, client);
    await workload.prepare!();
    const steps: string[] = [];
    await workload.iteration((name, fn) => {
      steps.push(name);
      return fn();
    });
    expect(steps).toEqual(["create session", "wallet: request object + direct_post.jwt", "read result"]);
  });

  it("takes one answer per session: a second wallet round is refused and the result stands", async () => {
    const [holder] = await holderKeys(1);
    const credential = await issueOne(target, client, holder!, (_name, fn) => fn());
    const session = await client.json("POST", `${target.verifierUrl}/sessions`, { expect: 201 });
    await presentOverDriver(client, session.authorizationRequestUri, holder!, credential);
    // Credo no longer serves the request object of an answered session.
    await expect(
      presentOverDriver(client, session.authorizationRequestUri, holder!, credential),
    ).rejects.toThrow(/(request_uri|direct_post) answered 4\d\d/);
    const read = await client.json("GET", `${target.verifierUrl}/sessions/${session.id}`);
    expect(read.status).toBe("verified");
  });

  it("fails a session answered with a key other than the credential's holder key", async () => {
    const [holder, stranger] = await holderKeys(2);
    const credential = await issueOne(target, client, holder!, (_name, fn) => fn());
    const session = await client.json("POST", `${target.verifierUrl}/sessions`, { expect: 201 });
    await expect(
      presentOverDriver(client, session.authorizationRequestUri, stranger!, credential),
    ).rejects.toThrow(/direct_post answered 4\d\d/);
    const read = await client.json("GET", `${target.verifierUrl}/sessions/${session.id}`);
    expect(read.status).toBe("failed");
  });

  it("reports a session nobody answered as pending, not verified", async () => {
    const session = await client.json("POST", `${target.verifierUrl}/sessions`, { expect: 201 });
    const read = await client.json("GET", `${target.verifierUrl}/sessions/${session.id}`);
    expect(read.status).toBe("pending");
  });
});
