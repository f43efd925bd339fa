import { describe, expect, it } from "vitest";
import { z } from "zod";
import "./zod-messages";

const messages = (schema: z.ZodType, value: unknown) =>
  schema.safeParse(value).error?.issues.map((issue) => issue.message);

describe("validation messages", () => {
  it("words length and range problems so people can act on them", () => {
    expect(messages(z.string().min(1), "")).toEqual(["must not be empty"]);
    expect(messages(z.string().min(3).max(5), "ab")).toEqual(["must be at least 3 characters"]);
    expect(messages(z.string().max(5), "abcdef")).toEqual(["must be at most 5 characters"]);
    expect(messages(z.array(z.string()).min(1), [])).toEqual(["must not be empty"]);
    expect(messages(z.array(z.string()).max(1), ["a", "b"])).toEqual(["must have at most 1 item"]);
    expect(messages(z.number().int().min(60), 5)).toEqual(["must be at least 60"]);
    expect(messages(z.number().positive(), 0)).toEqual(["must be greater than 0"]);
  });

  it("keeps a schema's own message", () => {
    expect(messages(z.string().min(1, { error: "Enter a name." }), "")).toEqual(["Enter a name."]);
  });
});
