import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { base64urlEncode } from "../jose/base64url";
import { decodeJwtUnverified, signEs256Jwt } from "../jose/jws";
import { generateEs256KeyPair, importEs256PrivateKey } from "../jose/keys";
import {
  createStatusListBytes,
  getStatus,
  STATUS,
  type StatusListBits,
  setStatus,
  statusListCapacity,
} from "./status-list-bytes";
import { decodeStatusList, encodeStatusList } from "./status-list-encoding";
import { StatusListTokenError, signStatusListToken, verifyStatusListToken } from "./status-list-token";

// Test vectors from draft-ietf-oauth-status-list (section "Status List" examples and appendix
// "Test vectors for Status List encoding"; repository oauth-wg/draft-ietf-oauth-status-list, examples/).
const LONG_SIZE = 2 ** 20;

const VECTOR_1BIT_SHORT = {
  bits: 1 as const,
  bytes: [0xb9, 0xa3],
  lst: "eNrbuRgAAhcBXQ",
  statuses: [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1],
};
const VECTOR_2BIT_SHORT = {
  bits: 2 as const,
  bytes: [0xc9, 0x44, 0xf9],
  lst: "eNo76fITAAPfAgc",
  statuses: [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3],
};
const VECTOR_1BIT_LONG = {
  bits: 1 as const,
  lst: "eNrt3AENwCAMAEGogklACtKQPg9LugC9k_ACvreiogEAAKkeCQAAAAAAAAAAAAAAAAAAAIBylgQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAXG9IAAAAAAAAAPwsJAAAAAAAAAAAAAAAvhsSAAAAAAAAAAAA7KpLAAAAAAAAAAAAAAAAAAAAAJsLCQAAAAAAAAAAADjelAAAAAAAAAAAKjDMAQAAAACAZC8L2AEb",
  set: {
    0: 1,
    1993: 1,
    25460: 1,
    159495: 1,
    495669: 1,
    554353: 1,
    645645: 1,
    723232: 1,
    854545: 1,
    934534: 1,
    1000345: 1,
  } as Record<number, number>,
};
const VECTOR_2BIT_LONG = {
  bits: 2 as const,
  lst: "eNrt2zENACEQAEEuoaBABP5VIO01fCjIHTMStt9ovGVIAAAAAABAbiEBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEB5WwIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAID0ugQAAAAAAAAAAAAAAAAAQG12SgAAAAAAAAAAAAAAAAAAAAAAAAAAAOCSIQEAAAAAAAAAAAAAAAAAAAAAAAD8ExIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAwJEuAQAAAAAAAAAAAAAAAAAAAAAAAMB9SwIAAAAAAAAAAAAAAAAAAACoYUoAAAAAAAAAAAAAAEBqH81gAQw",
  set: {
    0: 1,
    1993: 2,
    25460: 1,
    159495: 3,
    495669: 1,
    554353: 1,
    645645: 2,
    723232: 1,
    854545: 1,
    934534: 2,
    1000345: 3,
  } as Record<number, number>,
};
const VECTOR_4BIT_LONG = {
  bits: 4 as const,
  lst: "eNrt0EENgDAQADAIHwImkIIEJEwCUpCEBBQRHOy35Li1EjoOQGabAgAAAAAAAAAAAAAAAAAAACC1SQEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABADrsCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADoxaEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAIIoCgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACArpwKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAGhqVkAzlwIAAAAAiGVRAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABx3AoAgLpVAQAAAAAAAAAAAAAAwM89rwMAAAAAAAAAAAjsA9xMBMA",
  set: {
    0: 1,
    1993: 2,
    35460: 3,
    459495: 4,
    595669: 5,
    754353: 6,
    845645: 7,
    923232: 8,
    924445: 9,
    934534: 10,
    1004534: 11,
    1000345: 12,
    1030203: 13,
    1030204: 14,
    1030205: 15,
  } as Record<number, number>,
};

