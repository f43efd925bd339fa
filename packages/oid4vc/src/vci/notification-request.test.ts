import { describe, expect, it } from "vitest";
import { OAuthError } from "../jose/oauth-error";
import { parseNotificationRequest } from "./notification-request";

function refusal(body: unknown) {
  try {
    parseNotificationRequest(body);
  } catch (e) {
    if (e instanceof OAuthError)
      return { error: e.error, status: e.status, description: e.error_description };
    throw e;
  }
  return null;
}

describe("parseNotificationRequest (OpenID4VCI §11.1)", () => {
  it("parses the spec's examples", () => {
    expect(
      parseNotificationRequest({
        notification_id: "3fwe98js",
        event: "credential_accepted",
      }),
    ).toEqual({ notification_id: "3fwe98js", event: "credential_accepted" });
    expect(
      parseNotificationRequest({
        notification_id: "3fwe98js",
        event: "credential_failure",
        event_description: "Could not store the Credential. Out of storage.",
      }).event_description,
    ).toBe("Could not store the Credential. Out of storage.");
  });

  it("takes every character of %x20-21 / %x23-5B / %x5D-7E in event_description, and an empty one", () => {
    const allowed = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i))
      .filter((c) => c !== '"' && c !== "\\")
      .join("");
    for (const event_description of [allowed, ""]) {
      expect(
        parseNotificationRequest({ notification_id: "n", event: "credential_deleted", event_description })
          .event_description,
      ).toBe(event_description);
    }
  });

  it.each([
    ["a double quote", 'said "no"'],
    ["a backslash", "C:\\wallet"],
    ["a newline", "line one\nline two"],
    ["a tab", "a\tb"],
    ["DEL", "a\x7f"],
    ["a NUL", "a\x00"],
    ["a non-ASCII letter", "Speicher voll – gelöscht"],
    ["an emoji", "full 📦"],
    ["a number", 42],
    ["null", null],
  ])(
    "refuses an event_description with %s: 400 invalid_notification_request",
    (_label, event_description) => {
      const r = refusal({ notification_id: "n", event: "credential_failure", event_description });
      expect(r).toMatchObject({ error: "invalid_notification_request", status: 400 });
      expect(r?.description).toMatch(/event_description/);
    },
  );

  it("refuses a body that is not an object, and a missing id or event, or one it does not define", () => {
    for (const body of [null, "x", [], 1]) expect(refusal(body)?.error).toBe("invalid_notification_request");
    for (const body of [
      { event: "credential_accepted" },
      { notification_id: 1, event: "credential_accepted" },
      { notification_id: "n" },
      { notification_id: "n", event: "credential_lost" },
      { notification_id: "n", event: "__proto__" },
      { notification_id: "n", event: "toString" },
    ])
      expect(refusal(body)).toMatchObject({ error: "invalid_notification_request", status: 400 });
  });
});
