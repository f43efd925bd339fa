import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "../src/index.js";

const secret = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;
const event = {
  type: "credential.revoked",
  timestamp: "2026-08-30T12:00:00.000Z",
  data: { credentialId: "crd_1" },
};

function signed(body: string, at = new Date()) {
  const id = "evt_01jd5x6c3v8w9y0z1a2b3c4d5e";
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
}

describe("verifyWebhook", () => {
  const body = JSON.stringify(event);

  it("returns the event of a signed delivery, from a record, Fetch Headers or bytes", () => {
    const headers = signed(body);
    expect(verifyWebhook(secret, body, headers)).toEqual(event);
    expect(verifyWebhook(secret, new TextEncoder().encode(body), new Headers(headers))).toEqual(event);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(secret, body, upper)).toEqual(event);
  });

  it("refuses a changed body, another secret, a missing signature and an old timestamp", () => {
    const headers = signed(body);
    expect(() => verifyWebhook(secret, body.replace("crd_1", "crd_2"), headers)).toThrow(
      WebhookVerificationError,
    );
    const other = `whsec_${Buffer.alloc(24, 8).toString("base64")}`;
    expect(() => verifyWebhook(other, body, headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, body, { ...headers, "webhook-signature": undefined })).toThrow(
      WebhookVerificationError,
    );
    const old = signed(body, new Date(Date.now() - 10 * 60_000));
    expect(() => verifyWebhook(secret, body, old)).toThrow(WebhookVerificationError);
  });
});