// The example signing key of the draft (src/util.py) and its example Status List Token (examples/status_list_jwt_raw.md).
const DRAFT_EXAMPLE_KEY = {
  kty: "EC",
  d: "xzUEdsyLosZF0acZGRAjTKImb0lQvAvssDK5XIZELd0",
  use: "sig",
  crv: "P-256",
  x: "I3HWm_0Ds1dPMI-IWmf4mBmH-YaeAVbPVu7vB27CxXo",
  y: "6N_d5Elj9bs1htgV3okJKIdbHEpkgTmAluYKJemzn1M",
  kid: "12",
  alg: "ES256",
};
const DRAFT_EXAMPLE_TOKEN =
  "eyJhbGciOiJFUzI1NiIsImtpZCI6IjEyIiwidHlwIjoic3RhdHVzbGlzdCtqd3QifQ.eyJleHAiOjIyOTE3MjAxNzAsImlhdCI6MTY4NjkyMDE3MCwiaXNzIjoiaHR0cHM6Ly9leGFtcGxlLmNvbSIsInN0YXR1c19saXN0Ijp7ImJpdHMiOjEsImxzdCI6ImVOcmJ1UmdBQWhjQlhRIn0sInN1YiI6Imh0dHBzOi8vZXhhbXBsZS5jb20vc3RhdHVzbGlzdHMvMSIsInR0bCI6NDMyMDB9.2lKUUNG503R9htu4aHAYi7vjmr3sgApbfoDvPrl65N3URUO1EYqqQl45Jfzd-Av4QzlKa3oVALpLwOEUOq-U_g";
const { d: _d, ...DRAFT_EXAMPLE_PUBLIC_KEY } = DRAFT_EXAMPLE_KEY;

function build(bits: StatusListBits, size: number, set: Record<number, number>): Uint8Array {
  const bytes = createStatusListBytes(size, bits);
  for (const [idx, value] of Object.entries(set)) setStatus(bytes, bits, Number(idx), value);
  return bytes;
}

describe("status list bytes", () => {
  it.each([VECTOR_1BIT_SHORT, VECTOR_2BIT_SHORT])(
    "builds the $bits-bit byte-array example LSB first",
    (v) => {
      const bytes = createStatusListBytes(v.statuses.length, v.bits);
      v.statuses.forEach((s, i) => {
        setStatus(bytes, v.bits, i, s);
      });
      expect([...bytes]).toEqual(v.bytes);
      v.statuses.forEach((s, i) => {
        expect(getStatus(bytes, v.bits, i)).toBe(s);
      });
    },
  );

  it("encodes the short examples to the draft's lst values", () => {
    expect(encodeStatusList(new Uint8Array(VECTOR_1BIT_SHORT.bytes))).toBe(VECTOR_1BIT_SHORT.lst);
    expect(encodeStatusList(new Uint8Array(VECTOR_2BIT_SHORT.bytes))).toBe(VECTOR_2BIT_SHORT.lst);
    expect([...decodeStatusList(VECTOR_1BIT_SHORT.lst)]).toEqual(VECTOR_1BIT_SHORT.bytes);
    expect([...decodeStatusList(VECTOR_2BIT_SHORT.lst)]).toEqual(VECTOR_2BIT_SHORT.bytes);
  });

  it("encodes at a lower zlib level on request: larger, and decodes to the same bytes", () => {
    const bytes = new Uint8Array(32768);
    for (let i = 0; i < 3000; i++) bytes[(i * 7919) % bytes.length]! |= 1 << (2 * (i % 4));
    const best = encodeStatusList(bytes);
    const fast = encodeStatusList(bytes, 6);
    expect(fast).not.toBe(best);
    expect(best.length).toBeLessThanOrEqual(fast.length);
    expect(decodeStatusList(fast)).toEqual(bytes);
    expect(decodeStatusList(best)).toEqual(bytes);
  });

  it.each([VECTOR_1BIT_LONG, VECTOR_2BIT_LONG, VECTOR_4BIT_LONG])(
    "decodes the 2^20-entry $bits-bit test vector and matches every entry",
    (v) => {
      const decoded = decodeStatusList(v.lst);
      expect(statusListCapacity(decoded, v.bits)).toBe(LONG_SIZE);
      const expected = build(v.bits, LONG_SIZE, v.set);
      expect(Buffer.from(decoded).equals(Buffer.from(expected))).toBe(true);
      for (const [idx, value] of Object.entries(v.set))
        expect(getStatus(decoded, v.bits, Number(idx))).toBe(value);
      expect(getStatus(decoded, v.bits, 1)).toBe(0);
      // Our encoder must produce a list that decodes to the same bytes (the exact deflate stream may
      // differ between zlib builds, so byte equality of `lst` is only asserted for the short vectors).
      expect(Buffer.from(decodeStatusList(encodeStatusList(expected))).equals(Buffer.from(expected))).toBe(
        true,
      );
    },
  );

  it("sets and clears values without disturbing neighbours, for every width", () => {
    for (const bits of [1, 2, 4, 8] as const) {
      const bytes = createStatusListBytes(64, bits);
      const max = (1 << bits) - 1;
      for (let i = 0; i < 64; i++) setStatus(bytes, bits, i, i % (max + 1));
      for (let i = 0; i < 64; i++) expect(getStatus(bytes, bits, i)).toBe(i % (max + 1));
      setStatus(bytes, bits, 5, 0);
      expect(getStatus(bytes, bits, 4)).toBe(4 % (max + 1));
      expect(getStatus(bytes, bits, 5)).toBe(0);
      expect(getStatus(bytes, bits, 6)).toBe(6 % (max + 1));
    }
  });

  it("suspends and reactivates with 2 bits", () => {
    const bytes = createStatusListBytes(8, 2);
    setStatus(bytes, 2, 3, STATUS.SUSPENDED);
    expect(getStatus(bytes, 2, 3)).toBe(STATUS.SUSPENDED);
    setStatus(bytes, 2, 3, STATUS.VALID);
    expect(getStatus(bytes, 2, 3)).toBe(STATUS.VALID);
    setStatus(bytes, 2, 3, STATUS.INVALID);
    expect(getStatus(bytes, 2, 3)).toBe(STATUS.INVALID);
  });

  it("rejects out-of-range indices, oversize values and invalid widths", () => {
    const bytes = createStatusListBytes(16, 1);
    expect(bytes.length).toBe(2);
    expect(() => getStatus(bytes, 1, 16)).toThrow(RangeError);
    expect(() => getStatus(bytes, 1, -1)).toThrow(RangeError);
    expect(() => getStatus(bytes, 1, 1.5)).toThrow(RangeError);
    expect(() => setStatus(bytes, 1, 0, STATUS.SUSPENDED)).toThrow(RangeError);
    expect(() => createStatusListBytes(8, 3 as StatusListBits)).toThrow(RangeError);
    expect(() => createStatusListBytes(0, 1)).toThrow(RangeError);
    expect(createStatusListBytes(9, 1).length).toBe(2);
  });

  it("refuses zlib bombs and garbage", () => {
    const bomb = base64urlEncode(new Uint8Array(deflateSync(new Uint8Array(1024 * 1024))));
    expect(() => decodeStatusList(bomb, { maxBytes: 1024 })).toThrow();
    expect(decodeStatusList(bomb).length).toBe(1024 * 1024);
    expect(() => decodeStatusList("not+base64")).toThrow();
    expect(() => decodeStatusList("AAAA")).toThrow();
  });
});

