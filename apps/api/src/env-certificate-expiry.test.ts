import { describe, expect, it } from "vitest";
import { readEnv, webhookSettings } from "./env";

describe("CERTIFICATE_EXPIRY_NOTICE_DAYS", () => {
  it("sets the core configuration's certificateExpiryNoticeDays; unset leaves the default (30) to the server", () => {
    expect(webhookSettings(readEnv({ CERTIFICATE_EXPIRY_NOTICE_DAYS: "45" })).config).toEqual({
      certificateExpiryNoticeDays: 45,
    });
    expect(webhookSettings(readEnv({})).config).toEqual({});
  });

  it("refuses a value that is not a whole number of days from 1 to 3650", () => {
    for (const value of ["0", "3651", "ten", "1.5"]) {
      expect(() => readEnv({ CERTIFICATE_EXPIRY_NOTICE_DAYS: value }), value).toThrow(
        /CERTIFICATE_EXPIRY_NOTICE_DAYS/,
      );
    }
  });
});
