import type { FastifyInstance } from "fastify";
import {
  assertStorableParams,
  assertStorableText,
  parseStorableJson,
  UnstorableTextError,
} from "./storable-text";

/**
 * JSON bodies: an empty body reads as absent; invalid JSON is a 400 MalformedJson, never a 500. Every
 * body parser refuses text the database cannot store (U+0000, an unpaired surrogate) with a 400 naming
 * the member or parameter (http/storable-text.ts).
 */
export function registerJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser("application/json");
  // application/merge-patch+json (RFC 7396) is JSON too; PATCH operations accept both.
  app.addContentTypeParser(
    ["application/json", "application/merge-patch+json"],
    { parseAs: "string" },
    (_req, body, done) => {
      const text = body as string;
      if (text.trim() === "") return done(null, undefined);
      try {
        done(null, parseStorableJson(text, "body"));
      } catch (cause) {
        if (cause instanceof UnstorableTextError) return done(cause, undefined);
        const error = new Error("Malformed JSON") as Error & { code: string; statusCode: number };
        error.code = "MALFORMED_JSON";
        error.statusCode = 400;
        done(error, undefined);
      }
    },
  );
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) => {
    const form = new URLSearchParams(body as string);
    try {
      assertStorableParams(form, "form");
    } catch (error) {
      return done(error as UnstorableTextError, undefined);
    }
    done(null, form);
  });
  // Fastify's own text/plain parser, with the same check (the REST planes refuse the type with 415).
  app.removeContentTypeParser("text/plain");
  app.addContentTypeParser("text/plain", { parseAs: "string" }, (_req, body, done) => {
    try {
      assertStorableText(body as string, "body");
    } catch (error) {
      return done(error as UnstorableTextError, undefined);
    }
    done(null, body);
  });
}