describe("status list token", () => {
  it("verifies the draft's example Status List Token with the draft's example key", async () => {
    const result = await verifyStatusListToken(DRAFT_EXAMPLE_TOKEN, DRAFT_EXAMPLE_PUBLIC_KEY, {
      expectedSub: "https://example.com/statuslists/1",
      now: 1686920170 + 10,
    });
    expect(result.bits).toBe(1);
    expect([...result.bytes]).toEqual(VECTOR_1BIT_SHORT.bytes);
    expect(result.ttl).toBe(43200);
    expect(result.exp).toBe(2291720170);
    expect(result.iat).toBe(1686920170);
  });

  it("signs a token with the draft's example header and claims", async () => {
    const privateKey = await importEs256PrivateKey(DRAFT_EXAMPLE_KEY);
    const jwt = await signStatusListToken({
      privateKey,
      kid: "12",
      sub: "https://example.com/statuslists/1",
      iat: 1686920170,
      exp: 2291720170,
      ttl: 43200,
      bits: 1,
      bytes: new Uint8Array(VECTOR_1BIT_SHORT.bytes),
    });
    const { header, payload } = decodeJwtUnverified(jwt);
    expect(header).toEqual({ alg: "ES256", kid: "12", typ: "statuslist+jwt" });
    expect(payload).toEqual({
      exp: 2291720170,
      iat: 1686920170,
      status_list: { bits: 1, lst: "eNrbuRgAAhcBXQ" },
      sub: "https://example.com/statuslists/1",
      ttl: 43200,
    });
    const verified = await verifyStatusListToken(jwt, DRAFT_EXAMPLE_PUBLIC_KEY, {
      expectedSub: "https://example.com/statuslists/1",
      now: new Date(1686920170_000),
    });
    expect([...verified.bytes]).toEqual(VECTOR_1BIT_SHORT.bytes);
  });

  it("accepts the typ in any spelling RFC 7515 allows, and NumericDates with fractions", async () => {
    const { privateKey, publicKey } = await generateEs256KeyPair();
    const sub = "https://issuer.example/status/abc";
    const bytes = build(1, 16, { 3: STATUS.INVALID });
    const claims = {
      sub,
      iat: 1_000.5,
      exp: 2_000.25,
      status_list: { bits: 1, lst: encodeStatusList(bytes) },
    };
    for (const typ of ["application/statuslist+jwt", "StatusList+JWT"]) {
      const jwt = await signEs256Jwt({ alg: "ES256", typ }, claims, privateKey);
      const list = await verifyStatusListToken(jwt, publicKey, { expectedSub: sub, now: 1_500 });
      expect(getStatus(list.bytes, list.bits, 3)).toBe(STATUS.INVALID);
    }
    const other = await signEs256Jwt({ alg: "ES256", typ: "application/jwt" }, claims, privateKey);
    await expect(verifyStatusListToken(other, publicKey, { expectedSub: sub, now: 1_500 })).rejects.toThrow(
      /typ must be/,
    );
  });

  it("round-trips a large 2-bit list with x5c, and rejects every bad variant with a distinct code", async () => {
    const { privateKey, publicKey } = await generateEs256KeyPair();
    const other = await generateEs256KeyPair();
    const bytes = build(2, 100_000, { 7: STATUS.SUSPENDED, 99999: STATUS.INVALID });
    const sub = "https://issuer.example/status/abc";
    const jwt = await signStatusListToken({
      privateKey,
      kid: "k1",
      x5c: ["MIIB"],
      sub,
      iat: 1_000,
      exp: 2_000,
      ttl: 300,
      bits: 2,
      bytes,
    });
    expect(decodeJwtUnverified(jwt).header.x5c).toEqual(["MIIB"]);
    const ok = await verifyStatusListToken(jwt, publicKey, { expectedSub: sub, now: 1_500 });
    expect(getStatus(ok.bytes, ok.bits, 7)).toBe(STATUS.SUSPENDED);
    expect(getStatus(ok.bytes, ok.bits, 99_999)).toBe(STATUS.INVALID);

    const code = (p: Promise<unknown>) =>
      p.then(
        () => "ok",
        (e: unknown) => (e instanceof StatusListTokenError ? e.code : `unexpected: ${String(e)}`),
      );
    expect(await code(verifyStatusListToken(jwt, other.publicKey, { expectedSub: sub, now: 1_500 }))).toBe(
      "invalid_signature",
    );
    expect(await code(verifyStatusListToken(jwt, publicKey, { expectedSub: `${sub}/x`, now: 1_500 }))).toBe(
      "sub_mismatch",
    );
    expect(await code(verifyStatusListToken(jwt, publicKey, { expectedSub: sub, now: 2_100 }))).toBe(
      "expired",
    );
    expect(await code(verifyStatusListToken("nope", publicKey, { expectedSub: sub, now: 1_500 }))).toBe(
      "invalid_format",
    );
    expect(
      await code(
        verifyStatusListToken(
          DRAFT_EXAMPLE_TOKEN.replace(
            "eyJhbGciOiJFUzI1NiIsImtpZCI6IjEyIiwidHlwIjoic3RhdHVzbGlzdCtqd3QifQ",
            base64urlEncode(JSON.stringify({ alg: "ES256", typ: "JWT" })),
          ),
          publicKey,
          { expectedSub: sub, now: 1_500 },
        ),
      ),
    ).toBe("invalid_typ");
    const badBits = await signStatusListToken({ privateKey, sub, iat: 1, bits: 3 as StatusListBits, bytes });
    expect(await code(verifyStatusListToken(badBits, publicKey, { expectedSub: sub, now: 1_500 }))).toBe(
      "invalid_format",
    );
    const tooBig = await verifyStatusListToken(jwt, publicKey, {
      expectedSub: sub,
      now: 1_500,
      maxBytes: 100,
    }).catch((e: StatusListTokenError) => e.code);
    expect(tooBig).toBe("invalid_status_list");
  });
});
