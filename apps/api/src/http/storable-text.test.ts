import { describe, expect, it } from "vitest";
import {
  assertStorableJson,
  assertStorableParams,
  assertStorableTarget,
  parseStorableJson,
  UnstorableTextError,
  unstorableCharacter,
} from "./storable-text";

/** The error a call throws (fails the test if it throws none or another). */
function refusal(run: () => unknown): UnstorableTextError {
  try {
    run();
  } catch (error) {
    if (error instanceof UnstorableTextError) return error;
    throw error;
  }
  throw new Error("expected an UnstorableTextError");
}

describe("unstorableCharacter", () => {
  it("finds U+0000 and unpaired surrogates, and passes every other character", () => {
    expect(unstorableCharacter("a\u0000b")).toBe("nul");
    expect(unstorableCharacter("\ud800")).toBe("surrogate");
    expect(unstorableCharacter("x\udc00")).toBe("surrogate");
    expect(unstorableCharacter("\ud800x")).toBe("surrogate");
    expect(unstorableCharacter("\udc00\ud800")).toBe("surrogate");
    // A pair is one character (U+1F600); U+FFFD, controls other than NUL and U+FFFF are storable.
    expect(unstorableCharacter("😀 \ud83d\ude00 \ufffd \u0001 \uffff")).toBeUndefined();
  });
});

describe("assertStorableJson", () => {
  it("names the member path of a value, at any depth, and of a member name", () => {
    const value = refusal(() => assertStorableJson({ a: [1, { b: "x\u0000" }] }, "body"));
    expect(value.target).toBe("a.1.b");
    expect(value.message).toBe(
      "The body member 'a.1.b' contains a NUL character (U+0000), which cannot be accepted; remove it.",
    );
    const name = refusal(() => assertStorableJson({ claims: { "giv\ud800en": 1 } }, "body"));
    expect(name.target).toBe("claims.giv\\ud800en");
    expect(name.message).toContain("unpaired UTF-16 surrogate");
    expect(refusal(() => assertStorableJson("\u0000", "body")).message).toMatch(/^The request body contains/);
    expect(refusal(() => assertStorableJson({ id: "\u0000" }, "query", "input")).target).toBe("input.id");
  });

  it("reports the first offending member in document order", () => {
    const error = refusal(() => assertStorableJson({ a: "ok", b: ["\u0000"], c: "\u0000" }, "body"));
    expect(error.target).toBe("b.0");
  });

  it("walks a value nested 100 000 deep without overflowing the stack", () => {
    const text = `${"[".repeat(100_000)}"\\u0000"${"]".repeat(100_000)}`;
    const error = refusal(() => parseStorableJson(text, "body"));
    expect(error.target.startsWith("0.0.0")).toBe(true);
    expect(error.target.length).toBeLessThanOrEqual(101);
  });

  it("parses JSON without escapes as JSON.parse does", () => {
    expect(parseStorableJson('{"a":["b",1,null]}', "body")).toEqual({ a: ["b", 1, null] });
    expect(parseStorableJson('{"a":"\\u00e9\\ud83d\\ude00"}', "body")).toEqual({ a: "é😀" });
    expect(() => parseStorableJson("{", "body")).toThrow(SyntaxError);
  });
});

describe("assertStorableParams and assertStorableTarget", () => {
  it("names the form or query parameter", () => {
    const form = refusal(() => assertStorableParams(new URLSearchParams("a=1&vp_token=x%00"), "form"));
    expect(form.message).toContain("The form parameter 'vp_token'");
    const query = refusal(() => assertStorableTarget("/v1.0/things?limit=2&status=%00", {}));
    expect(query.message).toContain("The query parameter 'status'");
    // A query value Fastify's parser leaves undecoded (a broken escape after it) still counts.
    expect(refusal(() => assertStorableTarget("/x?a=%00%E0", {})).target).toBe("a");
  });

  it("names the path parameter from the route, else from the caller's templates, else quotes the segment", () => {
    expect(refusal(() => assertStorableTarget("/issuers/a%00b/nonce", { issuerId: "a\u0000b" })).target).toBe(
      "issuerId",
    );
    const fromTemplate = refusal(() =>
      assertStorableTarget("/v1.0/things/a%00", { "*": "things/a\u0000" }, (_path, index) =>
        index === 3 ? "thingId" : undefined,
      ),
    );
    expect(fromTemplate.message).toContain("The path parameter 'thingId'");
    const segment = refusal(() => assertStorableTarget("/nowhere/a%00", {}));
    expect(segment.message).toContain("The path segment 'a%00'");
  });

  it("lets every other target through, encoded surrogates included (they decode to U+FFFD)", () => {
    expect(() => assertStorableTarget("/v1.0/things/%ED%A0%80?x=%ED%A0%80&y=%2500", {})).not.toThrow();
  });
});
