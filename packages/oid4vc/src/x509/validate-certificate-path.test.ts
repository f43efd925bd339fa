import * as pkijs from "pkijs";
import { describe, expect, it } from "vitest";
import {
  issueTestCertificate as issue,
  nameConstraintsExtension as nameConstraints,
  testParty as party,
} from "../sd-jwt-vc/test-certificate-authority";
import { x509 } from "../x509/peculiar-x509";
import { validateCertificatePath } from "./validate-certificate-path";

const DAY = 86_400_000;
const NOW = Date.now();

/** An extension no validator here knows. */
const privateExtension = (critical: boolean) =>
  new x509.Extension("1.3.6.1.4.1.55555.1.1", critical, new Uint8Array([0x05, 0x00]));

async function hierarchy() {
  const root = await party("CN=Test Root");
  const intermediate = await party("CN=Test Intermediate");
  const leaf = await party("CN=Attester");
  const rootDer = await issue(root, { ca: true });
  const intermediateDer = await issue(intermediate, { issuer: root, ca: true });
  const leafDer = await issue(leaf, { issuer: intermediate, dnsNames: ["attester.example.com"] });
  return { root, intermediate, leaf, rootDer, intermediateDer, leafDer };
}

const validate = (chain: Uint8Array[], trustAnchor: Uint8Array, at = NOW) =>
  validateCertificatePath({ chain, trustAnchor, at: new Date(at) });

/** What pkijs's engine says on its own, without the checks added around it. */
async function engineAlone(chain: Uint8Array[], trustAnchor: Uint8Array) {
  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: [pkijs.Certificate.fromBER(trustAnchor as Uint8Array<ArrayBuffer>)],
    certs: chain.map((der) => pkijs.Certificate.fromBER(der as Uint8Array<ArrayBuffer>)).reverse(),
    checkDate: new Date(NOW),
  });
  return (await engine.verify({}, new pkijs.CryptoEngine({ crypto: globalThis.crypto }))).result;
}

