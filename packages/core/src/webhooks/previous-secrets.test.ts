import { describe, expect, it } from "vitest";
import { livePreviousSecrets, MAX_PREVIOUS_SECRETS, previousSecretsAfterRotation } from "./previous-secrets";

const now = new Date("2026-11-22T12:00:00.000Z");
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

describe("previous webhook secrets", () => {
  it("keeps only well-formed entries whose overlap has not ended", () => {
    const stored = [
      { cipher: "a", expiresAt: at(60) },
      { cipher: "b", expiresAt: at(-1) },
      { cipher: 3, expiresAt: at(60) },
      null,
    ];
    expect(livePreviousSecrets(stored, now)).toEqual([{ cipher: "a", expiresAt: at(60) }]);
    expect(livePreviousSecrets(null, now)).toEqual([]);
  });

  it("adds the replaced secret first, keeps earlier live ones, caps the list, and 0 ends them all", () => {
    const stored = [{ cipher: "older", expiresAt: at(30) }];
    expect(previousSecretsAfterRotation(stored, "replaced", 3600, now)).toEqual([
      { cipher: "replaced", expiresAt: at(3600) },
      { cipher: "older", expiresAt: at(30) },
    ]);
    expect(previousSecretsAfterRotation(stored, "replaced", 0, now)).toEqual([]);
    const many = Array.from({ length: 9 }, (_, i) => ({ cipher: `s${i}`, expiresAt: at(100 + i) }));
    const capped = previousSecretsAfterRotation(many, "replaced", 60, now);
    expect(capped).toHaveLength(MAX_PREVIOUS_SECRETS);
    expect(capped[0]!.cipher).toBe("replaced");
  });
});
