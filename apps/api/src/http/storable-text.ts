import type { FastifyInstance } from "fastify";

/**
 * Text PostgreSQL cannot hold: `text` columns refuse U+0000 and `jsonb` refuses `\u0000` and unpaired
 * UTF-16 surrogates (`\ud800` alone). Such a value would fail deep inside an operation as a 500; the edge
 * refuses it instead (400), naming where it was. PGlite is PostgreSQL and refuses the same.
 */

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");

export type UnstorableCharacter = "nul" | "surrogate";

/** What in `text` PostgreSQL cannot store, if anything. */
export function unstorableCharacter(text: string): UnstorableCharacter | undefined {
  if (text.includes("\u0000")) return "nul";
  if (LONE_SURROGATE.test(text)) return "surrogate";
  return undefined;
}

/** Where a request carried the character: the error message names the place and its name or path. */
export type TextPlace = "body" | "form" | "query" | "path" | "path segment";

const MAX_NAME = 100;

/** A name fit to show: the offending characters as `\uXXXX` escapes, and at most 100 characters. */
function printable(name: string): string {
  const asEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  const shown = name.replaceAll("\u0000", asEscape).replace(LONE_SURROGATES, asEscape);
  return shown.length > MAX_NAME ? `${shown.slice(0, MAX_NAME)}…` : shown;
}

const PLACE: Record<TextPlace, string> = {
  body: "The body member",
  form: "The form parameter",
  query: "The query parameter",
  path: "The path parameter",
  "path segment": "The path segment",
};

const CHARACTER: Record<UnstorableCharacter, string> = {
  nul: "a NUL character (U+0000)",
  surrogate: "an unpaired UTF-16 surrogate (not a Unicode character)",
};

/**
 * A request value that cannot be stored; http/errors.ts answers it with 400 (`ValidationFailed`
 * with one `InvalidCharacter` detail, or the wallet endpoint's OAuth code).
 */
export class UnstorableTextError extends Error {
  readonly code = "UNSTORABLE_TEXT";
  readonly statusCode = 400;
  /** The member path (`claims.given_name`, `identifiers.0`), parameter name or path segment; `body` for a whole body. */
  readonly target: string;

  constructor(place: TextPlace, target: string, character: UnstorableCharacter) {
    const shown = printable(target);
    const subject = place === "body" && target === "body" ? "The request body" : `${PLACE[place]} '${shown}'`;
    super(`${subject} contains ${CHARACTER[character]}, which cannot be accepted; remove it.`);
    this.name = "UnstorableTextError";
    this.target = shown;
  }
}

/** A position in a parsed JSON value: its member name or index, under its parent (the root has a name when it is a parameter's). */
interface Position {
  value: unknown;
  name?: string;
  parent?: Position;
}

function pathOf(position: Position | undefined, last?: string): string {
  const names: string[] = last === undefined ? [] : [last];
  for (let p = position; p?.name !== undefined; p = p.parent) names.push(p.name);
  return names.length > 0 ? names.reverse().join(".") : "body";
}

/**
 * Throws for the first string (member name or value, at any depth) of a parsed JSON value that cannot be
 * stored, naming its member path (`claims.given_name`, `identifiers.0`; `body` for a whole body), under
 * `name` for a JSON-valued parameter. The
 * walk keeps its own stack: a body nested 100 000 deep must not overflow the call stack.
 */
export function assertStorableJson(value: unknown, place: TextPlace, name?: string): void {
  const stack: Position[] = [{ value, name }];
  for (let position = stack.pop(); position; position = stack.pop()) {
    const current = position.value;
    if (typeof current === "string") {
      const character = unstorableCharacter(current);
      if (character) throw new UnstorableTextError(place, pathOf(position), character);
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i], name: String(i), parent: position });
      }
    } else if (typeof current === "object" && current !== null) {
      const members = Object.entries(current);
      for (let i = members.length - 1; i >= 0; i--) {
        const [name, member] = members[i]!;
        const character = unstorableCharacter(name);
        if (character) throw new UnstorableTextError(place, pathOf(position, name), character);
        stack.push({ value: member, name, parent: position });
      }
    }
  }
}

/** The JSON escapes that can decode to what cannot be stored: `\u0000` and any surrogate (`\uD800`–`\uDFFF`). */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/** Whether a JSON text has an escape that may decode to what cannot be stored (else no walk is needed). */
export function hasSuspectEscape(text: string): boolean {
  return SUSPECT_ESCAPE.test(text);
}

/**
 * Parses a JSON text, refusing what cannot be stored. Only an escape can put such a character into a
 * parsed value (a raw U+0000 is not valid JSON, and a body decoded from UTF-8 holds no unpaired
 * surrogate), so a text without a suspect escape skips the walk; one with a surrogate pair (an escaped
 * emoji) is walked and passes.
 */
export function parseStorableJson(text: string, place: TextPlace): unknown {
  const value = JSON.parse(text);
  if (hasSuspectEscape(text)) assertStorableJson(value, place);
  return value;
}

/** Throws when a whole text body (text/plain, application/jwt) holds what cannot be stored. */
export function assertStorableText(text: string, place: TextPlace): void {
  const character = unstorableCharacter(text);
  if (character) throw new UnstorableTextError(place, "body", character);
}

/** Throws for the first name or value of a form or query string that cannot be stored. */
export function assertStorableParams(params: URLSearchParams, place: TextPlace): void {
  for (const [name, value] of params) {
    const character = unstorableCharacter(name) ?? unstorableCharacter(value);
    if (character) throw new UnstorableTextError(place, name, character);
  }
}

/** The name of the path parameter at a segment of a path, where the caller knows it (the REST templates). */
export type PathParameterAt = (path: string, segmentIndex: number) => string | undefined;

/**
 * Throws when the request target (path and query, still percent-encoded) decodes to a NUL anywhere. Only
 * `%00` decodes to U+0000 (Node refuses a raw one in the request line), and percent-decoding UTF-8 never
 * yields an unpaired surrogate (an encoded surrogate is invalid UTF-8 and decodes to U+FFFD or fails), so
 * a target without `%00` is fine. The path parameter is named from the route's decoded `params`, else by
 * `parameterAt`, else the raw segment is quoted.
 */
export function assertStorableTarget(
  url: string,
  params: Record<string, string> | undefined,
  parameterAt?: PathParameterAt,
): void {
  if (!url.includes("%00")) return;
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (path.includes("%00")) {
    const named = Object.entries(params ?? {}).find(
      ([name, value]) => name !== "*" && typeof value === "string" && value.includes("\u0000"),
    );
    const segments = path.split("/");
    const index = segments.findIndex((segment) => segment.includes("%00"));
    const name = named?.[0] ?? parameterAt?.(path, index);
    if (name) throw new UnstorableTextError("path", name, "nul");
    throw new UnstorableTextError("path segment", segments[index]!, "nul");
  }
  assertStorableParams(new URLSearchParams(url.slice(queryAt + 1)), "query");
}

/** Refuses a request whose path or query decodes to a NUL before anything reads it (or its body). */
export function registerStorableTargetCheck(app: FastifyInstance, parameterAt?: PathParameterAt) {
  app.addHook("onRequest", async (request) => {
    assertStorableTarget(request.url, request.params as Record<string, string> | undefined, parameterAt);
  });
}
