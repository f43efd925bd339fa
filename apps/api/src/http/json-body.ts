import type { FastifyInstance } from "fastify";

/** JSON bodies: an empty body reads as absent; invalid JSON is a 400 MalformedJson, never a 500. */
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
        done(null, JSON.parse(text));
      } catch {
        const error = new Error("Malformed JSON") as Error & { code: string; statusCode: number };
        error.code = "MALFORMED_JSON";
        error.statusCode = 400;
        done(error, undefined);
      }
    },
  );
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) => {
    done(null, new URLSearchParams(body as string));
  });
}
