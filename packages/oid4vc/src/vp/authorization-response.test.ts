import { describe, expect, it } from "vitest";
import { parseAuthorizationResponse } from "./authorization-response";
import { parseDcqlQuery } from "./dcql";
import { VpError } from "./errors";
import { matchPresentationsToQuery } from "./match-presentations";
import {
  decryptDirectPostJwt,
  encryptDirectPostJwtResponse,
  generateResponseEncryptionKey,
} from "./response-encryption";

const form = (fields: Record<string, string>) => new URLSearchParams(fields);

describe("parseAuthorizationResponse: direct_post", () => {
  it("parses vp_token and state", async () => {
    const parsed = await parseAuthorizationResponse(
      form({ vp_token: JSON.stringify({ my_credential: ["eyJhbGci...QMA~"] }), state: "eyJhb-6-sVA" }),
    );
    expect(parsed).toEqual({
      kind: "vp_token",
      state: "eyJhb-6-sVA",
      vpToken: { my_credential: ["eyJhbGci...QMA~"] },
      encrypted: false,
    });
  });

  it("accepts a plain object body", async () => {
    const parsed = await parseAuthorizationResponse({ vp_token: '{"a":["x~"]}', state: "s" });
    expect(parsed.kind).toBe("vp_token");
  });

  it("parses wallet error responses", async () => {
    expect(
      await parseAuthorizationResponse(
        form({ error: "access_denied", error_description: "user declined", state: "s1" }),
      ),
    ).toEqual({
      kind: "error",
      state: "s1",
      error: "access_denied",
      errorDescription: "user declined",
      encrypted: false,
    });
    expect(await parseAuthorizationResponse(form({ error: "invalid_request" }))).toMatchObject({
      kind: "error",
      state: undefined,
      errorDescription: undefined,
    });
  });

  it.each([
    ["nothing", {}],
    ["vp_token not JSON", { vp_token: "{" }],
    ["vp_token an array", { vp_token: '["x"]' }],
    ["vp_token values not arrays", { vp_token: '{"pid":"x~"}' }],
    ["empty presentation arrays", { vp_token: '{"pid":[]}' }],
    ["non-string presentations", { vp_token: '{"pid":[{"a":1}]}' }],
    ["bad query ids", { vp_token: '{"p.d":["x~"]}' }],
    ["empty error", { error: "" }],
  ])("rejects %s with invalid_request", async (_name, fields) => {
    const promise = parseAuthorizationResponse(form(fields as Record<string, string>));
    await expect(promise).rejects.toBeInstanceOf(VpError);
    await expect(promise).rejects.toMatchObject({ oauthError: "invalid_request", status: 400 });
  });

  it("rejects repeated parameters", async () => {
    const f = new URLSearchParams();
    f.append("vp_token", '{"a":["x~"]}');
    f.append("vp_token", '{"b":["x~"]}');
    await expect(parseAuthorizationResponse(f)).rejects.toThrow(/repeated/);
    await expect(parseAuthorizationResponse({ state: ["a", "b"], vp_token: '{"a":["x~"]}' })).rejects.toThrow(
      /repeated/,
    );
  });

  it("refuses an unencrypted vp_token when direct_post.jwt was requested, but accepts plain errors", async () => {
    await expect(
      parseAuthorizationResponse(form({ vp_token: '{"a":["x~"]}' }), { responseMode: "direct_post.jwt" }),
    ).rejects.toThrow(/encrypted/);
    expect(
      (
        await parseAuthorizationResponse(form({ error: "access_denied" }), {
          responseMode: "direct_post.jwt",
        })
      ).kind,
    ).toBe("error");
  });
});