describe("validateCertificatePath", () => {
  it("accepts leaf → intermediate → root, with or without the root at the end", async () => {
    const h = await hierarchy();
    const result = await validate([h.leafDer, h.intermediateDer], h.rootDer);
    expect(result).toMatchObject({ valid: true });
    if (!result.valid) return;
    expect(result.path).toEqual([h.leafDer, h.intermediateDer, h.rootDer]);
    expect(result.notAfter.getTime()).toBeLessThanOrEqual(NOW + 30 * DAY);
    expect(await validate([h.leafDer, h.intermediateDer, h.rootDer], h.rootDer)).toMatchObject({
      valid: true,
    });
    // A leaf without keyUsage is not restricted (RFC 5280 §4.2.1.3).
    const bare = await issue(h.leaf, { issuer: h.intermediate, keyUsage: null });
    expect(await validate([bare, h.intermediateDer], h.rootDer)).toMatchObject({ valid: true });
  });

  it("refuses a CA whose keyUsage lacks keyCertSign", async () => {
    const h = await hierarchy();
    const intermediate = await issue(h.intermediate, {
      issuer: h.root,
      ca: true,
      keyUsage: x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.cRLSign,
    });
    expect(await validate([h.leafDer, intermediate], h.rootDer)).toMatchObject({
      valid: false,
      problem: "issuer_not_ca",
    });
  });

  it("refuses an intermediate with basicConstraints cA false", async () => {
    const h = await hierarchy();
    const intermediate = await issue(h.intermediate, {
      issuer: h.root,
      ca: false,
      keyUsage: x509.KeyUsageFlags.digitalSignature,
    });
    expect(await validate([h.leafDer, intermediate], h.rootDer)).toMatchObject({
      valid: false,
      problem: "issuer_not_ca",
    });
    // Nor does keyCertSign alone make a CA.
    const signer = await issue(h.intermediate, {
      issuer: h.root,
      ca: false,
      keyUsage: x509.KeyUsageFlags.keyCertSign,
    });
    expect(await validate([h.leafDer, signer], h.rootDer)).toMatchObject({
      valid: false,
      problem: "issuer_not_ca",
    });
  });

  it("refuses a path longer than a CA's pathLenConstraint allows", async () => {
    const root = await party("CN=Root");
    const upper = await party("CN=Upper");
    const lower = await party("CN=Lower");
    const leaf = await party("CN=Leaf");
    const rootDer = await issue(root, { ca: true });
    const lowerDer = await issue(lower, { issuer: upper, ca: true });
    const leafDer = await issue(leaf, { issuer: lower });
    // Upper may have no intermediate below it, and Lower is one.
    const strictUpper = await issue(upper, { issuer: root, ca: true, pathLength: 0 });
    expect(await validate([leafDer, lowerDer, strictUpper], rootDer)).toMatchObject({
      valid: false,
      problem: "path_length_exceeded",
    });
    expect(
      await validate(
        [leafDer, lowerDer, await issue(upper, { issuer: root, ca: true, pathLength: 1 })],
        rootDer,
      ),
    ).toMatchObject({ valid: true });
    // The anchor's own bound holds as well.
    const strictRoot = await issue(root, { ca: true, pathLength: 1 });
    const upperDer = await issue(upper, { issuer: root, ca: true });
    expect(await validate([leafDer, lowerDer, upperDer], strictRoot)).toMatchObject({
      valid: false,
      problem: "path_length_exceeded",
    });
    // pathLenConstraint 0: a CA that issues leaves only.
    const leafOfRoot = await issue(leaf, { issuer: root });
    expect(await validate([leafOfRoot], await issue(root, { ca: true, pathLength: 0 }))).toMatchObject({
      valid: true,
    });
  });

  it("refuses a leaf whose dNSName is outside a permitted subtree or inside an excluded one", async () => {
    const h = await hierarchy();
    const permitted = await issue(h.intermediate, {
      issuer: h.root,
      ca: true,
      extensions: [nameConstraints({ permitted: ["attesters.example.org"] })],
    });
    expect(await validate([h.leafDer, permitted], h.rootDer)).toMatchObject({
      valid: false,
      problem: "name_constraints_violated",
    });
    const inside = await issue(h.leaf, { issuer: h.intermediate, dnsNames: ["a.attesters.example.org"] });
    expect(await validate([inside, permitted], h.rootDer)).toMatchObject({ valid: true });

    const excluded = await issue(h.intermediate, {
      issuer: h.root,
      ca: true,
      extensions: [nameConstraints({ excluded: ["example.com"] })],
    });
    expect(await validate([h.leafDer, excluded], h.rootDer)).toMatchObject({
      valid: false,
      problem: "name_constraints_violated",
    });
    // Constraints on the anchor bind the whole path.
    const constrainedRoot = await issue(h.root, {
      ca: true,
      extensions: [nameConstraints({ excluded: ["attester.example.com"] })],
    });
    expect(await validate([h.leafDer, h.intermediateDer], constrainedRoot)).toMatchObject({
      valid: false,
      problem: "name_constraints_violated",
    });
  });

  it("refuses an unknown critical extension anywhere on the path, and ignores a non-critical one", async () => {
    const h = await hierarchy();
    const leaf = await issue(h.leaf, { issuer: h.intermediate, extensions: [privateExtension(true)] });
    expect(await validate([leaf, h.intermediateDer], h.rootDer)).toMatchObject({
      valid: false,
      problem: "unknown_critical_extension",
    });
    const intermediate = await issue(h.intermediate, {
      issuer: h.root,
      ca: true,
      extensions: [privateExtension(true)],
    });
    expect(await validate([h.leafDer, intermediate], h.rootDer)).toMatchObject({
      valid: false,
      problem: "unknown_critical_extension",
    });
    const quiet = await issue(h.leaf, { issuer: h.intermediate, extensions: [privateExtension(false)] });
    expect(await validate([quiet, h.intermediateDer], h.rootDer)).toMatchObject({ valid: true });
  });

  it("refuses a leaf whose keyUsage lacks digitalSignature, and a leaf that is a CA", async () => {
    const h = await hierarchy();
    const agreement = await issue(h.leaf, {
      issuer: h.intermediate,
      keyUsage: x509.KeyUsageFlags.keyAgreement,
    });
    expect(await validate([agreement, h.intermediateDer], h.rootDer)).toMatchObject({
      valid: false,
      problem: "leaf_key_usage",
    });
    const caLeaf = await issue(h.leaf, { issuer: h.intermediate, ca: true });
    expect(await validate([caLeaf, h.intermediateDer], h.rootDer)).toMatchObject({
      valid: false,
      problem: "leaf_is_ca",
    });
  });

  it("refuses a certificate that is expired or not yet valid at the given time, root included", async () => {
    const h = await hierarchy();
    const expired = await issue(h.leaf, {
      issuer: h.intermediate,
      notBefore: new Date(NOW - 3 * DAY),
      notAfter: new Date(NOW - DAY),
    });
    expect(await validate([expired, h.intermediateDer], h.rootDer)).toMatchObject({
      valid: false,
      problem: "not_valid_at_time",
    });
    expect(await validate([h.leafDer, h.intermediateDer], h.rootDer, NOW + 60 * DAY)).toMatchObject({
      valid: false,
      problem: "not_valid_at_time",
    });
    expect(await validate([h.leafDer, h.intermediateDer], h.rootDer, NOW - 2 * DAY)).toMatchObject({
      valid: false,
      problem: "not_valid_at_time",
    });
    const expiredRoot = await issue(h.root, {
      ca: true,
      notBefore: new Date(NOW - 3 * DAY),
      notAfter: new Date(NOW - DAY),
    });
    expect(await validate([h.leafDer, h.intermediateDer], expiredRoot)).toMatchObject({
      valid: false,
      problem: "not_valid_at_time",
    });
  });

  it("refuses a chain to another root, even one under the same name", async () => {
    const h = await hierarchy();
    const other = await issue(await party("CN=Other Root"), { ca: true });
    expect(await validate([h.leafDer, h.intermediateDer], other)).toMatchObject({
      valid: false,
      problem: "no_path",
    });
    const impostor = await issue({ name: h.root.name, keys: (await party("x")).keys }, { ca: true });
    expect(await validate([h.leafDer, h.intermediateDer], impostor)).toMatchObject({
      valid: false,
      problem: "no_path",
    });
    // A missing intermediate leaves no path either.
    expect(await validate([h.leafDer], h.rootDer)).toMatchObject({ valid: false, problem: "no_path" });
  });

  it("refuses a certificate signed by another key than its issuer's", async () => {
    const h = await hierarchy();
    const forged = await issue(h.leaf, { issuer: h.intermediate, signingKeys: (await party("x")).keys });
    expect(await validate([forged, h.intermediateDer], h.rootDer)).toMatchObject({
      valid: false,
      problem: "no_path",
    });
    const tampered = new Uint8Array(h.leafDer);
    tampered[tampered.length - 5]! ^= 0x01;
    expect(await validate([tampered, h.intermediateDer], h.rootDer)).toMatchObject({ valid: false });
  });

  it("takes the chain as given: leaf first, no stray or repeated certificates, not the anchor alone", async () => {
    const h = await hierarchy();
    expect(await validate([h.intermediateDer, h.leafDer], h.rootDer)).toMatchObject({ valid: false });
    const stray = await issue(await party("CN=Stray"), { issuer: h.root, ca: true });
    expect(await validate([h.leafDer, h.intermediateDer, stray], h.rootDer)).toMatchObject({
      valid: false,
      problem: "not_in_order",
    });
    expect(await validate([h.leafDer, h.leafDer, h.intermediateDer], h.rootDer)).toMatchObject({
      valid: false,
    });
    expect(await validate([h.rootDer], h.rootDer)).toMatchObject({ valid: false, problem: "anchor_only" });
    expect(await validate([], h.rootDer)).toMatchObject({ valid: false, problem: "malformed" });
    expect(await validate(Array(6).fill(h.leafDer), h.rootDer)).toMatchObject({
      valid: false,
      problem: "too_long",
    });
    expect(await validate([new Uint8Array([1, 2, 3])], h.rootDer)).toMatchObject({
      valid: false,
      problem: "malformed",
    });
    expect(await validate([h.leafDer, h.intermediateDer], new Uint8Array([0x30, 0x00]))).toMatchObject({
      valid: false,
      problem: "malformed",
    });
    // One certificate and nothing after it.
    const trailing = new Uint8Array([...h.leafDer, 0x00]);
    expect(await validate([trailing, h.intermediateDer], h.rootDer)).toMatchObject({
      valid: false,
      problem: "malformed",
    });
  });
});