describe("parseAuthorizationResponse: direct_post.jwt", () => {
  const key = generateResponseEncryptionKey();
  const decrypt = (jwe: string) => decryptDirectPostJwt(jwe, key.privateJwk);

  it("decrypts the response and reads vp_token and state", async () => {
    const jwe = await encryptDirectPostJwtResponse(
      { vp_token: { pid: ["x~y~"] }, state: "s" },
      key.publicJwk,
      "A256GCM",
    );
    expect(
      await parseAuthorizationResponse(form({ response: jwe }), { decrypt, responseMode: "direct_post.jwt" }),
    ).toEqual({
      kind: "vp_token",
      state: "s",
      vpToken: { pid: ["x~y~"] },
      encrypted: true,
    });
  });

  it("hands the JWE header (kid) to the decrypt callback", async () => {
    const jwe = await encryptDirectPostJwtResponse({ vp_token: { pid: ["x~"] } }, key.publicJwk);
    let seenKid: string | undefined;
    await parseAuthorizationResponse(form({ response: jwe }), {
      decrypt: (j, header) => {
        seenKid = header.kid;
        return decrypt(j);
      },
    });
    expect(seenKid).toBe(key.publicJwk.kid);
  });

  it("accepts a JSON-encoded vp_token inside the JWE and an encrypted error", async () => {
    const a = await encryptDirectPostJwtResponse({ vp_token: '{"pid":["x~"]}', state: "s" }, key.publicJwk);
    expect((await parseAuthorizationResponse(form({ response: a }), { decrypt })).kind).toBe("vp_token");
    const e = await encryptDirectPostJwtResponse({ error: "access_denied", state: "s" }, key.publicJwk);
    expect(await parseAuthorizationResponse(form({ response: e }), { decrypt })).toMatchObject({
      kind: "error",
      error: "access_denied",
      encrypted: true,
    });
  });

  it("takes state from outside the JWE when only given there, and refuses a conflicting one", async () => {
    const jwe = await encryptDirectPostJwtResponse(
      { vp_token: { pid: ["x~"] }, state: "inner" },
      key.publicJwk,
    );
    await expect(
      parseAuthorizationResponse(form({ response: jwe, state: "outer" }), { decrypt }),
    ).rejects.toThrow(/state/);
    const noState = await encryptDirectPostJwtResponse({ vp_token: { pid: ["x~"] } }, key.publicJwk);
    expect(
      (await parseAuthorizationResponse(form({ response: noState, state: "outer" }), { decrypt })).state,
    ).toBe("outer");
  });

  it("rejects encrypted responses without a decrypt function, in direct_post mode, or malformed", async () => {
    const jwe = await encryptDirectPostJwtResponse({ vp_token: { pid: ["x~"] } }, key.publicJwk);
    await expect(parseAuthorizationResponse(form({ response: jwe }))).rejects.toThrow(VpError);
    await expect(
      parseAuthorizationResponse(form({ response: jwe }), { decrypt, responseMode: "direct_post" }),
    ).rejects.toThrow(VpError);
    await expect(
      parseAuthorizationResponse(form({ response: "garbage" }), { decrypt }),
    ).rejects.toMatchObject({
      oauthError: "invalid_request",
    });
    const empty = await encryptDirectPostJwtResponse({ foo: 1 }, key.publicJwk);
    await expect(parseAuthorizationResponse(form({ response: empty }), { decrypt })).rejects.toThrow(
      /vp_token/,
    );
  });
});

describe("matchPresentationsToQuery", () => {
  const query = parseDcqlQuery({
    credentials: [
      { id: "pid", format: "dc+sd-jwt", meta: { vct_values: ["a"] } },
      { id: "many", format: "dc+sd-jwt", meta: { vct_values: ["b"] }, multiple: true },
      { id: "opt", format: "dc+sd-jwt", meta: { vct_values: ["c"] } },
    ],
    credential_sets: [
      { options: [["pid"]] },
      { options: [["many"]] },
      { options: [["opt"]], required: false },
    ],
  });

  it("accepts a matching token (optional queries omitted)", () => {
    expect(matchPresentationsToQuery(query, { pid: ["x~"], many: ["y~", "z~"] })).toEqual([]);
  });

  it("reports unknown ids, too many presentations and unmet required sets", () => {
    const reasons = matchPresentationsToQuery(query, { pid: ["x~", "x2~"], other: ["q~"] });
    expect(reasons.map((r) => r.code)).toEqual([
      "too_many_presentations",
      "unknown_credential_query",
      "credential_sets_unsatisfied",
    ]);
    expect(reasons[0]?.credentialQueryId).toBe("pid");
  });

  it("requires every query when there are no credential sets", () => {
    const q = parseDcqlQuery({
      credentials: [
        { id: "a", format: "dc+sd-jwt", meta: { vct_values: ["a"] } },
        { id: "b", format: "dc+sd-jwt", meta: { vct_values: ["b"] } },
      ],
    });
    expect(matchPresentationsToQuery(q, { a: ["x~"] })).toEqual([
      {
        code: "missing_credential",
        message: 'no presentation for credential query "b"',
        credentialQueryId: "b",
      },
    ]);
  });
});