// Which checks pkijs's engine makes by itself (and so which are added around it): pinned here so that a
// change of the library shows up as a failing test rather than a silent gap or a redundant check.
describe("pkijs CertificateChainValidationEngine on its own", () => {
  it("refuses a CA without keyCertSign, a non-CA intermediate, name constraint violations", async () => {
    const h = await hierarchy();
    expect(await engineAlone([h.leafDer, h.intermediateDer], h.rootDer)).toBe(true);
    const noCertSign = await issue(h.intermediate, {
      issuer: h.root,
      ca: true,
      keyUsage: x509.KeyUsageFlags.digitalSignature,
    });
    expect(await engineAlone([h.leafDer, noCertSign], h.rootDer)).toBe(false);
    const notCa = await issue(h.intermediate, { issuer: h.root, ca: false });
    expect(await engineAlone([h.leafDer, notCa], h.rootDer)).toBe(false);
    const excluded = await issue(h.intermediate, {
      issuer: h.root,
      ca: true,
      extensions: [nameConstraints({ excluded: ["example.com"] })],
    });
    expect(await engineAlone([h.leafDer, excluded], h.rootDer)).toBe(false);
  });

  it("does not check pathLenConstraint, the anchor's name constraints, the leaf's critical extensions or keyUsage", async () => {
    const root = await party("CN=Root");
    const upper = await party("CN=Upper");
    const lower = await party("CN=Lower");
    const leaf = await party("CN=Leaf");
    const rootDer = await issue(root, { ca: true });
    const strictUpper = await issue(upper, { issuer: root, ca: true, pathLength: 0 });
    const lowerDer = await issue(lower, { issuer: upper, ca: true });
    expect(await engineAlone([await issue(leaf, { issuer: lower }), lowerDer, strictUpper], rootDer)).toBe(
      true,
    );
    const critical = await issue(leaf, { issuer: root, extensions: [privateExtension(true)] });
    expect(await engineAlone([critical], rootDer)).toBe(true);
    const agreement = await issue(leaf, { issuer: root, keyUsage: x509.KeyUsageFlags.keyAgreement });
    expect(await engineAlone([agreement], rootDer)).toBe(true);
    const caLeaf = await issue(leaf, { issuer: root, ca: true });
    expect(await engineAlone([caLeaf], rootDer)).toBe(true);
    const named = await issue(leaf, { issuer: root, dnsNames: ["leaf.example.com"] });
    const constrainedRoot = await issue(root, {
      ca: true,
      extensions: [nameConstraints({ excluded: ["example.com"] })],
    });
    expect(await engineAlone([named], constrainedRoot)).toBe(true);
  });
});
